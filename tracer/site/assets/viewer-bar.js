/* chalktrace step mode, the bar: the lecture's title, the section, the position, the buttons and the progress bar.

   The buttons are the rows of the core's command table (COMMANDS in viewer-core.js) that have an icon,
   in its order; a button runs its command (the core's registry), and its title and label name its keys
   (viewer-keyboard.js). The core's setMode shows a mode's state on its button with pressed(command, on). The
   progress bar jumps to the clicked place and marks each section with a tick; it is also a slider
   (focus it: the arrow keys step, Page Up/Down move a tenth, Home/End go to the ends). In a
   distributed trace the position and the progress count within the followed rank's timeline.
   Must not: decide what a command does or which keys reach it. */
(function () {
  "use strict";
  var t = window.CHALKTRACE.t, el = window.CHALKTRACE.el, escapeHtml = window.CHALKTRACE.escapeHtml;

  var COMMANDS = window.CHALKTRACE.COMMANDS, MOVES = window.CHALKTRACE.MOVES;

  function Bar(v) {
    this.v = v;
    this.buttons = {};          // command -> its button
    this.sectionEl = null;
    this.posEl = null;
    this.fillEl = null;
  }

  Bar.prototype.build = function (layout) {
    var self = this, v = this.v, d = v.data, bar = layout.bar;
    bar.appendChild(el("span", "lt-v-title", escapeHtml(d.lecture.title || d.lecture.name)));
    this.sectionEl = bar.appendChild(el("span", "lt-v-section"));
    this.posEl = bar.appendChild(el("span", "lt-v-pos"));
    var nav = bar.appendChild(el("span", "lt-v-buttons"));
    COMMANDS.forEach(function (row) {
      var command = row.command;
      if (!row.icon || !v.commands[command] || v.buttonless[command]) return;
      var icon = /^M\d/.test(row.icon) ? "<svg viewBox=\"0 0 16 16\" aria-hidden=\"true\"><path d=\"" + row.icon + "\"/></svg>" : escapeHtml(row.icon);
      var button = el("button", "lt-v-btn lt-v-b-" + command, icon);
      button.type = "button";
      button.addEventListener("click", function () { v.command(command); });
      nav.appendChild(button);
      self.buttons[command] = button;
    });
    v.controllers.keyboard.titleButtons();

    var progress = el("div", "lt-v-progress");
    progress.title = t("viewer.bar.progress_title");
    progress.tabIndex = 0;
    progress.setAttribute("role", "slider");
    progress.setAttribute("aria-label", t("viewer.bar.progress_label"));
    progress.setAttribute("aria-valuemin", "0");
    progress.addEventListener("keydown", function (event) {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      var s = v.s, cur = v.cur, span = v.span(Math.max(0, cur)), tenth = Math.max(1, Math.round((span[2] - span[1]) / 10));
      var to = { ArrowRight: s.next[cur], ArrowUp: s.next[cur], ArrowLeft: s.prev[cur], ArrowDown: s.prev[cur],
                 PageUp: v.nearestVisible(Math.min(span[2] - 1, cur + tenth)),
                 PageDown: v.nearestVisible(Math.max(span[1], cur - tenth)),
                 Home: v.nearestVisible(span[1]), End: v.nearestVisible(span[2] - 1) }[event.key];
      if (to === undefined) return;
      event.preventDefault();
      if (to >= 0) v.go(to);
    });
    this.progressEl = progress;
    this.fillEl = progress.appendChild(el("div", "lt-v-fill"));
    var first = v.span(0), last = Math.max(1, first[2] - 1);
    d.sections.forEach(function (sec) {
      if (sec[0] >= first[2]) return;  // ranks: every rank's timeline repeats the first one's sections
      var tick = el("span", "lt-v-tick");
      tick.style.left = (100 * sec[0] / last) + "%";
      tick.title = t("viewer.bar.tick_title", { section: sec[1], step: sec[0] });
      progress.appendChild(tick);
    });
    progress.addEventListener("click", function (event) {
      var rect = progress.getBoundingClientRect();
      var fraction = Math.min(1, Math.max(0, (event.clientX - rect.left) / rect.width));
      var span = v.span(Math.max(0, v.cur));
      v.go(v.nearestVisible(span[1] + Math.round(fraction * (span[2] - span[1] - 1))));
    });
    layout.root.insertBefore(progress, layout.main);
  };

  Bar.prototype.show = function (step) {
    var v = this.v, s = v.s, d = v.data, section = s.section[step];
    this.sectionEl.textContent = section >= 0 ? d.sections[section][1] : "";
    var span = v.span(step), at = step - span[1], end = span[2] - span[1] - 1;
    this.posEl.innerHTML = escapeHtml(span[0]) + t.html("viewer.bar.counter", { at: "<b>" + t.number(at) + "</b>", end: end }) +
      (s.call[step] ? " <span class=\"lt-v-call\">" + t.html("viewer.bar.calling") + "</span>" : "");
    // a transform, not a width: the compositor moves it without layout or paint
    this.fillEl.style.transform = "scaleX(" + (end > 0 ? at / end : 1) + ")";
    this.progressEl.setAttribute("aria-valuemax", String(end));
    this.progressEl.setAttribute("aria-valuenow", String(at));
    this.progressEl.setAttribute("aria-valuetext", span[0] + t("viewer.bar.valuetext", { at: at, end: end }));
    var targets = { first: v.firstVisible(), last: v.lastVisible() };
    for (var k = 0; k < MOVES.length; k++) targets[MOVES[k]] = s[MOVES[k]][step];
    for (var key in targets) {
      if (this.buttons[key]) this.buttons[key].disabled = targets[key] < 0 || targets[key] === step;
    }
  };

  // A mode's button shows whether it is on (the core's setMode; present mode's full screen).
  Bar.prototype.pressed = function (command, on) {
    if (this.buttons[command]) this.buttons[command].setAttribute("aria-pressed", on ? "true" : "false");
  };

  window.CHALKTRACE.controller("bar", Bar);
})();
