/* chalktrace step mode, the bar: the lecture's title, the section, the position, the buttons and the progress bar.

   A button runs its command (the core's registry); its title and label name its keys and come from
   the keymap (viewer-keyboard.js). Modes show that they are on with pressed(command, on). The
   progress bar jumps to the clicked place and marks each section with a tick; it is also a slider
   (focus it: the arrow keys step, Page Up/Down move a tenth, Home/End go to the ends). In a
   distributed trace the position and the progress count within the followed rank's timeline.
   Must not: decide what a command does or which keys reach it. */
(function () {
  "use strict";
  var el = window.CHALKTRACE.el, escapeHtml = window.CHALKTRACE.escapeHtml;

  // The buttons, in order: [command, icon (SVG path in a 16x16 box) or text]. A button whose command
  // nobody registered, or was registered without a button (quiz on a lecture without questions), is left out.
  var BUTTONS = [
    ["first", "M3 3v10M13 3 6 8l7 5z"],
    ["back_over", "M8 13V4M4 7l4-4 4 4M3 14h10"],
    ["prev", "M11 3 4 8l7 5z"],
    ["next", "M5 3l7 5-7 5z"],
    ["over", "M8 3v9M4 9l4 4 4-4M3 2h10"],
    ["out", "M8 13V3M4 7l4-4 4 4M3 14h4"],
    ["last", "M13 3v10M3 3l7 5-7 5z"],
    ["raw", "raw"],
    ["reveal", "reveal"],
    ["present", "present"],
    ["speaker", "speaker"],
    ["quiz", "quiz"],
    ["fullscreen", "M2 6V2h4M10 2h4v4M14 10v4h-4M6 14H2v-4"],
    ["help", "?"],
    ["close", "M3 3l10 10M13 3 3 13"]
  ];
  var MOVES = ["next", "prev", "over", "back_over", "out"];  // data.steps arrays of precomputed targets

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
    BUTTONS.forEach(function (b) {
      if (!v.commands[b[0]] || v.buttonless[b[0]]) return;
      var icon = b[1].charAt(0) === "M" ? "<svg viewBox=\"0 0 16 16\" aria-hidden=\"true\"><path d=\"" + b[1] + "\"/></svg>" : b[1];
      var button = el("button", "lt-v-btn lt-v-b-" + b[0], icon);
      button.type = "button";
      button.addEventListener("click", function () { v.command(b[0]); });
      nav.appendChild(button);
      self.buttons[b[0]] = button;
    });
    v.parts.keyboard.titleButtons();

    var progress = el("div", "lt-v-progress");
    progress.title = "click to jump to a step";
    progress.tabIndex = 0;
    progress.setAttribute("role", "slider");
    progress.setAttribute("aria-label", "position in the lecture");
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
      tick.title = sec[1] + " (step " + sec[0] + ")";
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
    this.posEl.innerHTML = span[0] + "step <b>" + at + "</b> / " + end + (s.call[step] ? " <span class=\"lt-v-call\">calling</span>" : "");
    // a transform, not a width: the compositor moves it without layout or paint
    this.fillEl.style.transform = "scaleX(" + (end > 0 ? at / end : 1) + ")";
    this.progressEl.setAttribute("aria-valuemax", String(end));
    this.progressEl.setAttribute("aria-valuenow", String(at));
    this.progressEl.setAttribute("aria-valuetext", span[0] + "step " + at + " of " + end);
    var targets = { first: v.firstVisible(), last: v.lastVisible() };
    for (var k = 0; k < MOVES.length; k++) targets[MOVES[k]] = s[MOVES[k]][step];
    for (var key in targets) {
      if (this.buttons[key]) this.buttons[key].disabled = targets[key] < 0 || targets[key] === step;
    }
  };

  // A mode's button shows whether it is on.
  Bar.prototype.pressed = function (command, on) {
    if (this.buttons[command]) this.buttons[command].setAttribute("aria-pressed", on ? "true" : "false");
  };

  window.CHALKTRACE.part("bar", Bar);
})();
