/* chalktrace step mode, present mode (p, &present=1): large type and no chrome, for a projector;
   and full screen (f), in any mode.

   Keeps the current line in the middle third of the screen, and can blank the screen (b, or "." as
   clickers send; b again, Esc or a click shows it). Its keys (PageDown/PageUp, Space) are rows of
   the command table (viewer-core.js).
   Must not: talk to other windows (viewer-sync.js does) or change what a step shows. */
(function () {
  "use strict";
  var t = window.CHALKTRACE.t, el = window.CHALKTRACE.el;

  function Present(v) {
    var self = this;
    this.v = v;
    this.on = false;
    this.blankEl = null;
    v.addMode("present", { get: function () { return self.on; }, set: function (on) { self.set(on); } });
    v.addCommand("present", function () { v.toggle("present"); });
    v.addCommand("unpresent", function () { v.setMode("present", false); }, { button: false });
    v.addCommand("blank", function () { self.setBlank(!self.blanked()); }, { button: false });
    v.addCommand("fullscreen", function () { self.toggleFullscreen(); });
    this.onFullscreen = function () { v.controllers.bar.pressed("fullscreen", !!document.fullscreenElement); };
    document.addEventListener("fullscreenchange", this.onFullscreen);
  }

  // The whole page full screen (the viewer covers it), so the help and the blank screen come along.
  Present.prototype.toggleFullscreen = function () {
    var doc = document.documentElement;
    if (document.fullscreenElement) return document.exitFullscreen && document.exitFullscreen();
    if (doc.requestFullscreen) doc.requestFullscreen().catch(function () { /* refused: not from a key or click */ });
  };

  Present.prototype.destroy = function () {
    document.removeEventListener("fullscreenchange", this.onFullscreen);
    if (document.fullscreenElement && document.exitFullscreen) document.exitFullscreen().catch(function () {});
  };

  Present.prototype.build = function (layout) {
    var self = this;
    this.blankEl = layout.root.appendChild(el("div", "lt-v-blank"));
    this.blankEl.hidden = true;
    this.blankEl.title = t("viewer.present.blank_title");
    this.blankEl.addEventListener("click", function () { self.setBlank(false); });
  };

  Present.prototype.set = function (on) {
    this.on = on;
    this.v.rootEl.classList.toggle("lt-present", on);
    if (!on) this.setBlank(false);
    this.v.controllers.code.scrollToCurrent(true);
    this.v.controllers.values.follow();  // the cards grew or shrank: the current ones back in view
    var announce = this.v.controllers.announce;
    if (announce && this.v.active) announce.say(on ? t("viewer.present.on") : t("viewer.present.off"));
  };

  Present.prototype.blanked = function () { return !!this.blankEl && !this.blankEl.hidden; };

  Present.prototype.setBlank = function (on) {
    if (this.blankEl.hidden === !on) return;
    this.blankEl.hidden = !on;
    var announce = this.v.controllers.announce;
    if (announce) announce.say(on ? t("viewer.present.blanked") : t("viewer.present.shown"));
  };

  // Where the code panel puts the current line while presenting: in the middle third. A line leaving
  // it going down is put at the band's top (going up: its bottom), so the next scroll is a third of a
  // screen of lines away rather than a sixth: each scroll costs a step a frame's worth of restyling.
  Present.prototype.place = function (box, lineTop, lineBottom, always) {
    var height = box.clientHeight, top = box.scrollTop, third = height / 3;
    if (always) box.scrollTop = (lineTop + lineBottom - height) / 2;
    else if (lineBottom > top + 2 * third) box.scrollTop = lineTop - third - 2;
    else if (lineTop < top + third) box.scrollTop = lineBottom - 2 * third + 2;
  };

  Present.prototype.close = function () { if (this.on) this.v.setMode("present", false, { url: false }); };

  window.CHALKTRACE.controller("present", Present);
})();
