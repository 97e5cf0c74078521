/* chalktrace step mode, the core: steps through a lecture's trace like a debugger, over the read-mode page.

   Reads window.CHALKTRACE_DATA (data.js beside the page, built by tracer/site/viewer_data.py) and does
   nothing on pages without #lt-stepper. The core holds the position (`cur`), `go`, `render`, the
   viewer's skeleton, and the registries the controllers fill in: commands (what a key
   or a button does), modes (raw, reveal, quiz, present, speaker: each a URL flag) and key bindings
   (through the keyboard controller). After every move it fires "chalktrace:step" on the viewer
   (bubbling to the document) with {step, previous, viewer}. All navigation targets are precomputed in
   data.js, so a step is a few array lookups plus DOM updates for what changed.

   Controllers (viewer-*.js, loaded after this file in a fixed order) register with
   CHALKTRACE.part(name, Constructor); each owns its state and may define build(layout), open(),
   close(updateUrl) and destroy(). Plugins (ranks.js) wait for the viewer with CHALKTRACE.onViewer(fn)
   and use only go, cur, data, addKeyBinding and the step event.
   Must not: know what a controller keeps, draw a mode's own markup, or read the URL itself. */
(function () {
  "use strict";

  var parts = [];    // [name, constructor], in script order: controllers are built in this order
  var waiting = [];  // plugin callbacks to run once the viewer exists

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

  var MOVES = ["next", "prev", "over", "back_over", "out"];  // data.steps arrays of precomputed targets

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
    this.modes = [];            // {name, get, set, early}, in registration order (the URL's flag order)
    this.parts = {};            // controller name -> controller
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
    parts.forEach(function (part) { self.parts[part[0]] = new part[1](self); });
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

  // A mode: on or off, written in the URL as &NAME=1. `early` modes are set from a URL before its
  // step is shown (quiz: the step may ask); the others after.
  Viewer.prototype.addMode = function (name, mode) {
    this.modes.push({ name: name, get: mode.get, set: mode.set, early: !!mode.early });
  };

  Viewer.prototype.mode = function (name) {
    for (var k = 0; k < this.modes.length; k++) if (this.modes[k].name === name) return this.modes[k].get();
    return false;
  };

  // Turn a mode on or off from a key or button, and say so in the URL (replacing the entry).
  Viewer.prototype.setMode = function (name, on) {
    for (var k = 0; k < this.modes.length; k++) if (this.modes[k].name === name) this.modes[k].set(on);
    this.parts.location.write(false);
  };

  Viewer.prototype.toggle = function (name) { this.setMode(name, !this.mode(name)); };

  // A plugin's keys: binding {keys: [KeyboardEvent.key, ...], label, help, when(viewer)}, run(event).
  // They are tried before the built-in keys and are listed in the help. Returns a function removing them.
  Viewer.prototype.addKeyBinding = function (binding, run) { return this.parts.keyboard.add(binding, run); };

  Viewer.prototype.each = function (hook, arg) {
    for (var name in this.parts) if (this.parts[name][hook]) this.parts[name][hook](arg);
  };

  // --- DOM skeleton (built on first entry) ---------------------------------------------------

  Viewer.prototype.build = function () {
    var d = this.data;
    var root = el("div", "lt-viewer md-typeset");
    root.setAttribute("role", "dialog");
    root.setAttribute("aria-label", "Step through " + (d.lecture.title || d.lecture.name));
    root.hidden = true;
    var bar = root.appendChild(el("div", "lt-v-bar"));
    var main = root.appendChild(el("div", "lt-v-main"));
    var code = main.appendChild(el("section", "lt-v-code"));
    var side = main.appendChild(el("aside", "lt-v-side"));
    side.setAttribute("aria-label", "values, call stack and output");
    side.tabIndex = 0;  // it scrolls: the keyboard reaches it
    this.rootEl = root;
    this.each("build", { root: root, bar: bar, main: main, code: code, side: side });
    document.body.appendChild(root);
    this.built = true;
  };

  // --- moving -----------------------------------------------------------------------------------

  Viewer.prototype.render = function (step) {
    var code = this.parts.code;
    var moved = code.show(step, this.cur < 0);
    this.parts.values.show(step);
    this.parts.bar.show(step);
    this.cur = step;
    code.scrollToCurrent(moved);  // reads layout once, after all of this step's writes
    this.parts.values.follow();   // the same layout: scrolling the code panel lays out nothing
  };

  // A distributed trace lays its ranks' timelines end to end (tracer/site/rank_viewer.py): the
  // position, progress bar and jumps count within the followed rank's. [label, first step, end].
  Viewer.prototype.span = function (step) {
    var segs = this.data.ranks ? this.data.ranks.segments : null;
    for (var k = 0; segs && k < segs.length; k++) {
      if (step >= segs[k][1] && step < segs[k][2]) return ["rank " + segs[k][0] + " \u00b7 ", segs[k][1], segs[k][2]];
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
    if (!(options && options.fromUrl)) this.parts.location.record();
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
    var viewer = new Viewer(data, host);
    window.CHALKTRACE_VIEWER = viewer;
    host.hidden = false;
    host.querySelector(".lt-step-enter").addEventListener("click", function () {
      viewer.go(viewer.cur >= 0 ? viewer.cur : viewer.firstVisible());
    });
    waiting.splice(0).forEach(function (fn) { fn(viewer); });
    viewer.parts.location.sync();
    window.CHALKTRACE_READY = performance.now();
  }

  window.CHALKTRACE = {
    el: el,
    escapeHtml: escapeHtml,
    // a controller: built with the viewer, in script order
    part: function (name, Part) { parts.push([name, Part]); },
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
