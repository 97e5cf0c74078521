/* chalktrace step mode, windows kept on one step: the presenter, the speaker view and other tabs presenting.

   A move made in a presenting window (present mode or the speaker view) is told to the lecture's
   other windows over a BroadcastChannel named for the page; a presenting window follows what it is
   told, without telling it back. The channel closes when the page is left and opens again if the
   page comes back from the browser's cache.
   Must not: move a window that is not presenting, or echo a move it was told. */
(function () {
  "use strict";

  function Sync(v) {
    var self = this;
    this.v = v;
    this.channel = null;
    this.following = false;     // moving because another window moved (no echo)
    this.onHide = function () { self.disconnect(); };
    this.onShow = function (event) { if (event.persisted) self.connect(); };
    window.addEventListener("pagehide", this.onHide);
    window.addEventListener("pageshow", this.onShow);
    this.connect();
  }

  function presenting(v) { return v.mode("present") || v.mode("speaker"); }

  Sync.prototype.connect = function () {
    var self = this, v = this.v;
    if (!("BroadcastChannel" in window) || this.channel) return;
    this.channel = new BroadcastChannel("chalktrace:" + location.pathname);
    this.channel.onmessage = function (event) {
      var step = event.data && event.data.step;
      if (typeof step !== "number" || !presenting(v) || step === v.cur) return;
      self.following = true;
      try { v.go(step); } finally { self.following = false; }
    };
  };

  Sync.prototype.disconnect = function () {
    if (this.channel) this.channel.close();
    this.channel = null;
  };

  Sync.prototype.build = function (layout) {
    var self = this;
    layout.root.addEventListener("chalktrace:step", function (event) {
      if (self.channel && !self.following && presenting(self.v)) self.channel.postMessage({ step: event.detail.step });
    });
  };

  Sync.prototype.destroy = function () {
    this.disconnect();
    window.removeEventListener("pagehide", this.onHide);
    window.removeEventListener("pageshow", this.onShow);
  };

  window.CHALKTRACE.controller("sync", Sync);
})();
