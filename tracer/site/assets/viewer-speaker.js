/* chalktrace step mode, the speaker view (s opens it; &speaker=1 makes a window one): the speaker's notes
   for the step, the current and next line, the position, the time since it opened and the clock.

   Notes are never in data.js (a published site would show them to every student): under
   `chalktrace present` the room (viewer-follow.js) hands the presenter's windows their notes through
   setNotes; elsewhere the panel says where the notes are. The panel follows the step event. The
   clock ticks once a second only while the view is shown (it stops when the window goes back to
   reading). A window stays a speaker view once it is one.
   Must not: move the presenting window (viewer-sync.js does) or show notes in any other window. */
(function () {
  "use strict";
  var t = window.CHALKTRACE.t, el = window.CHALKTRACE.el, escapeHtml = window.CHALKTRACE.escapeHtml;

  function two(n) { return (n < 10 ? "0" : "") + n; }

  function Speaker(v) {
    var self = this;
    this.v = v;
    this.on = false;
    this.started = 0;           // Date.now() when the view opened, or its timer was restarted
    this.timer = null;          // the clock's setInterval while the view is shown
    this.panel = null;
    this.notes = null;          // [[step, html], ...] from the room, for the presenter alone; null until then
    v.addMode("speaker", { pressed: false, get: function () { return self.on; }, set: function (on) { if (on) self.become(); } });
    v.addCommand("speaker", function () { self.openWindow(); });
  }

  Speaker.prototype.build = function (layout) {
    var self = this;
    layout.root.addEventListener("chalktrace:step", function (event) { if (self.on) self.update(event.detail.step); });
  };

  Speaker.prototype.openWindow = function () {
    var url = location.pathname + location.search + "#step=" + this.v.cur + "&speaker=1";
    var opened = window.open(url, "chalktrace-speaker", "popup,width=960,height=720");
    if (opened) opened.focus();
    return opened;
  };

  // This window becomes the speaker view.
  Speaker.prototype.become = function () {
    if (this.on) return;
    var self = this, root = this.v.rootEl;
    this.on = true;
    root.classList.add("lt-speaker");
    var panel = el("section", "lt-v-speaker");
    panel.setAttribute("aria-label", t("viewer.speaker.label"));
    var head = panel.appendChild(el("div", "lt-sp-head"));
    this.posEl = head.appendChild(el("span", "lt-sp-pos"));
    this.elapsedEl = head.appendChild(el("button", "lt-sp-elapsed"));
    this.elapsedEl.type = "button";
    this.elapsedEl.title = t("viewer.speaker.elapsed_title");
    this.clockEl = head.appendChild(el("span", "lt-sp-clock"));
    panel.appendChild(el("h3", null, t.html("viewer.speaker.notes")));
    this.notesEl = panel.appendChild(el("div", "lt-sp-notes"));
    panel.appendChild(el("h3", null, t.html("viewer.speaker.now")));
    this.nowEl = panel.appendChild(el("div", "lt-sp-line lt-sp-now highlight"));
    panel.appendChild(el("h3", null, t.html("viewer.speaker.next")));
    this.nextEl = panel.appendChild(el("div", "lt-sp-line lt-sp-next highlight"));
    root.insertBefore(panel, root.querySelector(".lt-v-main"));
    this.panel = panel;
    this.started = Date.now();
    this.elapsedEl.addEventListener("click", function () { self.started = Date.now(); self.tick(); });
    if (this.v.active) this.open();
    if (this.v.cur >= 0) this.update(this.v.cur);
  };

  Speaker.prototype.tick = function () {
    var seconds = Math.floor((Date.now() - this.started) / 1000);
    this.elapsedEl.textContent = Math.floor(seconds / 3600) + ":" + two(Math.floor(seconds / 60) % 60) + ":" + two(seconds % 60);
    var now = new Date();
    this.clockEl.textContent = two(now.getHours()) + ":" + two(now.getMinutes());
  };

  // The clock runs while the view is shown.
  Speaker.prototype.open = function () {
    var self = this;
    if (!this.on || this.timer !== null) return;
    this.tick();
    this.timer = setInterval(function () { self.tick(); }, 1000);
  };

  Speaker.prototype.close = function () {
    clearInterval(this.timer);
    this.timer = null;
  };

  Speaker.prototype.destroy = Speaker.prototype.close;

  // The notes shown at a step: those of the latest step at or before it that has notes.
  Speaker.prototype.notesAt = function (step) {
    var notes = this.notes || [], lo = 0, hi = notes.length - 1, pick = -1;
    while (lo <= hi) {
      var mid = (lo + hi) >> 1;
      if (notes[mid][0] <= step) { pick = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return pick < 0 ? "" : notes[pick][1];
  };

  // The step's whole statement: a statement written over several lines (data.js `extents`) shows
  // every line of it, not only its first.
  Speaker.prototype.lineHtml = function (step) {
    var s = this.v.s, file = this.v.data.files[s.file[step]], line = s.line[step];
    var end = (file.extents && file.extents[line]) || line, lines = [];
    for (var k = line; k <= end; k++) lines.push(file.lines[k - 1] || " ");
    return "<span class=\"lt-sp-where\">" + escapeHtml(file.path) + ":" + line + (end > line ? "\u2013" + end : "") +
      "</span><code>" + lines.join("\n") + "</code>";
  };

  // The presenter's notes, from the room (viewer-follow.js), shown from now on.
  Speaker.prototype.setNotes = function (notes) {
    this.notes = notes;
    if (this.on && this.v.cur >= 0) this.update(this.v.cur);
  };

  Speaker.prototype.update = function (step) {
    var span = this.v.span(step), next = this.v.s.next[step];
    this.posEl.innerHTML = escapeHtml(span[0]) + t.html("viewer.bar.counter", { at: "<b>" + t.number(step - span[1]) + "</b>", end: span[2] - span[1] - 1 });
    var notes = this.notesAt(step);
    if (notes) this.notesEl.innerHTML = notes;
    else if (this.notes === null && this.v.data.has_speaker_notes) {
      this.notesEl.innerHTML = "<p class=\"lt-sp-none\">" + t.html("viewer.speaker.unpublished", { command: "<code>chalktrace present</code>" }) + "</p>";
    } else this.notesEl.innerHTML = "<p class=\"lt-sp-none\">" + t.html("viewer.speaker.no_notes") + "</p>";
    this.nowEl.innerHTML = this.lineHtml(step);
    this.nextEl.innerHTML = next >= 0 ? this.lineHtml(next) : "<span class=\"lt-sp-where\">" + t.html("viewer.speaker.the_end") + "</span>";
  };

  window.CHALKTRACE.controller("speaker", Speaker);
})();
