/* chalktrace step mode, the core: steps through a lecture's trace like a debugger, over the read-mode page.

   Reads window.CHALKTRACE_DATA (data.js beside the page, built by tracer/site/pages/viewer_data.py and
   packed by packed_data.py; step-data.js unpacks it before the viewer starts) and does nothing on pages without #lt-stepper. The core holds the position (`cur`), `go`, `render`,
   the viewer's skeleton, the two lists that wire the viewer (CONTROLLERS and COMMANDS, below) and the
   registries the controllers fill in: what each command does, and the modes (raw, reveal, values,
   quiz, present, speaker: each a URL flag). `setMode` turns a mode on or off and shows it on its
   button and in the URL. After every move it fires "chalktrace:step" on the viewer (bubbling to the
   document) with {step, previous, viewer}. All navigation targets are precomputed in data.js, so a
   step is a few array lookups plus DOM updates for what changed.

   A controller is one file, viewer-NAME.js (the site bundles every one after this file, in any
   order), that registers itself with CHALKTRACE.controller(NAME, Constructor) and is listed in
   CONTROLLERS; each owns its state and may define build(layout), open(), close(updateUrl) and
   destroy(). Plugins (ranks.js) wait for the viewer with CHALKTRACE.onViewer(fn) and use only go,
   cur, data, addKeyBinding and the step event.
   Must not: know what a controller keeps, draw a mode's own markup, or read the URL itself. */
(function () {
  "use strict";
  var t = window.CHALKTRACE_I18N;

  // The controllers, built in this order: their build(layout) lays out the viewer in this order, and
  // the modes they add are written in the URL in this order.
  var CONTROLLERS = ["bar", "code", "values", "keyboard", "location", "touch", "quiz", "present", "speaker",
    "sync", "autoplay", "follow", "announce", "focus"];

  function presenting(v) { return v.mode("present") || v.mode("speaker"); }
  function present(v) { return v.mode("present"); }
  function notSpeaker(v) { return !v.mode("speaker"); }
  function helpOpen(v) { return v.controllers.keyboard.helpShown(); }
  function blanked(v) { return v.controllers.present.blanked(); }
  function notPresenting(v) { return !presenting(v); }
  function audience(v) { return v.controllers.follow.role === "audience"; }
  function roomOpen(v) { return v.controllers.follow.panelShown(); }

  // The commands, one row per way to reach one: a key press (viewer-keyboard.js) runs the first row
  // that lists its key (KeyboardEvent.key; Space is "Space", with Shift "Shift+Space") and whose
  // `when(viewer)` holds; a row with an `icon` (an SVG path in a 16x16 box, or a word of the catalogue) is its command's
  // button in the bar (viewer-bar.js), in this order; the keyboard help lists the rows with `help` in
  // this order; a button's title is its row's `title` (else `help`) and the keys that reach it. A
  // command is what a controller registers under that name (addCommand); a row whose command nobody
  // registered, or registered without a button, shows no button.
  var COMMANDS = [
    { command: "first", keys: ["Home"], icon: "M3 3v10M13 3 6 8l7 5z", help: t("viewer.cmd.first") },
    { command: "back_over", keys: ["ArrowUp", "k"], icon: "M8 13V4M4 7l4-4 4 4M3 14h10", help: t("viewer.cmd.back_over") },
    { command: "prev", keys: ["ArrowLeft", "h"], icon: "M11 3 4 8l7 5z", help: t("viewer.cmd.prev") },
    { command: "next", keys: ["ArrowRight", "l"], icon: "M5 3l7 5-7 5z", help: t("viewer.cmd.next") },
    { command: "over", keys: ["ArrowDown", "j"], icon: "M8 3v9M4 9l4 4 4-4M3 2h10", help: t("viewer.cmd.over"),
      title: t("viewer.cmd.over.title") },
    { command: "out", keys: ["u"], icon: "M8 13V3M4 7l4-4 4 4M3 14h4", help: t("viewer.cmd.out"), title: t("viewer.cmd.out.title") },
    { command: "last", keys: ["End"], icon: "M13 3v10M3 3l7 5-7 5z", help: t("viewer.cmd.last") },
    { command: "next", keys: ["PageDown", "Space"], when: presenting, help: t("viewer.cmd.next.presenting") },
    { command: "prev", keys: ["PageUp", "Shift+Space"], when: presenting, help: t("viewer.cmd.prev.presenting") },
    { command: "raw", keys: ["r"], icon: t("viewer.icon.raw"), help: t("viewer.cmd.raw"), title: t("viewer.cmd.raw.title") },
    { command: "reveal", keys: ["a"], icon: t("viewer.icon.reveal"), help: t("viewer.cmd.reveal"),
      title: t("viewer.cmd.reveal.title") },
    { command: "values", keys: ["v"], help: t("viewer.cmd.values"), title: t("viewer.cmd.values.title") },
    { command: "present", keys: ["p"], when: notSpeaker, icon: t("viewer.icon.present"), help: t("viewer.cmd.present"),
      title: t("viewer.cmd.present.title") },
    { command: "blank", keys: ["b", "B", "."], label: "b / .", when: present,
      help: t("viewer.cmd.blank") },
    { command: "speaker", keys: ["s"], when: notSpeaker, icon: t("viewer.icon.speaker"),
      help: t("viewer.cmd.speaker"), title: t("viewer.cmd.speaker.title") },
    { command: "quiz", keys: ["q"], icon: t("viewer.icon.quiz"), help: t("viewer.cmd.quiz"),
      title: t("viewer.cmd.quiz.title") },
    { command: "fullscreen", keys: ["f"], icon: "M2 6V2h4M10 2h4v4M14 10v4h-4M6 14H2v-4", help: t("viewer.cmd.fullscreen"),
      title: t("viewer.cmd.fullscreen.title") },
    { command: "goto", keys: ["g"], help: t("viewer.cmd.goto"), title: t("viewer.cmd.goto.title") },
    { command: "play", keys: ["o"], icon: t("viewer.icon.play"), help: t("viewer.cmd.play"),
      title: t("viewer.cmd.play.title") },
    { command: "play", keys: ["Space"], when: notPresenting, help: t("viewer.cmd.play.notPresenting") },
    { command: "rejoin", keys: ["t"], when: audience, icon: "M13 8a5 5 0 1 1-1.5-3.6M13 2v3h-3",
      help: t("viewer.cmd.rejoin"), title: t("viewer.cmd.rejoin.title") },
    { command: "room", keys: ["i"], icon: t("viewer.icon.room"), help: t("viewer.cmd.room"),
      title: t("viewer.cmd.room.title") },
    { command: "help", keys: ["?"], icon: "?", help: t("viewer.cmd.help"), title: t("viewer.cmd.help.title") },
    { command: "help", keys: ["Escape"], when: helpOpen },
    { command: "room", keys: ["Escape"], when: roomOpen },
    { command: "blank", keys: ["Escape"], when: blanked },  // listed with the next row
    { command: "unpresent", keys: ["Escape"], when: present, help: t("viewer.cmd.unpresent") },
    { command: "close", keys: ["Escape"], icon: "M3 3l10 10M13 3 3 13", help: t("viewer.cmd.close") }
  ];

  var MOVES = ["next", "prev", "over", "back_over", "out"];  // data.steps arrays of precomputed targets

  var registered = {};  // controller name -> constructor (CHALKTRACE.controller)
  var waiting = [];     // plugin callbacks to run once the viewer exists

  function el(tag, className, html) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (html != null) node.innerHTML = html;
    return node;
  }

  function escapeHtml(text) {
    return String(text).replace(/[&<>"]/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c];
    });
  }

  function Viewer(data, host) {
    var self = this;
    this.data = data;
    this.s = data.steps;
    this.count = data.count;
    this.host = host;
    this.rootUrl = host.getAttribute("data-root") || "";
    this.cur = -1;
    this.active = false;
    this.built = false;
    this.pending = null;        // a held key's latest target, shown at the next frame (see queue)
    this.queued = false;        // a frame is asked for to show `pending`
    this.readScrollY = 0;       // where the read page was when step mode opened
    this.rootEl = null;
    this.commands = {};         // command name -> function (repeat)
    this.buttonless = {};       // commands that have no button in the bar
    this.modes = [];            // {name, get, set, early, initially, pressed}, in registration order (the URL's)
    this.controllers = {};      // controller name -> controller
    MOVES.forEach(function (name) {
      self.commands[name] = function (repeat) {
        if (repeat) return self.queue(self.s[name][self.pending !== null ? self.pending : self.cur]);
        self.flush();
        return self.go(self.s[name][self.cur]);
      };
    });
    this.commands.first = function () { return self.go(self.firstVisible()); };
    this.commands.last = function () { return self.go(self.lastVisible()); };
    this.commands.close = function () { return self.close(true); };
    CONTROLLERS.forEach(function (name) {
      if (!registered[name]) throw new Error("chalktrace: no controller " + name + " (assets/viewer-" + name + ".js)");
      self.controllers[name] = new registered[name](self);
    });
    for (var name in registered) {
      if (!this.controllers[name]) throw new Error("chalktrace: controller " + name + " is not in CONTROLLERS (viewer-core.js)");
    }
  }

  Viewer.prototype.withRoot = function (html) {
    return html.indexOf("{root}") < 0 ? html : html.split("{root}").join(this.rootUrl);
  };

  // --- registries the controllers fill in ------------------------------------------------------

  Viewer.prototype.addCommand = function (name, run, options) {
    this.commands[name] = run;
    if (options && options.button === false) this.buttonless[name] = true;
  };

  Viewer.prototype.command = function (name, repeat) {
    var run = this.commands[name];
    if (run) return run(repeat);
  };

  // A mode: on or off; off unless `initially` is true (the values panel is shown). The URL writes one
  // that differs from how it starts, as &NAME=1 or &NAME=0. `early` modes are set from a URL before
  // its step is shown (quiz: the step may ask); the others after. Its command's button shows whether
  // it is on, unless `pressed` is false (the speaker button opens a window, it turns nothing on).
  Viewer.prototype.addMode = function (name, mode) {
    this.modes.push({ name: name, get: mode.get, set: mode.set, early: !!mode.early, initially: !!mode.initially,
                      pressed: mode.pressed !== false });
  };

  Viewer.prototype.findMode = function (name) {
    for (var k = 0; k < this.modes.length; k++) if (this.modes[k].name === name) return this.modes[k];
    return null;
  };

  Viewer.prototype.mode = function (name) {
    var mode = this.findMode(name);
    return mode ? mode.get() : false;
  };

  // Turn a mode on or off (a key, a button, the URL, a controller leaving it): its controller does
  // it, its button shows it, and the URL says it (replacing the entry) unless options.url is false.
  Viewer.prototype.setMode = function (name, on, options) {
    var mode = this.findMode(name);
    if (!mode) return;
    mode.set(on);
    if (mode.pressed) this.controllers.bar.pressed(name, mode.get());
    if (!(options && options.url === false)) this.controllers.location.write(false);
  };

  Viewer.prototype.toggle = function (name) { this.setMode(name, !this.mode(name)); };

  // A plugin's keys: binding {keys: [KeyboardEvent.key, ...], label, help, when(viewer)}, run(event).
  // They are tried before the built-in keys and are listed in the help. Returns a function removing them.
  Viewer.prototype.addKeyBinding = function (binding, run) { return this.controllers.keyboard.add(binding, run); };

  Viewer.prototype.each = function (hook, arg) {
    for (var k = 0; k < CONTROLLERS.length; k++) {
      var controller = this.controllers[CONTROLLERS[k]];
      if (controller[hook]) controller[hook](arg);
    }
  };

  // --- DOM skeleton (built on first entry) ---------------------------------------------------

  Viewer.prototype.build = function () {
    var d = this.data;
    var root = el("div", "lt-viewer md-typeset");
    root.setAttribute("role", "dialog");
    root.setAttribute("aria-label", t("viewer.dialog_label", { title: d.lecture.title || d.lecture.name }));
    root.hidden = true;
    var bar = root.appendChild(el("div", "lt-v-bar"));
    var main = root.appendChild(el("div", "lt-v-main"));
    var code = main.appendChild(el("section", "lt-v-code"));
    var side = main.appendChild(el("aside", "lt-v-side"));
    side.setAttribute("aria-label", t("viewer.side_label"));
    side.tabIndex = 0;  // it scrolls: the keyboard reaches it
    this.rootEl = root;
    this.each("build", { root: root, bar: bar, main: main, code: code, side: side });
    document.body.appendChild(root);
    this.built = true;
  };

  // --- moving -----------------------------------------------------------------------------------

  Viewer.prototype.render = function (step) {
    var code = this.controllers.code;
    var moved = code.show(step, this.cur < 0);
    this.controllers.values.show(step);
    this.controllers.bar.show(step);
    this.cur = step;
    code.scrollToCurrent(moved);  // reads layout once, after all of this step's writes
    this.controllers.values.follow();   // the same layout: scrolling the code panel lays out nothing
  };

  // A distributed trace lays its ranks' timelines end to end (tracer/site/pages/rank_viewer.py): the
  // position, progress bar and jumps count within the followed rank's. [label, first step, end].
  Viewer.prototype.span = function (step) {
    var segs = this.data.ranks ? this.data.ranks.segments : null;
    for (var k = 0; segs && k < segs.length; k++) {
      if (step >= segs[k][1] && step < segs[k][2]) return [t("viewer.rank_prefix", { rank: segs[k][0] }), segs[k][1], segs[k][2]];
    }
    return ["", 0, this.count];
  };

  Viewer.prototype.firstVisible = function () {
    return this.s.visible[0] ? 0 : this.s.next[0];
  };

  Viewer.prototype.lastVisible = function () {
    var last = this.count - 1;
    return this.s.visible[last] ? last : this.s.prev[last];
  };

  Viewer.prototype.nearestVisible = function (step) {
    step = Math.max(0, Math.min(this.count - 1, step));
    if (this.s.visible[step]) return step;
    return this.s.next[step] >= 0 ? this.s.next[step] : this.s.prev[step];
  };

  // Move to a step, tell the controllers and plugins (the step event), record it in the URL
  // (viewer-location.js) unless the URL asked for it.
  Viewer.prototype.go = function (step, options) {
    if (step == null || step < 0 || step >= this.count) return;
    this.pending = null;  // a move from anywhere else wins over a held key's queued target
    var started = performance.now();
    if (!this.active) this.open();
    if (step !== this.cur) {
      var previous = this.cur;
      this.render(step);
      this.rootEl.dispatchEvent(new CustomEvent("chalktrace:step", {
        bubbles: true, detail: { step: step, previous: previous, viewer: this }
      }));
    }
    if (!(options && options.fromUrl)) this.controllers.location.record();
    window.CHALKTRACE_LAST_STEP_MS = performance.now() - started;
  };

  // A held key repeats faster than a frame can show a step (and a clicker's bursts too): the repeats
  // only move the target, and the next frame shows where they got to, one render however many
  // repeats came in between. Any other command first shows the target.
  Viewer.prototype.queue = function (step) {
    var self = this;
    if (step == null || step < 0 || step >= this.count) return;
    this.pending = step;
    if (this.queued) return;
    this.queued = true;
    requestAnimationFrame(function () { self.queued = false; self.flush(); });
  };

  Viewer.prototype.flush = function () {
    var step = this.pending;
    this.pending = null;
    if (step !== null) this.go(step);
  };

  Viewer.prototype.open = function () {
    if (!this.built) this.build();
    this.active = true;
    this.readScrollY = window.scrollY;  // the read page leaves layout (viewer.css); come back here
    this.rootEl.hidden = false;
    document.documentElement.classList.add("lt-stepping");
    this.each("open");
  };

  // Back to reading; the controllers leave their modes first (present mode, an open question, the help).
  Viewer.prototype.close = function (updateUrl) {
    if (!this.active) return;
    this.each("close", updateUrl);
    this.active = false;
    this.rootEl.hidden = true;
    document.documentElement.classList.remove("lt-stepping");
    if (this.readScrollY) window.scrollTo(0, this.readScrollY);
  };

  // Take the viewer off the page: controllers drop their window listeners, timers and channels.
  Viewer.prototype.destroy = function () {
    this.close(false);
    this.each("destroy");
    if (this.rootEl) this.rootEl.remove();
    if (window.CHALKTRACE_VIEWER === this) window.CHALKTRACE_VIEWER = null;
  };

  // --- starting ---------------------------------------------------------------------------------

  var host = document.getElementById("lt-stepper");

  // A #step=N link hid the read page before it was parsed (page_parts.html.j2: early_step_mode);
  // when there is nothing to step through, show it again.
  function readOnly() {
    if (!window.CHALKTRACE_VIEWER) document.documentElement.classList.remove("lt-stepping");
  }

  function start() {
    var data = window.CHALKTRACE_DATA;
    if (!data) {
      if (document.readyState !== "complete") {
        window.addEventListener("load", start, { once: true });
      } else {
        readOnly();
      }
      return;  // no data.js: the page stays in read mode only
    }
    if (window.CHALKTRACE_VIEWER) return;
    if (!data.count) return readOnly();
    window.CHALKTRACE_STEP_DATA.unpack(data);  // step-data.js: the packed steps and cards, as the viewer reads them
    var viewer = new Viewer(data, host);
    window.CHALKTRACE_VIEWER = viewer;
    host.hidden = false;
    host.querySelector(".lt-step-enter").addEventListener("click", function () {
      viewer.go(viewer.cur >= 0 ? viewer.cur : viewer.firstVisible());
    });
    waiting.splice(0).forEach(function (fn) { fn(viewer); });
    viewer.controllers.location.sync();
    window.CHALKTRACE_READY = performance.now();
  }

  window.CHALKTRACE = {
    el: el,
    escapeHtml: escapeHtml,
    t: t,  // the interface's words in the course's language (strings.js)
    COMMANDS: COMMANDS,
    MOVES: MOVES,
    // a controller (one listed in CONTROLLERS): built with the viewer, in CONTROLLERS' order
    controller: function (name, Controller) { registered[name] = Controller; },
    // a plugin: fn(viewer) once the viewer exists (now, if it does)
    onViewer: function (fn) {
      if (window.CHALKTRACE_VIEWER) fn(window.CHALKTRACE_VIEWER);
      else waiting.push(fn);
    }
  };

  if (!host) return;
  // after the controllers' scripts, which follow this one
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else setTimeout(start, 0);
})();
