/* chalktrace step mode, touch: a swipe on the code or the values steps (left: forward, right: back).

   Taps and scrolls do not step: a swipe is one finger, at least 50 px sideways and mostly sideways.
   Must not: stop the page's own scrolling (its listeners are passive) or know what a step is (it runs
   the next and prev commands, as the keys do). */
(function () {
  "use strict";
  var MIN_PX = 50;

  function Touch(v) {
    this.v = v;
    this.start = null;          // [x, y] where the one-finger touch began
  }

  Touch.prototype.build = function (layout) {
    var self = this;
    layout.main.addEventListener("touchstart", function (event) {
      var t = event.changedTouches[0];
      self.start = event.touches.length === 1 ? [t.clientX, t.clientY] : null;
    }, { passive: true });
    layout.main.addEventListener("touchend", function (event) {
      if (!self.start) return;
      var t = event.changedTouches[0], dx = t.clientX - self.start[0], dy = t.clientY - self.start[1];
      self.start = null;
      if (Math.abs(dx) >= MIN_PX && Math.abs(dx) > 1.5 * Math.abs(dy)) self.v.command(dx < 0 ? "next" : "prev");
    }, { passive: true });
  };

  window.CHALKTRACE.controller("touch", Touch);
})();
