/* chalktrace step mode, announcements: what a screen reader says as the student steps.

   A polite live region reads "Step N of M, line L: <code>" and what changed on that step ("x: tensor
   (2, 3) float32, new"; "y: 7, changed"), and the current line carries aria-current="step". Other
   controllers say things through `say(text)` (present mode's blank screen, quiz feedback). A held key
   or a clicker's burst is announced once, where it stops: the region is written after ANNOUNCE_MS of
   quiet, so a step costs one attribute change and a timer, and the region's text changes once a burst.
   The quiet setting (help overlay, kept in localStorage) turns the step announcements off.
   Must not: move, or read the values' markup beyond the card heads it summarises. */
(function () {
  "use strict";
  var t = window.CHALKTRACE.t, el = window.CHALKTRACE.el;
  var ANNOUNCE_MS = 250;
  var QUIET_KEY = "chalktrace-quiet";
  var scratch = document.createElement("div");  // detached: turns highlighted HTML into text, no layout

  function text(html) {
    scratch.innerHTML = html;
    return scratch.textContent.replace(/\s+/g, " ").trim();
  }

  function stored(key) { try { return localStorage.getItem(key); } catch (e) { return null; } }
  function store(key, value) { try { localStorage.setItem(key, value); } catch (e) { /* private mode */ } }

  // A card's head in a few words: "tensor (2, 3) float32" for a tensor, its value for a scalar.
  function summary(cardEl) {
    var head = cardEl && cardEl.querySelector(".lt-card-head");
    if (!head) return "";
    var type = head.querySelector(".lt-type"), codes = head.querySelectorAll(":scope > code:not(.lt-name)");
    if (type && codes.length >= 2) return type.textContent + " " + codes[1].textContent + " " + codes[0].textContent;
    var words = head.textContent.replace(/\s+/g, " ").trim().replace(/^\S+\s*=\s*/, "");
    return words.length > 80 ? words.slice(0, 77) + "\u2026" : words;
  }

  function Announce(v) {
    var self = this;
    this.v = v;
    this.quiet = stored(QUIET_KEY) === "1";
    this.timer = null;
    this.from = -1;             // the step before the burst being announced
    this.lineEl = null;         // the line that carries aria-current
    this.onStep = function (event) { self.step(event.detail.step, event.detail.previous); };
  }

  Announce.prototype.build = function (layout) {
    // Outside the viewer's panels and fixed in place: writing it lays out nothing else.
    this.region = layout.root.appendChild(el("div", "lt-visually-hidden lt-v-live"));
    this.region.setAttribute("aria-live", "polite");
    this.region.setAttribute("aria-atomic", "true");
    this.urgent = layout.root.appendChild(el("div", "lt-visually-hidden lt-v-live"));
    this.urgent.setAttribute("role", "status");
    layout.root.addEventListener("chalktrace:step", this.onStep);
  };

  Announce.prototype.step = function (step, previous) {
    var self = this, line = this.v.controllers.code.currentEl;
    if (this.lineEl !== line) {
      if (this.lineEl) this.lineEl.removeAttribute("aria-current");
      if (line) line.setAttribute("aria-current", "step");
      this.lineEl = line;
    }
    if (this.quiet) return;
    if (this.timer === null) this.from = previous;
    else clearTimeout(this.timer);
    this.timer = setTimeout(function () { self.timer = null; self.region.textContent = self.describe(self.v.cur, self.from); }, ANNOUNCE_MS);
  };

  // "Step N of M, line L: code. x: tensor (2, 3) float32, new. y: 7, changed."
  Announce.prototype.describe = function (step, from) {
    var v = this.v, d = v.data, s = v.s, values = v.controllers.values;
    var span = v.span(step), at = step - span[1], end = span[2] - span[1] - 1;
    var f = s.file[step], line = s.line[step];
    var words = span[0] + t("viewer.announce.step", { at: at, end: end, line: String(line), code: text(d.files[f].lines[line - 1] || "") });
    var now = values.envAt(step), before = from >= 0 && s.fn[from] === s.fn[step] ? values.envAt(from) : null;
    var said = [];
    now.forEach(function (card, name) {
      var old = before ? before.get(name) : undefined;
      if (old === card) return;
      if (!before && (d.env[step] || []).every(function (pair) { return pair[0] !== name; })) return;
      var said1 = { name: name, summary: summary(values.cardEl(name)) };
      said.push(old === undefined ? t("viewer.announce.new", said1) : t("viewer.announce.changed", said1));
    });
    if (said.length > 4) said = said.slice(0, 4).concat([t("viewer.announce.more", { count: said.length - 4 })]);
    return words + (said.length ? " " + said.map(function (s) { return t("viewer.announce.sentence", { text: s }); }).join(" ") : "");
  };

  // Say something now (a mode's change, quiz feedback), whatever the quiet setting.
  Announce.prototype.say = function (message) {
    if (!this.urgent) return;
    this.urgent.textContent = "";
    var urgent = this.urgent;
    setTimeout(function () { urgent.textContent = message; }, 30);  // a new node text: read even if the same
  };

  Announce.prototype.setQuiet = function (on) {
    this.quiet = on;
    store(QUIET_KEY, on ? "1" : "0");
    if (on && this.timer !== null) { clearTimeout(this.timer); this.timer = null; }
  };

  Announce.prototype.close = function () {
    if (this.timer !== null) { clearTimeout(this.timer); this.timer = null; }
    this.region.textContent = "";
  };

  window.CHALKTRACE.controller("announce", Announce);
})();
