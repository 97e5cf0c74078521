/* chalktrace step mode, following the lecture room (`chalktrace present`): the audience's pages follow
   the presenter step by step; the presenter's pages move the room and get the speaker notes.

   Does nothing unless the page was served by the room (<meta name="chalktrace-room">, which
   tracer/commands/lecture_room.py adds). It opens one WebSocket to the room for the page's lecture;
   the server says which role the page has. The presenter's moves (any move in step mode) are sent,
   a burst of them at most once per SEND_EVERY_MS, the last always. An audience page shows each step
   the room moves to at the next frame (several in one frame: only the last), like a local step, so
   the announce controller reads it out the same way. A student's own move (or leaving step mode)
   pauses following ("following paused"); the rejoin command (t, or the bar's button) goes back to
   the live step. A dropped connection is tried again after a growing, jittered delay (BACKOFF_MS)
   and catches up from the room's hello; a full room is tried again every FULL_RETRY_MS.
   Must not: move the room from an audience page (the server would not obey anyway), show notes on
   an audience page, or talk to other windows of this browser (viewer-sync.js does). */
(function () {
  "use strict";
  var t = window.CHALKTRACE.t, el = window.CHALKTRACE.el, escapeHtml = window.CHALKTRACE.escapeHtml;
  var SEND_EVERY_MS = 60;
  var BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 15000];
  var FULL_RETRY_MS = 30000;

  function roomUrl(lecture) {
    var meta = document.querySelector("meta[name=chalktrace-room]");
    if (!meta || !("WebSocket" in window)) return null;
    return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + meta.getAttribute("content") +
      "?lecture=" + encodeURIComponent(lecture);
  }

  function Follow(v) {
    var self = this;
    this.v = v;
    this.url = roomUrl(v.data.lecture.name);
    this.role = null;           // "presenter" or "audience", as the server says; null until it does
    this.live = null;           // the room's live step (null: the presenter has not started)
    this.following = true;      // an audience page shows the live step
    this.state = "connecting";  // connecting, live, waiting, paused, reconnecting, full
    this.applying = false;      // moving because the room moved (not the student's own move)
    this.ws = null;
    this.tries = 0;             // failed connections in a row (the backoff's index)
    this.retry = null;          // the reconnect timer
    this.frame = null;          // the frame that will show the room's latest step
    this.sendTimer = null;      // a presenter's coalesced send
    this.lastSent = 0;
    this.audience = 0;          // how many follow (told to presenters)
    this.link = "";             // the audience link (told to presenters)
    this.statusEl = null;       // the chip in step mode's bar
    this.hostStatusEl = null;   // the same words on the read page, beside "Step through" (audience)
    this.panelEl = null;
    if (!this.url) return;
    v.addCommand("rejoin", function () { self.rejoin(); });
    v.addCommand("room", function () { self.togglePanel(); });
    this.onOnline = function () { if (!self.ws) self.connect(); };
    window.addEventListener("online", this.onOnline);
    this.connect();
  }

  Follow.prototype.connect = function () {
    var self = this, ws;
    clearTimeout(this.retry);
    this.retry = null;
    try { ws = new WebSocket(this.url); } catch (e) { return this.later(); }
    this.ws = ws;
    ws.onmessage = function (event) {
      var message;
      try { message = JSON.parse(event.data); } catch (e) { return; }
      if (message && typeof message === "object") self.receive(message);
    };
    ws.onclose = function (event) {
      if (self.ws !== ws) return;
      self.ws = null;
      if (event.code === 4001) { self.show("full"); self.retry = setTimeout(function () { self.connect(); }, FULL_RETRY_MS); }
      else self.later();
    };
  };

  // Try again after a growing delay, jittered so a room of phones does not come back all at once.
  Follow.prototype.later = function () {
    var self = this, delay = BACKOFF_MS[Math.min(this.tries, BACKOFF_MS.length - 1)];
    this.tries += 1;
    if (this.role) this.show("reconnecting");
    this.retry = setTimeout(function () { self.connect(); }, delay * (0.5 + Math.random() / 2));
  };

  Follow.prototype.receive = function (message) {
    var v = this.v;
    if (message.t === "hello") {
      this.tries = 0;
      var first = this.role === null;
      this.role = message.role === "presenter" ? "presenter" : "audience";
      this.live = typeof message.step === "number" ? message.step : null;
      if (first) this.becomeRole(message);
      if (this.role === "presenter") {
        if (v.active && v.cur >= 0 && v.cur !== this.live) this.send(v.cur);  // this window is where the room is
        else if (!v.active && this.live !== null) this.apply(this.live);
        this.show("live");
      } else if (this.following) {
        if (this.live !== null) this.apply(this.live);
        this.show(this.live === null ? "waiting" : "live");
      } else this.show("paused");
    } else if (message.t === "step" && typeof message.step === "number") {
      this.live = message.step;
      if (this.role === "presenter" || this.following) this.apply(message.step);
      if (this.role === "audience" && this.following) this.show("live");
    } else if (message.t === "notes" && this.role === "presenter" && v.controllers.speaker) {
      v.controllers.speaker.setNotes(message.notes || []);
    } else if (message.t === "audience" && this.role === "presenter") {
      this.audience = message.audience;
      this.fillPanel();
    } else if (message.t === "full") {
      this.show("full");
    }
  };

  // The role decides which of the bar's room buttons this page has.
  Follow.prototype.becomeRole = function (message) {
    var buttons = this.v.controllers.bar.buttons;
    if (message.link) this.link = message.link;
    if (buttons.rejoin) buttons.rejoin.hidden = this.role !== "audience";
    if (buttons.room) buttons.room.hidden = this.role !== "presenter";
    if (this.v.rootEl) this.v.rootEl.classList.toggle("lt-room-audience", this.role === "audience");
    if (this.role === "audience" && !this.hostStatusEl) {
      // the read page says it too: a student who opened the link before the lecture started sees why nothing moves
      this.hostStatusEl = this.v.host.appendChild(el("span", "lt-v-room"));
      this.hostStatusEl.setAttribute("role", "status");
    }
  };

  // Show the room's step at the next frame: several messages within one frame cost one render.
  Follow.prototype.apply = function (step) {
    var self = this;
    this.target = step;
    if (this.frame !== null) return;
    this.frame = requestAnimationFrame(function () {
      self.frame = null;
      var v = self.v, to = v.nearestVisible(self.target);
      if (self.role === "audience" && !self.following) return;
      self.applying = true;
      try { v.go(to); } finally { self.applying = false; }
    });
  };

  // A presenter's move goes to the room: at once, or at the end of a burst's SEND_EVERY_MS.
  Follow.prototype.send = function (step) {
    var self = this, wait = this.lastSent + SEND_EVERY_MS - Date.now();
    this.outgoing = step;
    if (this.sendTimer !== null) return;
    if (wait <= 0) return this.flushSend();
    this.sendTimer = setTimeout(function () { self.sendTimer = null; self.flushSend(); }, wait);
  };

  Follow.prototype.flushSend = function () {
    if (!this.ws || this.ws.readyState !== 1 || this.outgoing === this.live) return;
    this.lastSent = Date.now();
    this.live = this.outgoing;
    this.ws.send(JSON.stringify({ t: "step", step: this.outgoing }));
  };

  Follow.prototype.build = function (layout) {
    var self = this;
    if (!this.url) return;
    this.statusEl = el("span", "lt-v-room");
    this.statusEl.setAttribute("role", "status");
    var buttons = layout.bar.querySelector(".lt-v-buttons");
    layout.bar.insertBefore(this.statusEl, buttons);
    if (this.role) this.becomeRole({});
    this.show(this.state);
    layout.root.addEventListener("chalktrace:step", function (event) { self.moved(event.detail.step); });
    this.panelEl = layout.root.appendChild(el("div", "lt-v-roompanel"));
    this.panelEl.hidden = true;
    this.panelEl.setAttribute("role", "dialog");
    this.panelEl.setAttribute("aria-label", t("viewer.room.label"));
    this.panelEl.addEventListener("click", function (event) {
      if (event.target === self.panelEl || event.target.tagName === "BUTTON") self.togglePanel(false);
    });
  };

  Follow.prototype.moved = function (step) {
    if (this.applying || !this.role) return;
    if (this.role === "presenter") return this.send(step);
    if (this.following && step !== this.v.nearestVisible(this.live)) this.pause();
  };

  Follow.prototype.pause = function () {
    if (!this.following) return;
    this.following = false;
    this.show("paused");
    this.say(t("viewer.room.paused_said"));
  };

  Follow.prototype.rejoin = function () {
    if (this.role !== "audience") return;
    this.following = true;
    if (this.live !== null) this.apply(this.live);
    this.show(this.live === null ? "waiting" : "live");
    this.say(this.live === null ? t("viewer.room.rejoin_waiting") : t("viewer.room.rejoined"));
  };

  var WORDS = {
    connecting: t("viewer.room.connecting"),
    live: t("viewer.room.live"),
    waiting: t("viewer.room.waiting"),
    paused: t("viewer.room.paused"),
    reconnecting: t("viewer.room.reconnecting"),
    full: t("viewer.room.full")
  };

  Follow.prototype.show = function (state) {
    this.state = state;
    var words = this.role === "presenter" ? (state === "reconnecting" ? WORDS.reconnecting : t("viewer.room.presenting")) : WORDS[state];
    [this.statusEl, this.hostStatusEl].forEach(function (node) {
      if (!node) return;
      node.textContent = words;
      node.setAttribute("data-state", state);
    });
    var rejoin = this.v.controllers.bar.buttons.rejoin;
    if (rejoin) rejoin.disabled = !(this.role === "audience" && state === "paused");
  };

  Follow.prototype.say = function (text) {
    var announce = this.v.controllers.announce;
    if (announce) announce.say(text);
  };

  // The presenter's panel: the audience link, its QR code, how many follow.
  Follow.prototype.togglePanel = function (show) {
    if (this.role !== "presenter" || !this.panelEl) return;
    var shown = show === undefined ? this.panelEl.hidden : show;
    if (shown) this.fillPanel(true);
    this.panelEl.hidden = !shown;
    if (shown) this.panelEl.querySelector("button").focus();
  };

  Follow.prototype.panelShown = function () { return !!this.panelEl && !this.panelEl.hidden; };

  Follow.prototype.fillPanel = function (force) {
    if (!this.panelEl || (this.panelEl.hidden && !force)) return;
    var link = escapeHtml(this.link || location.href.split("#")[0]);
    var count = this.panelEl.querySelector(".lt-room-count");
    if (count && !force) { count.textContent = this.countText(); return; }
    this.panelEl.innerHTML = "<div class=\"lt-v-roombox\"><h2>" + t.html("viewer.room.heading") + "</h2>" +
      "<p>" + t.html("viewer.room.invite") + "</p>" +
      "<p class=\"lt-room-link\"><a href=\"" + link + "\">" + link + "</a></p>" +
      "<img class=\"lt-room-qr\" src=\"/__room/qr.svg\" width=\"240\" height=\"240\" alt=\"" + t.html("viewer.room.qr_alt", { link: link }) + "\">" +
      "<p class=\"lt-room-count\" role=\"status\">" + this.countText() + "</p>" +
      "<button type=\"button\" class=\"lt-v-btn\">" + t.html("viewer.help.close") + "</button></div>";
  };

  Follow.prototype.countText = function () {
    return t("viewer.room.count", { count: this.audience });
  };

  // Leaving step mode is stepping away too; the help and the panel close with the viewer.
  Follow.prototype.close = function () {
    if (this.role === "audience" && this.following && !this.applying) this.pause();
    if (this.panelEl) this.panelEl.hidden = true;
  };

  Follow.prototype.destroy = function () {
    clearTimeout(this.retry);
    clearTimeout(this.sendTimer);
    if (this.frame !== null) cancelAnimationFrame(this.frame);
    if (this.onOnline) window.removeEventListener("online", this.onOnline);
    var ws = this.ws;
    this.ws = null;
    if (ws) ws.close();
  };

  window.CHALKTRACE.controller("follow", Follow);
})();
