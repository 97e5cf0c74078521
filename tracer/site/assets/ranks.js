/* chalktrace step mode for distributed traces, a plugin: follow one rank, switch ranks with a key, see all ranks.
   Active only when data.js has a `ranks` entry (tracer/site/pages/rank_viewer.py); otherwise it does nothing.
   It uses the viewer's plugin surface only (viewer-core.js): CHALKTRACE.onViewer, viewer.go, .cur,
   .data, addKeyBinding and the "chalktrace:step" event.
   Keys (step mode): [ and ] previous/next rank, 0-9 that rank, Home/End the followed rank's ends.
   Must not: read or change the viewer's internals (its controllers, fields other than cur and data). */
(function () {
  "use strict";
  var t = window.CHALKTRACE.t;
  var SVG = "http://www.w3.org/2000/svg";
  var state = null;
  var v = null;  // the viewer

  function ranks() { return v.data.ranks; }

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
    bar.setAttribute("aria-label", t("viewer.ranks.label"));
    var buttons = document.createElement("div");
    buttons.className = "lt-rankbar-ranks";
    r.segments.forEach(function (seg, k) {
      var b = document.createElement("button");
      b.type = "button";
      b.textContent = t("viewer.ranks.rank", { rank: seg[0] });
      b.setAttribute("data-rank", seg[0]);
      b.addEventListener("click", function () { switchTo(k); });
      buttons.appendChild(b);
    });
    bar.appendChild(buttons);

    var width = 1000, rowH = 14, top = 12, left = 46;
    var height = top + rowH * r.segments.length + 4;
    var svg = node("svg", { "class": "lt-rank-timeline", viewBox: "0 0 " + width + " " + height,
      preserveAspectRatio: "none", role: "img",
      "aria-label": t("viewer.ranks.timeline_label") });
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
        var text = wait === undefined ? t("viewer.ranks.time", { rank: seg[0], op: c.op, time: ms(seconds) })
          : t("viewer.ranks.waited", { rank: seg[0], op: c.op, wait: ms(wait), transfer: ms(transfer) });
        if (ww > 0) node("title", {}, node("rect", { "class": "lt-tl-wait", x: x - tw - ww, y: y, width: ww, height: 6 }, svg)).textContent = text;
        node("title", {}, node("rect", { "class": "lt-tl-transfer", x: x - tw, y: y, width: tw, height: 6 }, svg)).textContent = text;
      });
    });
    var rows = [], dots = [];
    r.segments.forEach(function (seg, k) {
      var y = top + k * rowH;
      var label = node("text", { x: 2, y: y + 3 }, svg);
      label.textContent = t("viewer.ranks.rank", { rank: seg[0] });
      rows.push(node("line", { "class": "lt-tl-row", x1: left, x2: width - 8, y1: y, y2: y }, svg));
      var hit = node("rect", { "class": "lt-tl-hit", x: 0, y: y - rowH / 2, width: width, height: rowH }, svg);
      hit.addEventListener("click", function () { switchTo(k); });
      dots.push(node("circle", { "class": "lt-tl-pos", cx: left, cy: y, r: 4 }, svg));
    });
    bar.appendChild(svg);
    var hint = document.createElement("span");
    hint.className = "lt-rankbar-hint";
    hint.textContent = t("viewer.ranks.hint");
    bar.appendChild(hint);
    document.body.appendChild(bar);
    state = { bar: bar, buttons: buttons, rows: rows, dots: dots, scale: scale, segment: 0 };
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
    var r = ranks();
    if (v.cur < 0 || k < 0 || k >= r.segments.length) return;
    v.go(r.switch[v.cur][k]);
  }

  // [ and ]: the previous/next rank, round the ranks.
  function nextRank(event) {
    var n = ranks().segments.length;
    switchTo(((state.segment || 0) + (event.key === "]" ? 1 : n - 1)) % n);
  }

  // 0-9: that rank, if the trace has it.
  function rankByDigit(event) {
    var target = ranks().segments.findIndex(function (s) { return s[0] === +event.key; });
    if (target >= 0) switchTo(target);
  }

  // Home/End: the ends of the followed rank's timeline, not of the whole trace.
  function rankEnd(event) {
    var s = ranks().segments[state.segment || 0];
    v.go(event.key === "Home" ? s[1] : s[2] - 1);
  }

  function attach(viewer) {
    if (!viewer.data.ranks || state) return;
    v = viewer;
    build();
    v.addKeyBinding({ keys: ["[", "]"], label: "[ / ]", help: t("viewer.ranks.key_next") }, nextRank);
    v.addKeyBinding({ keys: ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"], label: "0\u20139", help: t("viewer.ranks.key_digit") }, rankByDigit);
    v.addKeyBinding({ keys: ["Home"], help: t("viewer.ranks.key_first") }, rankEnd);
    v.addKeyBinding({ keys: ["End"], help: t("viewer.ranks.key_last") }, rankEnd);
    document.addEventListener("chalktrace:step", function (event) { update(event.detail.step); });
    if (v.cur >= 0) {
      // the bar took room from the viewer after it had scrolled: bring its current line back
      var line = document.querySelector(".lt-viewer .lt-sline.lt-current");
      if (line) line.scrollIntoView({ block: "center" });
      update(v.cur);
    }
  }

  window.CHALKTRACE.onViewer(attach);
})();
