/* chalktrace step mode, autoplay: the steps play on their own at a chosen pace (o, Space outside
   present mode, or the bar's play button; the same again stops them).

   Each step is shown for the pace (the help's setting, kept in localStorage); a step that shows text
   (a rendering-only statement: text(), an image, ...) stays up long enough to read it (READ_WORDS_PER_S,
   at most READ_MAX_MS); playing stops on a marked step: the first step of a section, and a step quiz
   mode asks about, so the lecturer can talk there (and at the end). Under prefers-reduced-motion
   a step stays up at least REDUCED_MIN_MS. Any move not made by autoplay stops it. Under
   `chalktrace present` the presenter's autoplay moves the room like any move; a student's own autoplay
   is stepping away from the room.
   Must not: decide what a step shows, or talk to the room or other windows. */
(function () {
  "use strict";
  var t = window.CHALKTRACE.t, el = window.CHALKTRACE.el;
  var PACE_KEY = "chalktrace-autoplay-ms";
  var PACES_MS = [500, 1000, 2000, 4000];
  var READ_WORDS_PER_S = 3.3;     // about 200 words a minute
  var READ_MAX_MS = 20000;
  var REDUCED_MIN_MS = 3000;
  var scratch = document.createElement("div");

  function stored(key) { try { return localStorage.getItem(key); } catch (e) { return null; } }
  function store(key, value) { try { localStorage.setItem(key, value); } catch (e) { /* private mode */ } }

  function Autoplay(v) {
    var self = this;
    this.v = v;
    this.playing = false;
    this.timer = null;
    this.moving = false;        // the step event of autoplay's own move
    this.paceMs = +stored(PACE_KEY) || 1000;
    if (PACES_MS.indexOf(this.paceMs) < 0) this.paceMs = 1000;
    this.reduced = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;
    this.marked = {};           // step -> true: the steps autoplay stops on
    var d = v.data;
    (d.sections || []).forEach(function (section) { self.marked[section[0]] = true; });
    (d.quiz || []).forEach(function (question) { self.marked[question.step] = true; });
    v.addCommand("play", function () { self.toggle(); });
  }

  Autoplay.prototype.build = function (layout) {
    var self = this;
    layout.root.addEventListener("chalktrace:step", function () { if (self.playing && !self.moving) self.stop(); });
    var settings = layout.root.querySelector(".lt-v-settings");
    if (!settings) return;
    var label = settings.appendChild(el("label", "lt-v-pace"));
    label.appendChild(document.createTextNode(t("viewer.autoplay.pace") + " "));
    var select = label.appendChild(el("select"));
    PACES_MS.forEach(function (ms) {
      var option = select.appendChild(el("option", null, t.html("viewer.autoplay.seconds", { seconds: ms / 1000 })));
      option.value = String(ms);
      option.selected = ms === self.paceMs;
    });
    select.addEventListener("change", function () {
      self.paceMs = +select.value;
      store(PACE_KEY, select.value);
    });
  };

  Autoplay.prototype.toggle = function () {
    if (this.playing) this.stop();
    else this.start();
  };

  Autoplay.prototype.start = function () {
    var v = this.v;
    if (v.cur < 0 || v.s.next[v.cur] < 0) return this.say(t("viewer.autoplay.at_end"));
    this.playing = true;
    v.controllers.bar.pressed("play", true);
    this.say(t("viewer.autoplay.on", { seconds: this.paceMs / 1000 }));
    this.schedule(this.paceMs);
  };

  Autoplay.prototype.stop = function (why) {
    clearTimeout(this.timer);
    this.timer = null;
    if (!this.playing) return;
    this.playing = false;
    this.v.controllers.bar.pressed("play", false);
    this.say(why || t("viewer.autoplay.stopped"));
  };

  Autoplay.prototype.schedule = function (ms) {
    var self = this;
    if (this.reduced && this.reduced.matches) ms = Math.max(ms, REDUCED_MIN_MS);
    clearTimeout(this.timer);
    this.timer = setTimeout(function () { self.advance(); }, ms);
  };

  Autoplay.prototype.advance = function () {
    var v = this.v, next = v.s.next[v.cur];
    this.timer = null;
    if (!this.playing) return;
    if (next < 0) return this.stop(t("viewer.autoplay.stopped_end"));
    this.moving = true;
    try { v.go(next); } finally { this.moving = false; }
    if (this.marked[next]) return this.stop(t("viewer.autoplay.stopped_marked"));
    this.schedule(Math.max(this.paceMs, this.readingMs(next)));
  };

  // How long the text a step shows takes to read (0 for a step that shows no text): the words of its
  // statement's source (text("...") and its markup count, a fair proxy for the rendered words).
  Autoplay.prototype.readingMs = function (step) {
    var v = this.v, s = v.s, file = v.data.files[s.file[step]], line = s.line[step];
    if (!file.spans || !(line in file.spans)) return 0;
    var words = 0;
    for (var k = line; k <= file.spans[line]; k++) {
      scratch.innerHTML = file.lines[k - 1] || "";
      words += scratch.textContent.split(/\s+/).filter(Boolean).length;
    }
    return Math.min(READ_MAX_MS, 1000 * words / READ_WORDS_PER_S);
  };

  Autoplay.prototype.say = function (text) {
    var announce = this.v.controllers.announce;
    if (announce) announce.say(text);
  };

  Autoplay.prototype.close = function () { this.stop(); };
  Autoplay.prototype.destroy = function () { clearTimeout(this.timer); };

  window.CHALKTRACE.controller("autoplay", Autoplay);
})();
