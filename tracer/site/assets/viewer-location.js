/* chalktrace step mode, the location: every position is a URL, and the URL sets the position.

   #step=N, plus &NAME=1 or &NAME=0 for each mode not as it starts (raw, reveal, values, quiz, present,
   speaker: the order the controllers registered them; a bare #step=N, as older links have, means each
   as it starts: the values panel shown, the others off). History: a move pushes an entry unless the
   previous move was under BURST_MS ago; moves within such a burst replace it (when the burst
   pauses), so Back after a run of key presses returns to where the run started instead of undoing
   one key at a time. Back, Forward and edited hashes move the viewer.
   Must not: draw anything, or know what a mode does (it only reads and sets them through the core). */
(function () {
  "use strict";
  var BURST_MS = 800;
  var URL_EVERY_MS = 150;
  var STEP_HASH = /^#step=(\d+)((?:&[a-z]+=\w*)*)$/;
  var FLAG = /&([a-z]+)=(\w*)/g;

  // The modes a URL's flags ask for: {name: on}, "1" on and anything else off.
  function parseFlags(text) {
    var flags = {}, match;
    FLAG.lastIndex = 0;
    while ((match = FLAG.exec(text))) {
      // a link written before the values mode had its name: &novalues=1 hid the panel
      if (match[1] === "novalues") {
        if (!("values" in flags)) flags.values = match[2] !== "1";
      } else {
        flags[match[1]] = match[2] === "1";
      }
    }
    return flags;
  }

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
    for (var k = 0; k < v.modes.length; k++) {
      var on = !!v.modes[k].get();
      if (on !== v.modes[k].initially) hash += "&" + v.modes[k].name + "=" + (on ? "1" : "0");
    }
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
    var flags = parseFlags(match[2]);
    if (!v.built) v.build();
    function apply(early) {
      for (k = 0; k < modes.length; k++) {
        var mode = modes[k], on = mode.name in flags ? flags[mode.name] : mode.initially;
        if (mode.early === early && !!mode.get() !== on) v.setMode(mode.name, on, { url: false });
      }
    }
    apply(true);  // before the step: it may ask a question
    v.go(v.nearestVisible(+match[1]), { fromUrl: true });
    apply(false);
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

  window.CHALKTRACE.controller("location", Location);
})();
