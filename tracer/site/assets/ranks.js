/* chalktrace step mode for distributed traces: follow one rank, switch ranks with a key, see all ranks.
   Active only when data.js has a `ranks` entry (tracer/site/rank_viewer.py); otherwise it does nothing.
   It relies on the viewer's public surface only: window.CHALKTRACE_VIEWER.cur and .go(step).
   Keys (step mode): [ and ] previous/next rank, 0-9 that rank, Home/End the followed rank's ends. */
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";
  var state = null;

  function ranks() { var d = window.CHALKTRACE_DATA; return d && d.ranks ? d.ranks : null; }
  function viewer() { return window.CHALKTRACE_VIEWER || null; }
  function stepping() { return document.documentElement.classList.contains("lt-stepping"); }

  function segmentOf(step) {
    var segs = ranks().segments;
    for (var k = 0; k < segs.length; k++) if (step >= segs[k][1] && step < segs[k][2]) return k;
    return 0;
  }

  function node(tag, attrs, parent) {
    var el = document.createElementNS(SVG, tag);
    for (var key in attrs) el.setAttribute(key, attrs[key]);
    if (parent) parent.appendChild(el);
    return el;
  }

  function build() {
    var r = ranks();
    document.documentElement.classList.add("lt-has-ranks");
    var bar = document.createElement("div");
    bar.className = "lt-rankbar";
    bar.setAttribute("role", "group");
    bar.setAttribute("aria-label", "ranks");
    var buttons = document.createElement("div");
    buttons.className = "lt-rankbar-ranks";
    r.segments.forEach(function (seg, k) {
      var b = document.createElement("button");
      b.type = "button";
      b.textContent = "rank " + seg[0];
      b.setAttribute("data-rank", seg[0]);
      b.addEventListener("click", function () { switchTo(k); });
      buttons.appendChild(b);
    });
    bar.appendChild(buttons);

    var width = 1000, rowH = 14, top = 12, left = 46;
    var height = top + rowH * r.segments.length + 4;
    var svg = node("svg", { "class": "lt-rank-timeline", viewBox: "0 0 " + width + " " + height,
      preserveAspectRatio: "none", role: "img",
      "aria-label": "every rank's position; dashed lines are collectives; before each, outlined bars the time a rank waited for the last to enter, solid bars its transfer" });
    var scale = function (x) { return left + (width - left - 8) * x / r.width; };
    r.collectives.forEach(function (c) {
      var x = scale(c.x);
      node("line", { "class": "lt-tl-coll", x1: x, x2: x, y1: top - 4, y2: height }, svg);
      var label = node("text", { x: x + 2, y: 9 }, svg);
      label.textContent = c.op;
      var slowest = 0;
      for (var key in c.seconds) slowest = Math.max(slowest, c.seconds[key]);
      // each rank's time in the call ends at the collective's line: first its wait for the last rank
      // to enter (outlined), then the transfer (solid); without a split the whole time is one bar
      r.segments.forEach(function (seg, k) {
        var seconds = c.seconds[seg[0]];
        if (seconds === undefined || !slowest) return;
        var unit = (scale(1) - scale(0)) * 0.8 / slowest, y = top + k * rowH - 3;
        var wait = c.wait ? c.wait[seg[0]] : undefined;
        var transfer = wait === undefined ? seconds : seconds - wait;
        var tw = Math.max(1, unit * transfer), ww = wait === undefined ? 0 : unit * wait;
        var ms = function (s) { return (s * 1000).toFixed(3) + " ms"; };
        var text = "rank " + seg[0] + " in " + c.op + ": " + (wait === undefined ? ms(seconds)
          : "waited " + ms(wait) + " for the last rank, then " + ms(transfer) + " transfer");
        if (ww > 0) node("title", {}, node("rect", { "class": "lt-tl-wait", x: x - tw - ww, y: y, width: ww, height: 6 }, svg)).textContent = text;
        node("title", {}, node("rect", { "class": "lt-tl-transfer", x: x - tw, y: y, width: tw, height: 6 }, svg)).textContent = text;
      });
    });
    var rows = [], dots = [];
    r.segments.forEach(function (seg, k) {
      var y = top + k * rowH;
      var label = node("text", { x: 2, y: y + 3 }, svg);
      label.textContent = "rank " + seg[0];
      rows.push(node("line", { "class": "lt-tl-row", x1: left, x2: width - 8, y1: y, y2: y }, svg));
      var hit = node("rect", { "class": "lt-tl-hit", x: 0, y: y - rowH / 2, width: width, height: rowH }, svg);
      hit.addEventListener("click", function () { switchTo(k); });
      dots.push(node("circle", { "class": "lt-tl-pos", cx: left, cy: y, r: 4 }, svg));
    });
    bar.appendChild(svg);
    var hint = document.createElement("span");
    hint.className = "lt-rankbar-hint";
    hint.textContent = "[ ] or 0–9: switch rank";
    bar.appendChild(hint);
    document.body.appendChild(bar);
    state = { bar: bar, buttons: buttons, rows: rows, dots: dots, scale: scale, last: -1 };
  }

  function update(step) {
    var r = ranks(), seg = segmentOf(step), targets = r.switch[step];
    state.segment = seg;
    var buttons = state.buttons.children;
    for (var k = 0; k < buttons.length; k++) {
      buttons[k].setAttribute("aria-pressed", k === seg ? "true" : "false");
      state.rows[k].classList.toggle("lt-tl-current", k === seg);
      state.dots[k].classList.toggle("lt-tl-current", k === seg);
      var at = targets ? targets[k] : step;
      state.dots[k].setAttribute("cx", state.scale(r.x[at]));
    }
    document.documentElement.setAttribute("data-rank", r.segments[seg][0]);
  }

  function switchTo(k) {
    var v = viewer(), r = ranks();
    if (!v || v.cur < 0 || k < 0 || k >= r.segments.length) return;
    v.go(r.switch[v.cur][k]);
  }

  function onKey(event) {
    if (!state || !stepping() || event.ctrlKey || event.metaKey || event.altKey) return;
    var r = ranks(), v = viewer(), seg = state.segment || 0, key = event.key, target = -1;
    if (v && v.quizOpen != null) return;  // the keys type a quiz answer (viewer.js)
    if (key === "[" || key === "]") target = (seg + (key === "]" ? 1 : r.segments.length - 1)) % r.segments.length;
    else if (/^[0-9]$/.test(key)) target = r.segments.findIndex(function (s) { return s[0] === +key; });
    else if ((key === "Home" || key === "End") && v) {
      event.preventDefault();
      event.stopImmediatePropagation();  // the viewer's own Home/End would leave the rank
      var s = r.segments[seg];
      return v.go(key === "Home" ? s[1] : s[2] - 1);
    } else return;
    event.preventDefault();
    event.stopImmediatePropagation();
    if (target >= 0) switchTo(target);
  }

  // Follow the viewer's position: one integer comparison per frame, only on pages with ranks.
  function watch() {
    var v = viewer();
    if (v && v.cur >= 0 && v.cur !== state.last) {
      if (state.last < 0) {
        // the bar took room from the viewer after it had scrolled: bring its current line back
        var line = document.querySelector(".lt-viewer .lt-sline.lt-current");
        if (line) line.scrollIntoView({ block: "center" });
      }
      state.last = v.cur;
      update(v.cur);
    }
    window.requestAnimationFrame(watch);
  }

  function start() {
    if (!ranks()) {
      if (document.readyState !== "complete") window.addEventListener("load", start, { once: true });
      return;
    }
    if (state) return;
    build();
    window.requestAnimationFrame(watch);
  }

  window.addEventListener("keydown", onKey, true);  // registered before the viewer's: Home/End come here first
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
