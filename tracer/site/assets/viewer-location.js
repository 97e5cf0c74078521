/* chalktrace step mode, the location: every position is a URL, and the URL sets the position.

   #step=N, plus &NAME=1 for each mode that is on (raw, reveal, quiz, present, speaker: the order the
   controllers registered them; a bare #step=N, as older links have, means all off). History: a move
   pushes an entry unless the previous move was under BURST_MS ago; moves within such a burst replace
   it (when the burst pauses), so Back after a run of key presses returns to where the run started
   instead of undoing one key at a time. Back, Forward and edited hashes move the viewer.
   Must not: draw anything, or know what a mode does (it only reads and sets them through the core). */
(function () {
  "use strict";
  var BURST_MS = 800;
  var URL_EVERY_MS = 150;
  var STEP_HASH = /^#step=(\d+)((?:&[a-z]+=\w*)*)$/;

  function Location(v) {
    var self = this;
    this.v = v;
    this.lastMove = 0;          // Date.now() of the last move, for telling bursts apart
    this.timer = null;          // a pending replaceState for the latest step of a burst
    this.onChange = function () { self.sync(); };
    window.addEventListener("popstate", this.onChange);
    window.addEventListener("hashchange", this.onChange);
  }

  Location.prototype.hash = function () {
    var v = this.v, hash = "#step=" + v.cur;
    for (var k = 0; k < v.modes.length; k++) if (v.modes[k].get()) hash += "&" + v.modes[k].name + "=1";
    return hash;
  };

  // After a move: the first move of a burst pushes a history entry; later moves of the burst replace
  // it once the burst pauses for URL_EVERY_MS (browsers throttle history calls, and a held key
  // repeats ~30 times a second).
  Location.prototype.record = function () {
    var self = this, now = Date.now(), burst = now - this.lastMove < BURST_MS;
    this.lastMove = now;
    if (!burst) return this.write(true);
    // within a burst, write once it pauses: a history call costs milliseconds, a step should not
    clearTimeout(this.timer);
    this.timer = setTimeout(function () { self.write(false); }, URL_EVERY_MS);
  };

  Location.prototype.write = function (push) {
    this.cancel();
    var hash = this.hash();
    if (!this.v.active || location.hash === hash) return;
    var url = location.pathname + location.search + hash;
    if (push) history.pushState(null, "", url);
    else history.replaceState(null, "", url);
  };

  Location.prototype.cancel = function () {
    clearTimeout(this.timer);
    this.timer = null;
  };

  // Show what the URL says: back to reading without #step=N, else its modes and step.
  Location.prototype.sync = function () {
    var v = this.v, modes = v.modes, k;
    this.cancel();
    var match = STEP_HASH.exec(location.hash);
    if (!match) return v.close(false);
    var flags = "&" + match[2] + "&";
    if (!v.built) v.build();
    for (k = 0; k < modes.length; k++) {  // before the step: it may ask a question
      if (modes[k].early && modes[k].get() !== (flags.indexOf("&" + modes[k].name + "=1&") >= 0)) modes[k].set(!modes[k].get());
    }
    v.go(v.nearestVisible(+match[1]), { fromUrl: true });
    for (k = 0; k < modes.length; k++) {
      if (!modes[k].early && modes[k].get() !== (flags.indexOf("&" + modes[k].name + "=1&") >= 0)) modes[k].set(!modes[k].get());
    }
  };

  Location.prototype.close = function (updateUrl) {
    this.cancel();
    this.lastMove = 0;
    if (updateUrl) history.pushState(null, "", location.pathname + location.search);
  };

  Location.prototype.destroy = function () {
    this.cancel();
    window.removeEventListener("popstate", this.onChange);
    window.removeEventListener("hashchange", this.onChange);
  };

  window.CHALKTRACE.part("location", Location);
})();
