/* chalktrace step mode, the code panel: the lecture's files, the current line, renderings, raw and reveal.

   One box per file, built the first time a step lands in it; a step updates only what changed (the
   current line, renderings whose run changed, lines revealed). Owns the raw mode (r: renderings off)
   and the reveal mode (a: lines appear as they run). Clicking a line number goes to that line's next
   run; a link(function) card goes into that function.
   Must not: move on its own (it asks the core to `go`), or decide present mode's scrolling (it asks
   the present controller where to put the line while presenting). */
(function () {
  "use strict";
  var t = window.CHALKTRACE.t, el = window.CHALKTRACE.el;
  var CHUNK_LINES = 40;
  var LEADING_SPACES = /^ */;
  var ATTRIBUTE_DOT = /\.(?=[A-Za-z_])/g;  // highlighted code has no dots in its markup, only in its text

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

  function Code(v) {
    var self = this;
    this.v = v;
    this.files = [];            // per file: {box, lines: [el by line], rlines: [line], shown, future, revealed}
    this.fileShown = -1;
    this.currentEl = null;
    this.raw = false;
    this.reveal = false;
    this.pathEl = null;
    this.linesEl = null;
    v.addMode("raw", { get: function () { return self.raw; }, set: function (on) { self.setRaw(on); } });
    v.addMode("reveal", { get: function () { return self.reveal; }, set: function (on) { self.setReveal(on); } });
    v.addCommand("raw", function () { v.toggle("raw"); });
    v.addCommand("reveal", function () { v.toggle("reveal"); });
  }

  Code.prototype.build = function (layout) {
    var self = this, v = this.v;
    this.pathEl = layout.code.appendChild(el("div", "lt-v-path"));
    // the keyboard's way to what a click on a line number does (g focuses it)
    var form = layout.code.appendChild(el("form", "lt-v-goto",
      "<label>" + t.html("viewer.code.goto_label") + " <input type=\"text\" inputmode=\"numeric\" size=\"4\" autocomplete=\"off\"></label>"));
    this.gotoInput = form.querySelector("input");
    this.gotoInput.title = t("viewer.code.goto_title");
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var line = parseInt(self.gotoInput.value, 10), target = line > 0 ? self.nextRunOf(self.fileShown, line) : null;
      if (target === null) return v.controllers.announce && v.controllers.announce.say(t("viewer.code.not_run", { line: self.gotoInput.value }));
      self.gotoInput.value = "";
      v.rootEl.focus({ preventScroll: true });
      v.go(target);
    });
    v.addCommand("goto", function () { self.gotoInput.focus(); }, { button: false });
    // the code panel scrolls: reachable and named for the keyboard and a screen reader
    this.linesEl = layout.code.appendChild(el("div", "lt-v-lines"));
    this.linesEl.tabIndex = 0;
    this.linesEl.setAttribute("role", "region");
    this.linesEl.setAttribute("aria-label", t("viewer.code.label"));
    this.linesEl.addEventListener("click", function (event) {
      var link = event.target.closest && event.target.closest("a.lt-internal");
      if (link) return self.followInternal(event, link);
      // the line number is the line's ::before, so a click on it lands on the line itself, left of its code
      var line = event.target;
      if (line.classList && line.classList.contains("lt-sline") &&
          event.clientX - line.getBoundingClientRect().left < parseFloat(getComputedStyle(line).paddingLeft)) {
        v.go(self.nextRunOf(self.fileShown, +line.getAttribute("data-line")));
      }
    });
  };

  // The code of file f, built once, in one parse with the renderings shown at `step` (filling them
  // in one by one afterwards would parse each separately).
  Code.prototype.fileBox = function (f, step) {
    if (this.files[f]) return this.files[f];
    var file = this.v.data.files[f];
    var hidden = new Set(file.hidden);
    var rendered = this.v.data.line_renderings[f];
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
      // a long line wraps, its continuation indented past the line's own indent (viewer.css)
      var text = file.lines[line - 1] || " ", indent = LEADING_SPACES.exec(text)[0].length;
      if (text.indexOf(".") >= 0) text = text.replace(ATTRIBUTE_DOT, ".<wbr>");  // a.b.c may wrap at its dots
      parts.push("<div class=\"" + cls + "\" data-line=\"" + line + "\"><code class=\"lt-scode\"" +
        (indent ? " style=\"--ind:" + indent + "\"" : "") + ">" + text + "</code>" + body + "</div>");
    }
    if (parts.length) parts.push("</div>");
    var box = el("div", "lt-v-file highlight", parts.join(""));
    box.hidden = true;
    var lines = [];
    var nodes = box.querySelectorAll(".lt-sline");
    for (var i = 0; i < nodes.length; i++) lines[+nodes[i].getAttribute("data-line")] = nodes[i];
    var rlines = Object.keys(rendered).map(Number);
    this.linesEl.appendChild(box);
    requestAnimationFrame(function () { setTimeout(function () { box.classList.add("lt-v-measured"); }, 0); });
    this.files[f] = { box: box, lines: lines, rlines: rlines, shown: shown, future: future, revealed: [], reachable: [],
                      lineCount: file.lines.length };
    return this.files[f];
  };

  // Links and disclosures in renderings are Tab stops only in the current section's renderings that
  // have run: the panel holds the whole file, and a Tab to a link 800 lines away would scroll the
  // current line out of view (and put two dozen stops between the code and the values).
  var RENDERING_STOPS = "a[href], summary";

  Code.prototype.updateRenderings = function (fb, f, step) {
    var rendered = this.v.data.line_renderings[f], section = this.v.s.section;
    for (var i = 0; i < fb.rlines.length; i++) {
      var line = fb.rlines[i], run = pickRun(rendered[line], step), pick = run[0], future = run[1];
      var runs = rendered[line], node = fb.lines[line];
      if (!node) continue;
      if (fb.shown[line] !== pick) {  // a jump flips many lines' "future" state, few lines' content
        fb.shown[line] = pick;
        node.lastElementChild.innerHTML = this.renderingHtml(runs[pick][1]);
        fb.reachable[line] = undefined;
      }
      if (fb.future[line] !== future) {
        fb.future[line] = future;
        node.classList.toggle("lt-future", future);
      }
      var reachable = !future && section[runs[pick][0]] === section[step];
      if (fb.reachable[line] !== reachable) {
        fb.reachable[line] = reachable;
        var stops = node.lastElementChild.querySelectorAll(RENDERING_STOPS);
        for (var k = 0; k < stops.length; k++) {
          if (reachable) stops[k].removeAttribute("tabindex");
          else stops[k].setAttribute("tabindex", "-1");
        }
      }
    }
  };

  Code.prototype.renderingHtml = function (indices) {
    var html = "", renderings = this.v.data.renderings;
    for (var i = 0; i < indices.length; i++) html += this.v.withRoot(renderings[indices[i]]);
    return html;
  };

  Code.prototype.updateReveal = function (fb, f, step) {
    var reveal = this.v.data.files[f].reveal;
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

  // Draw `step` (DOM writes only); true when the panel should put the line in place (a new file, or first).
  Code.prototype.show = function (step, first) {
    var s = this.v.s, d = this.v.data, f = s.file[step];
    var fb = this.fileBox(f, step), moved = first || this.fileShown !== f;
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
    return moved;
  };

  Code.prototype.scrollToCurrent = function (always) {
    if (this.currentEl) this.scrollTo(this.currentEl, always);
  };

  // Keep the current line in view; when it leaves the middle part (or on a new file), put it a
  // third of the way down so the code leading to it stays visible. Reads offsets within the code
  // panel once, after all of this step's DOM writes, and writes
  // scrollTop only when the line is out of the comfortable band: one layout per step, no more.
  Code.prototype.scrollTo = function (line, always) {
    var box = this.linesEl, height = box.clientHeight, top = box.scrollTop, lineTop = 0;
    // a line's offsetParent is its chunk (content-visibility contains layout), the chunk's the panel
    for (var node = line; node && node !== box; node = node.offsetParent) lineTop += node.offsetTop;
    var lineBottom = lineTop + line.offsetHeight;
    var present = this.v.controllers.present;
    if (present && present.on) return present.place(box, lineTop, lineBottom, always);
    var margin = Math.min(80, height / 4);
    if (always || lineTop < top + margin || lineBottom > top + height - margin) {
      box.scrollTop = lineTop - height / 3;
    }
  };

  // The next step (after the current one, wrapping around) that starts a run of ``line`` in file f;
  // the completion step of a line that called into code belongs to the run its call step started.
  Code.prototype.nextRunOf = function (f, line) {
    var s = this.v.s, count = this.v.count, cur = this.v.cur;
    for (var i = 1; i <= count; i++) {
      var k = (cur + i) % count, before = s.act_prev[k];
      if (s.file[k] !== f || s.line[k] !== line || !s.visible[k]) continue;
      if (before >= 0 && s.call[before] && s.line[before] === line && s.file[before] === f) continue;
      return k;
    }
    return null;
  };

  // A link(function) card: go to the first step inside that function, else read mode's anchor.
  Code.prototype.followInternal = function (event, link) {
    var path = link.getAttribute("data-path"), line = +link.getAttribute("data-line"), v = this.v, s = v.s, d = v.data;
    var name = link.textContent.trim();
    var f = d.files.findIndex(function (file) { return file.path === path; });
    for (var k = 0; f >= 0 && k < v.count; k++) {
      if (s.file[k] === f && s.line[k] > line && d.functions[s.fn[k]] === name && s.visible[k]) {
        event.preventDefault();
        v.go(k);
        return;
      }
    }
  };

  Code.prototype.setRaw = function (on) {
    this.raw = on;
    this.v.rootEl.classList.toggle("lt-raw", on);
    this.scrollToCurrent();
    this.v.controllers.values.follow();
  };

  Code.prototype.setReveal = function (on) {
    this.reveal = on;
    var f = this.fileShown;
    if (f >= 0) this.updateReveal(this.files[f], f, this.v.cur);
    this.scrollToCurrent();
  };

  window.CHALKTRACE.controller("code", Code);
})();
