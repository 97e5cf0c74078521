/* chalktrace step mode: steps through a lecture's trace like a debugger, over the read-mode page.

   Reads window.CHALKTRACE_DATA (data.js beside the page, built by tracer/site/viewer_data.py) and does
   nothing on pages without #lt-stepper. Every position is a URL: #step=N, plus &raw=1, &reveal=1 and
   &quiz=1 when those modes are on (a bare #step=N, as older links have, means both off). History: a move pushes
   an entry unless the previous move was under BURST_MS ago; moves within such a burst replace it
   (when the burst pauses), so Back after a run of key presses returns to where the run started instead of
   undoing one key at a time. All navigation targets are precomputed in data.js, so a
   step is a few array lookups plus DOM updates for what changed. */
// Read mode: put each lazy annotation body (its markup is the text of a <noscript>, see
// page_parts.html.j2) in place as it nears the viewport, and all of them before printing.
(function () {
  "use strict";
  var boxes = document.querySelectorAll(".lt-lazy");
  if (!boxes.length) return;
  function fill(box) {
    if (!box || !box.classList.contains("lt-lazy")) return;  // printing may have filled it already
    var source = box.querySelector("noscript");
    box.classList.remove("lt-lazy");
    if (source) box.innerHTML = source.textContent;
  }
  window.addEventListener("beforeprint", function () { document.querySelectorAll(".lt-lazy").forEach(fill); });
  if (!("IntersectionObserver" in window)) return boxes.forEach(fill);
  // Watch the annotation, not the box: an off-screen annotation's contents are not laid out
  // (content-visibility), the annotation itself always is.
  var observer = new IntersectionObserver(function (entries) {
    entries.forEach(function (entry) {
      if (!entry.isIntersecting) return;
      observer.unobserve(entry.target);
      fill(entry.target.querySelector(".lt-lazy"));
    });
  }, { rootMargin: "100% 0px" });
  boxes.forEach(function (box) { observer.observe(box.parentNode); });
})();

// Printing: a handout shows every card expanded. Closed <details> (a repr, a chart's spec, the memory
// timeline) open for printing and close again afterwards.
(function () {
  "use strict";
  var opened = [];
  window.addEventListener("beforeprint", function () {
    opened = Array.prototype.filter.call(document.querySelectorAll(".md-content details:not([open])"), function (d) {
      d.open = true;
      return true;
    });
  });
  window.addEventListener("afterprint", function () {
    opened.forEach(function (d) { d.open = false; });
    opened = [];
  });
})();

// Heatmaps (cards.html.j2): hovering a cell shows its index and value, read from the value grid beside
// the heatmap (its text has one column per cell, --lt-col characters wide), so the page carries no
// second copy of the values. Sampled heatmaps say which real row/column each drawn one is (data-r/c).
(function () {
  "use strict";
  var tip = null;
  function expand(runs) {
    var out = [];
    runs.split(",").forEach(function (run) {
      if (run === "") return out.push(null);
      var ends = run.split("-").map(Number);
      for (var k = ends[0]; k <= ends[ends.length - 1]; k++) out.push(k);
    });
    return out;
  }
  function describe(box, event) {
    var img = box.querySelector("img"), rect = img.getBoundingClientRect();
    var grid = box.previousElementSibling;
    if (!grid || !grid.classList.contains("lt-grid")) return null;
    var lines = grid.textContent.split("\n"), rows = lines.length;
    var width = parseInt(grid.style.getPropertyValue("--lt-col"), 10) || 1;
    var cols = Math.max.apply(null, lines.map(function (l) { return Math.round(l.length / width); }));
    var r = Math.floor((event.clientY - rect.top) / rect.height * rows), c = Math.floor((event.clientX - rect.left) / rect.width * cols);
    if (r < 0 || c < 0 || r >= rows || c >= cols) return null;
    var text = lines[r].substr(c * width, width).trim();
    if (!text || text === "\u2026") return null;
    var ri = box.dataset.r ? expand(box.dataset.r)[r] : r, ci = box.dataset.c ? expand(box.dataset.c)[c] : c;
    var slice = grid.previousElementSibling, prefix = "";
    if (slice && slice.classList.contains("lt-slice")) prefix = slice.textContent.replace(/^\[/, "").replace(/:, :\]$/, "");
    return "[" + prefix + ri + ", " + ci + "] = " + text;
  }
  document.addEventListener("mousemove", function (event) {
    var box = event.target.closest && event.target.tagName === "IMG" && event.target.closest(".lt-hm");
    var label = box ? describe(box, event) : null;
    if (!label) { if (tip) tip.hidden = true; return; }
    if (!tip) { tip = document.createElement("div"); tip.className = "lt-hm-tip"; document.body.appendChild(tip); }
    tip.textContent = label;
    tip.hidden = false;
    tip.style.left = (event.clientX + 12) + "px";
    tip.style.top = (event.clientY + 14) + "px";
  }, { passive: true });
})();

(function () {
  "use strict";

  var BURST_MS = 800;
  var CHUNK_LINES = 40;
  var URL_EVERY_MS = 150;
  var SPARE_CARDS = 64;         // detached card elements kept for reuse (see updateValues)
  var STEP_HASH = /^#step=(\d+)((?:&[a-z]+=\w*)*)$/;
  var KEYS = [
    ["→ / l", "step forward", "next"],
    ["← / h", "step back", "prev"],
    ["↓ / j", "step over (skip the call)", "over"],
    ["↑ / k", "step back over", "back_over"],
    ["u", "step out of this function", "out"],
    ["Home / End", "first / last step", null],
    ["r", "raw code (renderings off)", null],
    ["a", "reveal lines as you step", null],
    ["p", "present mode: large type, no chrome (PageDown/PageUp, Space, b blanks, Esc leaves)", null],
    ["s", "open the speaker view (notes, next line, timer) in a second window", null],
    ["q", "quiz mode: predict a value before it shows (Esc skips)", null],
    ["click a line number", "go to that line's next run", null],
    ["?", "this help", null],
    ["Esc", "back to reading", null]
  ];

  var host = document.getElementById("lt-stepper");
  if (!host) return;

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

  function Viewer(data, rootUrl) {
    this.data = data;
    this.s = data.steps;
    this.count = data.count;
    this.rootUrl = rootUrl || "";
    this.cur = -1;
    this.active = false;
    this.raw = false;
    this.reveal = false;
    this.files = [];            // per file: {box, lines: [el by line], rlines: [line], shown: {line: entry}}
    this.fileShown = -1;
    this.currentEl = null;
    this.cards = new Map();     // name -> {el, card} in the variables panel
    this.cardCache = [];        // card index -> HTML, assembled from fragments on first use
    this.spareCards = new Map(); // name + " " + card index -> a card element that left the panel
    this.lastMove = 0;          // Date.now() of the last move, for telling bursts apart
    this.urlTimer = null;       // a pending replaceState for the latest step of a burst
    this.built = false;
    this.present = false;       // present mode (p, &present=1): large type for a projector
    this.speaker = false;       // this window is the speaker view (&speaker=1)
    this.following = false;     // moving because another window of the lecture moved (no echo)
    this.pending = null;        // a held key's latest target, shown at the next frame (see queue)
    this.quizOn = false;        // quiz mode (see the quiz block below)
    this.quizOpen = null;       // index of the question being asked
  }

  Viewer.prototype.withRoot = function (html) {
    return html.indexOf("{root}") < 0 ? html : html.split("{root}").join(this.rootUrl);
  };

  // --- DOM skeleton (built on first entry) ---------------------------------------------------

  Viewer.prototype.build = function () {
    var self = this, d = this.data;
    // [command, icon (SVG path in a 16x16 box) or text, title naming the key]
    var buttons = [
      ["first", "M3 3v10M13 3 6 8l7 5z", "first step (Home)"],
      ["back_over", "M8 13V4M4 7l4-4 4 4M3 14h10", "step back over (↑ or k)"],
      ["prev", "M11 3 4 8l7 5z", "step back (← or h)"],
      ["next", "M5 3l7 5-7 5z", "step forward (→ or l)"],
      ["over", "M8 3v9M4 9l4 4 4-4M3 2h10", "step over (↓ or j)"],
      ["out", "M8 13V3M4 7l4-4 4 4M3 14h4", "step out (u)"],
      ["last", "M13 3v10M3 3l7 5-7 5z", "last step (End)"],
      ["raw", "raw", "raw code: renderings off (r)"],
      ["reveal", "reveal", "reveal lines as you step, for presenting (a)"],
      ["present", "present", "present mode: large type for a projector (p)"],
      ["speaker", "speaker", "open the speaker view in a second window (s)"],
      ["help", "?", "keyboard shortcuts (?)"],
      ["close", "M3 3l10 10M13 3 3 13", "back to reading (Esc)"]
    ];
    if (d.quiz && d.quiz.length) buttons.splice(buttons.length - 2, 0, ["quiz", "quiz", "quiz mode: predict values before they show (q)"]);
    var root = el("div", "lt-viewer md-typeset");
    root.setAttribute("role", "dialog");
    root.setAttribute("aria-label", "Step through " + (d.lecture.title || d.lecture.name));
    root.hidden = true;
    var bar = el("div", "lt-v-bar");
    bar.appendChild(el("span", "lt-v-title", escapeHtml(d.lecture.title || d.lecture.name)));
    this.sectionEl = bar.appendChild(el("span", "lt-v-section"));
    this.posEl = bar.appendChild(el("span", "lt-v-pos"));
    var nav = bar.appendChild(el("span", "lt-v-buttons"));
    this.buttons = {};
    buttons.forEach(function (b) {
      var icon = b[1].charAt(0) === "M" ? "<svg viewBox=\"0 0 16 16\" aria-hidden=\"true\"><path d=\"" + b[1] + "\"/></svg>" : b[1];
      var button = el("button", "lt-v-btn lt-v-b-" + b[0], icon);
      button.type = "button";
      button.title = b[2];
      button.setAttribute("aria-label", b[2]);
      button.addEventListener("click", function () { self.command(b[0]); });
      nav.appendChild(button);
      self.buttons[b[0]] = button;
    });
    root.appendChild(bar);

    var progress = el("div", "lt-v-progress");
    progress.title = "click to jump to a step";
    this.fillEl = progress.appendChild(el("div", "lt-v-fill"));
    var first = this.span(0), last = Math.max(1, first[2] - 1);
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
      var span = self.span(Math.max(0, self.cur));
      self.go(self.nearestVisible(span[1] + Math.round(fraction * (span[2] - span[1] - 1))));
    });
    root.appendChild(progress);

    var main = el("div", "lt-v-main");
    var code = el("section", "lt-v-code");
    this.pathEl = code.appendChild(el("div", "lt-v-path"));
    this.codeEl = code.appendChild(el("div", "lt-v-lines"));
    this.codeEl.addEventListener("click", function (event) {
      var link = event.target.closest && event.target.closest("a.lt-internal");
      if (link) return self.followInternal(event, link);
      // the line number is the line's ::before, so a click on it lands on the line itself, left of its code
      var line = event.target;
      if (line.classList && line.classList.contains("lt-sline") &&
          event.clientX - line.getBoundingClientRect().left < parseFloat(getComputedStyle(line).paddingLeft)) {
        self.go(self.nextRunOf(self.fileShown, +line.getAttribute("data-line")));
      }
    });
    main.appendChild(code);
    var side = el("aside", "lt-v-side");
    this.errorEl = side.appendChild(el("section", "lt-v-error"));
    this.computeEl = side.appendChild(el("section", "lt-v-compute"));
    var vars = side.appendChild(el("section", "lt-v-vars"));
    this.varsHead = vars.appendChild(el("h3", null, "Variables"));
    this.varsEl = vars.appendChild(el("div", "lt-v-cards"));
    this.emptyEl = vars.appendChild(el("p", "lt-v-empty", "No values recorded in this frame yet."));
    var stack = side.appendChild(el("section", "lt-v-stack"));
    stack.appendChild(el("h3", null, "Call stack"));
    this.stackEl = stack.appendChild(el("ol", "lt-v-frames"));
    this.stackEl.addEventListener("click", function (event) {
      var item = event.target.closest && event.target.closest("[data-step]");
      if (item) self.go(+item.getAttribute("data-step"));
    });
    var out = side.appendChild(el("section", "lt-v-stdout"));
    out.appendChild(el("h3", null, "Output of this step"));
    this.stdoutEl = out.appendChild(el("pre", "lt-v-out"));
    this.stderrEl = out.appendChild(el("pre", "lt-v-out lt-v-err"));
    main.appendChild(side);
    root.appendChild(main);

    var help = el("div", "lt-v-help");
    help.hidden = true;
    help.innerHTML = "<div class=\"lt-v-help-box\" role=\"document\"><h2>Step mode keys</h2><table>" +
      KEYS.map(function (k) { return "<tr><th><kbd>" + escapeHtml(k[0]) + "</kbd></th><td>" + escapeHtml(k[1]) + "</td></tr>"; }).join("") +
      "</table><p>Every step is a link (<code>#step=N</code>); the browser's Back returns to where a run of key presses started.</p>" +
      "<button type=\"button\" class=\"lt-v-btn\">Close</button></div>";
    help.addEventListener("click", function (event) {
      if (event.target === help || event.target.tagName === "BUTTON") self.toggleHelp(false);
    });
    this.helpEl = root.appendChild(help);
    this.buildClassroom(root, main);

    document.body.appendChild(root);
    this.rootEl = root;
    this.built = true;
  };

  // --- the code panel (one box per file, built once) -----------------------------------------

  // The code of file f, built once, in one parse with the renderings shown at `step` (filling them
  // in one by one afterwards would parse each separately).
  Viewer.prototype.fileBox = function (f, step) {
    if (this.files[f]) return this.files[f];
    var file = this.data.files[f];
    var hidden = new Set(file.hidden);
    var rendered = this.data.line_renderings[f];
    var continuation = new Set();
    Object.keys(file.spans).forEach(function (start) {
      for (var k = +start + 1; k <= file.spans[start]; k++) continuation.add(k);
    });
    // Lines go in chunks of CHUNK_LINES, each skipped by style/layout/paint while off-screen once
    // the whole box has been laid out (viewer.css), so a step's cost does not grow with the file.
    var parts = [], inChunk = 0, shown = {}, future = {};
    for (var line = 1; line <= file.lines.length; line++) {
      if (hidden.has(line)) continue;
      if (inChunk === 0) parts.push(parts.length ? "</div><div class=\"lt-v-chunk\">" : "<div class=\"lt-v-chunk\">");
      inChunk = (inChunk + 1) % CHUNK_LINES;
      var cls = "lt-sline", body = "";
      if (rendered[line]) {
        var run = pickRun(rendered[line], step);
        shown[line] = run[0];
        future[line] = run[1];
        cls += file.spans[line] ? " lt-has-r lt-replace" : " lt-has-r";
        if (run[1]) cls += " lt-future";
        body = "<div class=\"lt-srender\">" + this.renderingHtml(rendered[line][run[0]][1]) + "</div>";
      }
      if (continuation.has(line)) cls += " lt-rcont";
      parts.push("<div class=\"" + cls + "\" data-line=\"" + line + "\"><code class=\"lt-scode\">" +
        (file.lines[line - 1] || " ") + "</code>" + body + "</div>");
    }
    if (parts.length) parts.push("</div>");
    var box = el("div", "lt-v-file highlight", parts.join(""));
    box.hidden = true;
    var lines = [];
    var nodes = box.querySelectorAll(".lt-sline");
    for (var i = 0; i < nodes.length; i++) lines[+nodes[i].getAttribute("data-line")] = nodes[i];
    var rlines = Object.keys(rendered).map(Number);
    this.codeEl.appendChild(box);
    requestAnimationFrame(function () { setTimeout(function () { box.classList.add("lt-v-measured"); }, 0); });
    this.files[f] = { box: box, lines: lines, rlines: rlines, shown: shown, future: future, revealed: [], lineCount: file.lines.length };
    return this.files[f];
  };

  // The rendering shown on a line: its latest run at or before the step, else its first ("future").
  // Returns [run index, future].
  function pickRun(runs, step) {
    var lo = 0, hi = runs.length - 1, pick = -1;
    while (lo <= hi) {
      var mid = (lo + hi) >> 1;
      if (runs[mid][0] <= step) { pick = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return pick < 0 ? [0, true] : [pick, false];
  }

  Viewer.prototype.updateRenderings = function (fb, f, step) {
    var rendered = this.data.line_renderings[f];
    for (var i = 0; i < fb.rlines.length; i++) {
      var line = fb.rlines[i], run = pickRun(rendered[line], step), pick = run[0], future = run[1];
      var runs = rendered[line], node = fb.lines[line];
      if (!node) continue;
      if (fb.shown[line] !== pick) {  // a jump flips many lines' "future" state, few lines' content
        fb.shown[line] = pick;
        node.lastElementChild.innerHTML = this.renderingHtml(runs[pick][1]);
      }
      if (fb.future[line] !== future) {
        fb.future[line] = future;
        node.classList.toggle("lt-future", future);
      }
    }
  };

  Viewer.prototype.renderingHtml = function (indices) {
    var html = "";
    for (var i = 0; i < indices.length; i++) html += this.withRoot(this.data.renderings[indices[i]]);
    return html;
  };

  Viewer.prototype.updateReveal = function (fb, f, step) {
    var reveal = this.data.files[f].reveal;
    for (var line = 1; line <= fb.lineCount; line++) {
      var node = fb.lines[line];
      if (!node) continue;
      var hide = this.reveal && (reveal[line - 1] < 0 || reveal[line - 1] > step);
      if (fb.revealed[line] !== hide) {
        fb.revealed[line] = hide;
        node.classList.toggle("lt-unrevealed", hide);
      }
    }
  };

  // --- values ---------------------------------------------------------------------------------

  // Accumulated env of the step's frame activation: nearest snapshot, then the diffs after it.
  Viewer.prototype.envAt = function (step) {
    var d = this.data, chain = [], cursor = step;
    while (cursor >= 0 && d.snapshots[cursor] === undefined) {
      chain.push(cursor);
      cursor = this.s.act_prev[cursor];
    }
    var env = new Map(cursor >= 0 ? d.snapshots[cursor] : []);
    for (var i = chain.length - 1; i >= 0; i--) {
      var index = chain[i], cleared = d.clear[index], diff = d.env[index];
      if (cleared) for (var c = 0; c < cleared.length; c++) env.delete(cleared[c]);
      if (diff) for (var k = 0; k < diff.length; k++) env.set(diff[k][0], diff[k][1]);
    }
    return env;
  };

  Viewer.prototype.cardHtml = function (card) {
    var html = this.cardCache[card];
    if (html === undefined) {
      var fragments = this.data.fragments;
      html = this.cardCache[card] = this.withRoot(this.data.cards[card].map(function (k) { return fragments[k]; }).join("\n"));
    }
    return html;
  };

  Viewer.prototype.updateValues = function (step) {
    var env = this.envAt(step), cards = this.cards, self = this;
    var changed = new Set((this.data.env[step] || []).map(function (p) { return p[0]; }));
    var spare = this.spareCards;
    // Cards that leave (a call enters another frame) are kept, detached, and reused when the same
    // value comes back (the call returns): re-parsing a tensor card's HTML is most of such a step.
    cards.forEach(function (entry, name) {
      if (env.has(name)) return;
      entry.el.remove();
      cards.delete(name);
      spare.delete(name + " " + entry.card);
      spare.set(name + " " + entry.card, entry);
      if (spare.size > SPARE_CARDS) spare.delete(spare.keys().next().value);
    });
    var previous = null;
    env.forEach(function (card, name) {
      var entry = cards.get(name);
      if (!entry) {
        entry = spare.get(name + " " + card);
        if (entry) spare.delete(name + " " + card);
        else {
          entry = { el: el("div", "lt-v-card"), card: -1 };
          entry.el.setAttribute("data-name", name);
        }
        cards.set(name, entry);
      }
      if (entry.card !== card) {
        entry.card = card;
        entry.el.innerHTML = self.cardHtml(card);
      }
      entry.el.classList.toggle("lt-changed", changed.has(name));
      var wanted = previous ? previous.nextSibling : self.varsEl.firstChild;
      if (wanted !== entry.el) self.varsEl.insertBefore(entry.el, wanted);
      previous = entry.el;
    });
    this.emptyEl.hidden = env.size > 0;
  };

  Viewer.prototype.updateStack = function (step) {
    var s = this.s, d = this.data, chain = [];
    for (var cursor = step; cursor >= 0; cursor = s.parent[cursor]) chain.push(cursor);
    var callers = chain.slice(1).join(",");
    if (callers === this.stackCallers && this.stackEl.lastElementChild) {
      // the same frames as the last step: only the innermost one's step and line change
      var button = this.stackEl.lastElementChild.firstElementChild;
      button.setAttribute("data-step", step);
      button.title = "go to step " + step;
      button.lastElementChild.textContent = d.files[s.file[step]].path + ":" + s.line[step];
      return;
    }
    this.stackCallers = callers;
    var html = "";
    for (var i = chain.length - 1; i >= 0; i--) {
      var k = chain[i];
      html += "<li><button type=\"button\" data-step=\"" + k + "\"" + (k === step ? " aria-current=\"step\"" : "") +
        " title=\"go to step " + k + "\"><code>" + escapeHtml(d.functions[s.fn[k]]) + "</code> <span>" +
        escapeHtml(d.files[s.file[k]].path) + ":" + s.line[k] + "</span></button></li>";
    }
    this.stackEl.innerHTML = html;
    this.varsHead.innerHTML = "Variables <small>in <code>" + escapeHtml(d.functions[s.fn[step]]) + "</code></small>";
  };

  // --- moving -----------------------------------------------------------------------------------

  Viewer.prototype.render = function (step) {
    var s = this.s, d = this.data, f = s.file[step];
    var fb = this.fileBox(f, step), moved = this.cur < 0 || this.fileShown !== f;
    if (this.fileShown !== f) {
      if (this.fileShown >= 0) this.files[this.fileShown].box.hidden = true;
      fb.box.hidden = false;
      this.fileShown = f;
      this.pathEl.textContent = d.files[f].path;
    }
    this.updateRenderings(fb, f, step);
    this.updateReveal(fb, f, step);
    if (this.currentEl) this.currentEl.classList.remove("lt-current", "lt-error-line");
    var line = fb.lines[s.line[step]] || null;
    this.currentEl = line;
    if (line) line.classList.add("lt-current");
    if (line && d.errors[step]) line.classList.add("lt-error-line");

    this.updateValues(step);
    this.updateStack(step);
    var error = d.errors[step], compute = d.compute[step], out = d.stdout[step], err = d.stderr && d.stderr[step];
    this.errorEl.innerHTML = error ? error : "";
    this.errorEl.hidden = !error;
    this.computeEl.innerHTML = compute ? compute : "";
    this.computeEl.hidden = !compute;
    this.stdoutEl.textContent = out || "";
    this.stdoutEl.hidden = !out;
    this.stderrEl.textContent = err || "";
    this.stderrEl.hidden = !err;
    this.stdoutEl.parentNode.hidden = !out && !err;

    var section = s.section[step];
    this.sectionEl.textContent = section >= 0 ? d.sections[section][1] : "";
    var span = this.span(step), at = step - span[1], end = span[2] - span[1] - 1;
    this.posEl.innerHTML = span[0] + "step <b>" + at + "</b> / " + end + (s.call[step] ? " <span class=\"lt-v-call\">calling</span>" : "");
    // a transform, not a width: the compositor moves it without layout or paint
    this.fillEl.style.transform = "scaleX(" + (end > 0 ? at / end : 1) + ")";
    var targets = { first: this.firstVisible(), last: this.lastVisible() };
    ["next", "prev", "over", "back_over", "out"].forEach(function (key) { targets[key] = s[key][step]; }, this);
    for (var key in targets) {
      if (this.buttons[key]) this.buttons[key].disabled = targets[key] < 0 || targets[key] === step;
    }
    this.cur = step;
    if (line) this.scrollTo(line, moved);
    if (this.speakerEl) this.updateSpeaker(step);
  };

  // Keep the current line in view; when it leaves the middle part (or on a new file), put it a
  // third of the way down so the code leading to it stays visible. Reads offsets within the code
  // panel once, after all of this step's DOM writes, and writes
  // scrollTop only when the line is out of the comfortable band: one layout per step, no more.
  Viewer.prototype.scrollTo = function (line, always) {
    var box = this.codeEl, height = box.clientHeight, top = box.scrollTop, lineTop = 0;
    // a line's offsetParent is its chunk (content-visibility contains layout), the chunk's the panel
    for (var node = line; node && node !== box; node = node.offsetParent) lineTop += node.offsetTop;
    var lineBottom = lineTop + line.offsetHeight;
    if (this.present) return this.keepInMiddleThird(lineTop, lineBottom, always);
    var margin = Math.min(80, height / 4);
    if (always || lineTop < top + margin || lineBottom > top + height - margin) {
      box.scrollTop = lineTop - height / 3;
    }
  };

  // The next step (after the current one, wrapping around) that starts a run of ``line`` in file f;
  // the completion step of a line that called into code belongs to the run its call step started.
  Viewer.prototype.nextRunOf = function (f, line) {
    var s = this.s, count = this.count;
    for (var i = 1; i <= count; i++) {
      var k = (this.cur + i) % count, before = s.act_prev[k];
      if (s.file[k] !== f || s.line[k] !== line || !s.visible[k]) continue;
      if (before >= 0 && s.call[before] && s.line[before] === line && s.file[before] === f) continue;
      return k;
    }
    return null;
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

  // Move to a step and record it in the URL (see the history note at the top).
  Viewer.prototype.go = function (step, options) {
    if (step == null || step < 0 || step >= this.count) return;
    this.pending = null;  // a move from anywhere else wins over a held key's queued target
    var started = performance.now();
    if (!this.active) this.open();
    if (step !== this.cur) {
      this.render(step);
      if (this.quizOn) this.quizStep(step);
      this.tellOthers(step);
    }
    if (!(options && options.fromUrl)) this.recordUrl();
    window.CHALKTRACE_LAST_STEP_MS = performance.now() - started;
  };

  // The first move of a burst pushes a history entry; later moves of the burst replace it once the
  // burst pauses for URL_EVERY_MS (browsers throttle history calls, and a held key repeats ~30 times
  // a second).
  Viewer.prototype.recordUrl = function () {
    var self = this, now = Date.now(), burst = now - this.lastMove < BURST_MS;
    this.lastMove = now;
    if (!burst) return this.writeUrl(true);
    // within a burst, write once it pauses: a history call costs milliseconds, a step should not
    clearTimeout(this.urlTimer);
    this.urlTimer = setTimeout(function () { self.writeUrl(false); }, URL_EVERY_MS);
  };

  Viewer.prototype.writeUrl = function (push) {
    clearTimeout(this.urlTimer);
    this.urlTimer = null;
    var hash = this.hash();
    if (!this.active || location.hash === hash) return;
    var url = location.pathname + location.search + hash;
    if (push) history.pushState(null, "", url);
    else history.replaceState(null, "", url);
  };

  Viewer.prototype.hash = function () {
    return "#step=" + this.cur + (this.raw ? "&raw=1" : "") + (this.reveal ? "&reveal=1" : "") + (this.quizOn ? "&quiz=1" : "") +
      (this.present ? "&present=1" : "") + (this.speaker ? "&speaker=1" : "");
  };

  Viewer.prototype.command = function (name, repeat) {
    var s = this.s, cur = this.cur;
    switch (name) {
      case "next": case "prev": case "over": case "back_over": case "out":
        if (repeat) return this.queue(s[name][this.pending !== null ? this.pending : cur]);
        this.flush();
        return this.go(s[name][this.cur]);
      case "first": return this.go(this.firstVisible());
      case "last": return this.go(this.lastVisible());
      case "raw": this.setRaw(!this.raw); return this.writeUrl(false);
      case "reveal": this.setReveal(!this.reveal); return this.writeUrl(false);
      case "quiz": this.setQuiz(!this.quizOn); return this.writeUrl(false);
      case "help": return this.toggleHelp();
      case "present": this.setPresent(!this.present); return this.writeUrl(false);
      case "unpresent": this.setPresent(false); return this.writeUrl(false);
      case "blank": return this.setBlank(this.blankEl.hidden);
      case "speaker": return this.openSpeaker();
      case "close": return this.close(true);
    }
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

  Viewer.prototype.setRaw = function (on) {
    this.raw = on;
    this.rootEl.classList.toggle("lt-raw", on);
    this.buttons.raw.setAttribute("aria-pressed", on ? "true" : "false");
    if (this.currentEl) this.scrollTo(this.currentEl);
  };

  Viewer.prototype.setReveal = function (on) {
    this.reveal = on;
    this.buttons.reveal.setAttribute("aria-pressed", on ? "true" : "false");
    var f = this.fileShown;
    if (f >= 0) this.updateReveal(this.files[f], f, this.cur);
    if (this.currentEl) this.scrollTo(this.currentEl);
  };

  Viewer.prototype.toggleHelp = function (show) {
    this.helpEl.hidden = show === undefined ? !this.helpEl.hidden : !show;
  };

  // A link(function) card: go to the first step inside that function, else read mode's anchor.
  Viewer.prototype.followInternal = function (event, link) {
    var path = link.getAttribute("data-path"), line = +link.getAttribute("data-line"), s = this.s, d = this.data;
    var name = link.textContent.trim();
    var f = d.files.findIndex(function (file) { return file.path === path; });
    for (var k = 0; f >= 0 && k < this.count; k++) {
      if (s.file[k] === f && s.line[k] > line && d.functions[s.fn[k]] === name && s.visible[k]) {
        event.preventDefault();
        this.go(k);
        return;
      }
    }
  };

  Viewer.prototype.open = function () {
    if (!this.built) this.build();
    this.active = true;
    this.readScrollY = window.scrollY;  // the read page leaves layout (viewer.css); come back here
    this.rootEl.hidden = false;
    document.documentElement.classList.add("lt-stepping");
  };

  Viewer.prototype.close = function (updateUrl) {
    if (!this.active) return;
    if (this.present) this.setPresent(false);
    this.active = false;
    this.rootEl.hidden = true;
    this.toggleHelp(false);
    if (this.quizEl) this.quizClear();
    document.documentElement.classList.remove("lt-stepping");
    if (this.readScrollY) window.scrollTo(0, this.readScrollY);
    clearTimeout(this.urlTimer);
    this.urlTimer = null;
    this.lastMove = 0;
    if (updateUrl) history.pushState(null, "", location.pathname + location.search);
  };

  Viewer.prototype.onKey = function (event) {
    if (!this.active || event.ctrlKey || event.metaKey || event.altKey) return;
    if (this.quizOpen != null) return this.quizKey(event);
    if (this.classroomKey(event)) return;
    var map = {
      ArrowRight: "next", l: "next", ArrowLeft: "prev", h: "prev", ArrowDown: "over", j: "over",
      ArrowUp: "back_over", k: "back_over", u: "out", Home: "first", End: "last", r: "raw", a: "reveal",
      q: "quiz", "?": "help", Escape: "close"
    };
    var name = map[event.key];
    if (name === "close" && !this.helpEl.hidden) name = "help";
    if (name) {
      event.preventDefault();
      event.stopPropagation();  // keep the theme's own shortcuts (n, p, /, ...) out of step mode
      this.command(name, event.repeat);
    } else if (event.key.length === 1) {
      event.stopPropagation();
    }
  };

  Viewer.prototype.syncFromUrl = function () {
    clearTimeout(this.urlTimer);
    this.urlTimer = null;
    var match = STEP_HASH.exec(location.hash);
    if (!match) return this.close(false);
    var flags = "&" + match[2] + "&";
    if (!this.built) this.build();
    if (this.quizOn !== (flags.indexOf("&quiz=1&") >= 0)) this.setQuiz(!this.quizOn);  // before the step: it may ask
    this.go(this.nearestVisible(+match[1]), { fromUrl: true });
    if (this.raw !== (flags.indexOf("&raw=1&") >= 0)) this.setRaw(!this.raw);
    if (this.reveal !== (flags.indexOf("&reveal=1&") >= 0)) this.setReveal(!this.reveal);
    if (this.present !== (flags.indexOf("&present=1&") >= 0)) this.setPresent(!this.present);
    if (!this.speaker && flags.indexOf("&speaker=1&") >= 0) this.setSpeaker();
  };

  // --- classroom: present mode, the speaker view, windows kept on one step, touch -----------------

  Viewer.prototype.buildClassroom = function (root, main) {
    var self = this;
    this.blankEl = root.appendChild(el("div", "lt-v-blank"));
    this.blankEl.hidden = true;
    this.blankEl.title = "blank screen (b to show again)";
    this.blankEl.addEventListener("click", function () { self.setBlank(false); });
    // A swipe on the code or values steps (left: forward, right: back); taps and scrolls do not.
    var start = null;
    main.addEventListener("touchstart", function (event) {
      var t = event.changedTouches[0];
      start = event.touches.length === 1 ? [t.clientX, t.clientY] : null;
    }, { passive: true });
    main.addEventListener("touchend", function (event) {
      if (!start) return;
      var t = event.changedTouches[0], dx = t.clientX - start[0], dy = t.clientY - start[1];
      start = null;
      if (Math.abs(dx) >= 50 && Math.abs(dx) > 1.5 * Math.abs(dy)) self.command(dx < 0 ? "next" : "prev");
    }, { passive: true });
  };

  Viewer.prototype.setPresent = function (on) {
    this.present = on;
    this.rootEl.classList.toggle("lt-present", on);
    this.buttons.present.setAttribute("aria-pressed", on ? "true" : "false");
    if (!on) this.setBlank(false);
    if (this.currentEl) this.scrollTo(this.currentEl, true);
  };

  // Present mode keeps the current line in the middle third of the screen. A line leaving it going
  // down is put at the band's top (going up: its bottom), so the next scroll is a third of a screen
  // of lines away rather than a sixth: each scroll costs a step a frame's worth of restyling.
  Viewer.prototype.keepInMiddleThird = function (lineTop, lineBottom, always) {
    var box = this.codeEl, height = box.clientHeight, top = box.scrollTop, third = height / 3;
    if (always) box.scrollTop = (lineTop + lineBottom - height) / 2;
    else if (lineBottom > top + 2 * third) box.scrollTop = lineTop - third - 2;
    else if (lineTop < top + third) box.scrollTop = lineBottom - 2 * third + 2;
  };

  Viewer.prototype.setBlank = function (on) {
    this.blankEl.hidden = !on;
  };

  // Clicker and presenter keys; true when the key was one of them. PageDown/PageUp and Space step in
  // present mode and in the speaker view; "b" (and ".", which clickers send) blanks the screen.
  Viewer.prototype.classroomKey = function (event) {
    var key = event.key, name = null, presenting = this.present || this.speaker;
    if (key === "p" && !this.speaker) name = "present";
    else if (key === "s" && !this.speaker) name = "speaker";
    else if (presenting && (key === "PageDown" || (key === " " && !event.shiftKey))) name = "next";
    else if (presenting && (key === "PageUp" || (key === " " && event.shiftKey))) name = "prev";
    else if (this.present && (key === "b" || key === "B" || key === ".")) name = "blank";
    else if (this.present && key === "Escape" && this.helpEl.hidden) name = this.blankEl.hidden ? "unpresent" : "blank";
    if (!name) return false;
    event.preventDefault();
    event.stopPropagation();
    this.command(name, event.repeat);
    return true;
  };

  Viewer.prototype.openSpeaker = function () {
    var url = location.pathname + location.search + "#step=" + this.cur + "&speaker=1";
    var opened = window.open(url, "chalktrace-speaker", "popup,width=960,height=720");
    if (opened) opened.focus();
    return opened;
  };

  // This window becomes the speaker view: notes, the current and next line, the step, the time.
  Viewer.prototype.setSpeaker = function () {
    var self = this;
    this.speaker = true;
    this.rootEl.classList.add("lt-speaker");
    var panel = el("section", "lt-v-speaker");
    panel.setAttribute("aria-label", "speaker view");
    var head = panel.appendChild(el("div", "lt-sp-head"));
    this.spPosEl = head.appendChild(el("span", "lt-sp-pos"));
    this.spElapsedEl = head.appendChild(el("button", "lt-sp-elapsed"));
    this.spElapsedEl.type = "button";
    this.spElapsedEl.title = "time since the speaker view opened (click to restart)";
    this.spClockEl = head.appendChild(el("span", "lt-sp-clock"));
    panel.appendChild(el("h3", null, "Notes"));
    this.spNotesEl = panel.appendChild(el("div", "lt-sp-notes"));
    panel.appendChild(el("h3", null, "Now"));
    this.spNowEl = panel.appendChild(el("div", "lt-sp-line lt-sp-now highlight"));
    panel.appendChild(el("h3", null, "Next"));
    this.spNextEl = panel.appendChild(el("div", "lt-sp-line lt-sp-next highlight"));
    this.rootEl.insertBefore(panel, this.rootEl.querySelector(".lt-v-main"));
    this.speakerEl = panel;
    this.spStarted = Date.now();
    this.spElapsedEl.addEventListener("click", function () { self.spStarted = Date.now(); self.tick(); });
    this.tick();
    setInterval(function () { self.tick(); }, 1000);
    if (this.cur >= 0) this.updateSpeaker(this.cur);
  };

  Viewer.prototype.tick = function () {
    var seconds = Math.floor((Date.now() - this.spStarted) / 1000);
    var two = function (n) { return (n < 10 ? "0" : "") + n; };
    this.spElapsedEl.textContent = Math.floor(seconds / 3600) + ":" + two(Math.floor(seconds / 60) % 60) + ":" + two(seconds % 60);
    var now = new Date();
    this.spClockEl.textContent = two(now.getHours()) + ":" + two(now.getMinutes());
  };

  // The notes shown at a step: those of the latest step at or before it that has notes.
  Viewer.prototype.notesAt = function (step) {
    var notes = this.data.speaker_notes || [], lo = 0, hi = notes.length - 1, pick = -1;
    while (lo <= hi) {
      var mid = (lo + hi) >> 1;
      if (notes[mid][0] <= step) { pick = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return pick < 0 ? "" : notes[pick][1];
  };

  Viewer.prototype.lineHtml = function (step) {
    var s = this.s, file = this.data.files[s.file[step]];
    return "<span class=\"lt-sp-where\">" + escapeHtml(file.path) + ":" + s.line[step] + "</span><code>" +
      (file.lines[s.line[step] - 1] || " ") + "</code>";
  };

  Viewer.prototype.updateSpeaker = function (step) {
    var span = this.span(step), next = this.s.next[step];
    this.spPosEl.innerHTML = span[0] + "step <b>" + (step - span[1]) + "</b> / " + (span[2] - span[1] - 1);
    var notes = this.notesAt(step);
    this.spNotesEl.innerHTML = notes || "<p class=\"lt-sp-none\">No notes for this step.</p>";
    this.spNowEl.innerHTML = this.lineHtml(step);
    this.spNextEl.innerHTML = next >= 0 ? this.lineHtml(next) : "<span class=\"lt-sp-where\">the end</span>";
  };

  // Windows of this lecture (the presenter, the speaker view, other tabs presenting) stay on one step:
  // a move made here is told to the others, and a presenting window follows what it is told.
  Viewer.prototype.listen = function () {
    var self = this;
    if (!("BroadcastChannel" in window)) return;
    this.channel = new BroadcastChannel("chalktrace:" + location.pathname);
    this.channel.onmessage = function (event) {
      var step = event.data && event.data.step;
      if (typeof step !== "number" || !(self.present || self.speaker) || step === self.cur) return;
      self.following = true;
      try { self.go(step); } finally { self.following = false; }
    };
  };

  Viewer.prototype.tellOthers = function (step) {
    if (this.channel && !this.following && (this.present || this.speaker)) this.channel.postMessage({ step: step });
  };

  // --- quiz mode (q, &quiz=1): predict, then reveal -------------------------------------------
  // The questions come from data.js (tracer/site/quiz.py chooses them). Self-contained: the step
  // path calls quizStep only while quiz mode is on, so stepping without it costs nothing.

  var QUIZ_UNITS = { "": 1, k: 1e3, m: 1e6, g: 1e9, t: 1e12, p: 1e15, ki: 1024, mi: 1048576, gi: 1073741824, ti: 1099511627776 };
  var DTYPE_ALIASES = {
    float: "float32", fp32: "float32", f32: "float32", single: "float32", half: "float16", fp16: "float16",
    f16: "float16", bf16: "bfloat16", double: "float64", fp64: "float64", f64: "float64", long: "int64",
    i64: "int64", int: "int32", i32: "int32", short: "int16", byte: "uint8", fp8: "float8_e4m3fn",
    e4m3: "float8_e4m3fn", float8: "float8_e4m3fn", e5m2: "float8_e5m2"
  };
  var BOOL_WORDS = {
    yes: true, y: true, true: true, t: true, "1": true, shares: true, share: true, view: true, same: true,
    no: false, n: false, false: false, f: false, "0": false, copy: false, not: false, new: false, different: false
  };

  // A typed answer read leniently, by the kind of answer expected; null when it cannot be read.
  // ints: "(3, 2)", "3,2", "[3, 2]", "torch.Size([3, 2])", "3x2"; number: "24 B", "24", "1.5e3",
  // "1,500", "2^20", "4*8*4", "1.5 KB", "2 MiB"; dtype: "torch.bfloat16", "bf16"; bool: "yes", "no".
  function quizParse(kind, text) {
    var t = String(text == null ? "" : text).trim().toLowerCase();
    if (!t) return null;
    if (kind === "ints") {
      var ints = t.replace(/torch\.size/g, "").match(/-?\d+/g);
      if (ints) return ints.map(Number);
      return /^[([]\s*[)\]]$|^\(\)$|^scalar$/.test(t.replace(/torch\.size/g, "").replace(/\s+/g, "")) ? [] : null;
    }
    if (kind === "number") {
      t = t.replace(/[\s_\u00a0\u202f]+/g, "").replace(/(\d),(?=\d{3}(?!\d))/g, "$1").replace(/\*\*/g, "^");
      var m = /^(.*?)(ki|mi|gi|ti|k|m|g|t|p)?(bytes|byte|b|flops|flop|elements)?$/.exec(t);
      if (!m || !m[1]) return null;
      var product = 1, factors = m[1].split(/[*×·x]/);
      for (var i = 0; i < factors.length; i++) {
        var f = /^([-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)(?:\^([-+]?\d+(?:\.\d+)?))?$/.exec(factors[i]);
        if (!f) return null;
        product *= f[2] === undefined ? parseFloat(f[1]) : Math.pow(parseFloat(f[1]), parseFloat(f[2]));
      }
      return product * QUIZ_UNITS[m[2] || ""];
    }
    if (kind === "dtype") {
      t = t.replace(/^(torch|np|numpy)\./, "").replace(/\s+/g, "");
      return DTYPE_ALIASES[t] || (/^[a-z]+[0-9a-z_]*$/.test(t) ? t : null);
    }
    if (kind === "bool") {
      var word = t.replace(/[.!]+$/, "").split(/[\s,]+/)[0];
      return BOOL_WORDS.hasOwnProperty(word) ? BOOL_WORDS[word] : null;
    }
    return t;
  }

  // Is a typed answer right? null when it could not be read (the question stays open).
  function quizCheck(accept, text) {
    var got = quizParse(accept.kind, text), want = accept.value;
    if (got === null) return null;
    if (accept.kind === "ints") return got.length === want.length && got.every(function (v, k) { return v === want[k]; });
    if (accept.kind === "number") {
      return Math.abs(got - want) <= Math.max((accept.tolerance || 0) * Math.abs(want), 1e-9 * Math.abs(want));
    }
    return got === want;
  }

  var QUIZ_HINTS = { ints: "a tuple such as (3, 2)", number: "a number such as 24, 24 B or 1.5e3",
    dtype: "a dtype such as float32", bool: "yes or no" };

  function quizStore(lecture) { return "chalktrace-quiz:" + lecture; }

  // The stored score of a lecture: {answers: {question step: "right" | "wrong" | "skipped"}}.
  function quizScore(lecture) {
    try { return JSON.parse(localStorage.getItem(quizStore(lecture))) || { answers: {} }; } catch (e) { return { answers: {} }; }
  }

  function quizSave(lecture, score) {
    try {
      if (score) localStorage.setItem(quizStore(lecture), JSON.stringify(score));
      else localStorage.removeItem(quizStore(lecture));
    } catch (e) { /* storage off (private mode, file://): the score lives for this page only */ }
  }

  function quizTally(score) {
    var tally = { right: 0, wrong: 0, skipped: 0 };
    Object.keys(score.answers).forEach(function (k) { tally[score.answers[k]] = (tally[score.answers[k]] || 0) + 1; });
    return tally;
  }

  Viewer.prototype.setQuiz = function (on) {
    this.quizOn = on;
    if (this.buttons.quiz) this.buttons.quiz.setAttribute("aria-pressed", on ? "true" : "false");
    if (!on) this.quizClear();
  };

  // Called after a step is drawn while quiz mode is on: ask the step's question, once per visit of the page.
  Viewer.prototype.quizStep = function (step) {
    if (this.quizStepShown !== step) this.quizClear();
    if (!this.quizByStep) {
      this.quizByStep = {};
      this.quizDone = new Set();
      for (var k = 0; k < (this.data.quiz || []).length; k++) this.quizByStep[this.data.quiz[k].step] = k;
    }
    var index = this.quizByStep[step];
    if (index === undefined || this.quizDone.has(index) || this.quizOpen) return;
    this.quizAsk(index);
  };

  Viewer.prototype.quizClear = function () {
    if (this.quizEl) this.quizEl.remove();
    this.quizEl = null;
    this.quizOpen = null;
    this.quizStepShown = -1;
    this.quizReveal();
  };

  Viewer.prototype.quizReveal = function () {
    if (this.quizHidden) this.quizHidden.classList.remove("lt-quiz-hidden");
    this.quizHidden = null;
    this.rootEl.classList.remove("lt-quiz-asking");
  };

  Viewer.prototype.quizAsk = function (index) {
    var self = this, q = this.data.quiz[index], id = "lt-quiz-" + index;
    var form = el("form", "lt-quiz");
    form.setAttribute("data-question", index);
    form.setAttribute("aria-labelledby", id + "-prompt");
    form.innerHTML = "<h3>Predict before you see it</h3><p class=\"lt-quiz-prompt\" id=\"" + id + "-prompt\">" +
      escapeHtml(q.prompt) + "</p><label for=\"" + id + "-input\">Your answer</label> <input id=\"" + id +
      "-input\" class=\"lt-quiz-input\" type=\"text\" autocomplete=\"off\" spellcheck=\"false\" aria-describedby=\"" + id +
      "-hint\"> <button type=\"submit\" class=\"lt-v-btn lt-quiz-check\">Check</button>" +
      (q.choices.length ? "<fieldset class=\"lt-quiz-choices\"><legend>or pick one</legend>" + q.choices.map(function (c) {
        return "<button type=\"button\" class=\"lt-v-btn lt-quiz-choice\">" + escapeHtml(c) + "</button>";
      }).join(" ") + "</fieldset>" : "") +
      "<p class=\"lt-quiz-hint\" id=\"" + id + "-hint\">Type " + QUIZ_HINTS[q.accept.kind] +
      "; <kbd>Enter</kbd> checks, <kbd>Esc</kbd> skips.</p>";
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var right = quizCheck(q.accept, form.querySelector("input").value);
      if (right === null) {
        form.querySelector(".lt-quiz-hint").textContent = "Could not read that: type " + QUIZ_HINTS[q.accept.kind] + ", or Esc to skip.";
        return;
      }
      self.quizAnswer(right ? "right" : "wrong");
    });
    form.addEventListener("click", function (event) {
      var choice = event.target.closest && event.target.closest(".lt-quiz-choice");
      if (choice) self.quizAnswer(choice.textContent === q.answer ? "right" : "wrong");
    });
    var side = this.errorEl.parentNode;
    side.insertBefore(form, side.firstChild);
    side.scrollTop = 0;
    this.quizEl = form;
    this.quizOpen = index;
    this.quizStepShown = q.step;
    this.quizFocus = document.activeElement;
    // hide what would give the answer away: the asked value's card, a line's FLOPs, else (a
    // collective's bytes) the whole panel; the values that lead to it stay in view
    var card = q.name && this.cards.get(q.name);
    this.quizHidden = card ? card.el : q.fact === "flops" ? this.computeEl : null;
    if (this.quizHidden) this.quizHidden.classList.add("lt-quiz-hidden");
    else this.rootEl.classList.add("lt-quiz-asking");
    form.querySelector("input").focus();
  };

  // Close the open question with an outcome: record it, reveal the values, say why, focus back.
  Viewer.prototype.quizAnswer = function (outcome) {
    var index = this.quizOpen, q = this.data.quiz[index], lecture = this.data.lecture.name;
    if (index == null) return;
    this.quizDone.add(index);
    var score = quizScore(lecture);
    score.answers[q.step] = outcome;
    quizSave(lecture, score);
    updateQuizScore(this, lecture);
    var feedback = el("div", "lt-quiz-feedback");
    feedback.setAttribute("role", "status");
    feedback.setAttribute("data-result", outcome);
    feedback.innerHTML = "<b>" + { right: "Right.", wrong: "Not quite.", skipped: "Skipped." }[outcome] + "</b> " +
      "<span class=\"lt-quiz-said\">" + escapeHtml(q.prompt) + "</span> The trace recorded <strong class=\"lt-quiz-answer\">" +
      escapeHtml(q.answer) + "</strong>." + (q.reason ? " <span class=\"lt-quiz-reason\">" + escapeHtml(q.reason) + "</span>" : "");
    var form = this.quizEl;
    form.parentNode.insertBefore(feedback, form);
    form.remove();
    this.quizEl = feedback;
    this.quizOpen = null;
    this.quizReveal();
    var back = this.quizFocus;
    this.quizFocus = null;
    if (back && back !== document.body && document.contains(back)) back.focus();
    else if (document.activeElement) document.activeElement.blur();
  };

  // While a question is open the keys are its own: Esc skips, typing goes to the answer.
  Viewer.prototype.quizKey = function (event) {
    if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      this.quizAnswer("skipped");
    } else if (event.key.length === 1 || /^Arrow|^Home$|^End$/.test(event.key)) {
      event.stopPropagation();  // not a step key, and not the theme's shortcuts
    }
  };

  // The lecture page's score line (read mode): right of answered, skipped, and a reset.
  function updateQuizScore(viewer, lecture) {
    var box = host.querySelector(".lt-quiz-score");
    if (!box) return;
    var tally = quizTally(quizScore(lecture)), answered = tally.right + tally.wrong;
    var text = box.querySelector(".lt-quiz-tally");
    text.textContent = answered || tally.skipped ?
      "Quiz: " + tally.right + " right of " + answered + " answered" + (tally.skipped ? ", " + tally.skipped + " skipped" : "") +
      " (" + questionCount(viewer.data.quiz.length) + ")" :
      "Quiz mode asks " + questionCount(viewer.data.quiz.length) + " (q in step mode).";
    box.querySelector(".lt-quiz-reset").hidden = !(answered || tally.skipped);
  }

  function questionCount(n) {
    return n + (n === 1 ? " question" : " questions");
  }

  function mountQuizScore(viewer) {
    var lecture = viewer.data.lecture.name;
    var box = el("span", "lt-quiz-score");
    box.innerHTML = "<button type=\"button\" class=\"md-button lt-quiz-enter\">Quiz me</button> " +
      "<span class=\"lt-quiz-tally\" role=\"status\"></span> " +
      "<button type=\"button\" class=\"lt-v-btn lt-quiz-reset\">Reset score</button>";
    host.appendChild(box);
    box.querySelector(".lt-quiz-enter").addEventListener("click", function () {
      viewer.go(viewer.cur >= 0 ? viewer.cur : viewer.firstVisible());
      viewer.setQuiz(true);
      viewer.writeUrl(false);
    });
    box.querySelector(".lt-quiz-reset").addEventListener("click", function () {
      quizSave(lecture, null);
      if (viewer.quizDone) viewer.quizDone.clear();
      updateQuizScore(viewer, lecture);
    });
    updateQuizScore(viewer, lecture);
  }

  window.CHALKTRACE_QUIZ = { parse: quizParse, check: quizCheck, questionCount: questionCount };

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
    var viewer = new Viewer(data, host.getAttribute("data-root"));
    window.CHALKTRACE_VIEWER = viewer;
    host.hidden = false;
    host.querySelector(".lt-step-enter").addEventListener("click", function () {
      viewer.go(viewer.cur >= 0 ? viewer.cur : viewer.firstVisible());
    });
    if (data.quiz && data.quiz.length) mountQuizScore(viewer);
    window.addEventListener("keydown", function (event) { viewer.onKey(event); }, true);
    window.addEventListener("popstate", function () { viewer.syncFromUrl(); });
    window.addEventListener("hashchange", function () { viewer.syncFromUrl(); });
    viewer.listen();
    viewer.syncFromUrl();
    window.CHALKTRACE_READY = performance.now();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
