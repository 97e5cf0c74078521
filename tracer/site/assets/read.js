/* chalktrace read mode: what a lecture page does without step mode.

   Independent pieces, each a no-op on pages without its elements: lazy annotation bodies put in
   place as they near the viewport, every card expanded for printing, heatmap cell labels (by mouse
   and by keyboard) and the memory chart's arrow keys.
   Must not: touch step mode (viewer-*.js) or read the step data (data.js); a page without data.js
   still gets all of this. */

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
    opened = Array.prototype.filter.call(document.querySelectorAll(".md-content details:not([open]):not(.lt-memory-table)"), function (d) {
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
// The keyboard gets the same: a heatmap takes focus, the arrow keys (Home/End) move a cell cursor, and
// the label is shown at the cell and read out (a polite live region).
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
  // A heatmap of the whole tensor (a cell per element, or per block): the element or block under the
  // pointer by index. Its values are not in the page (colours only), and the grid beside it is the
  // preview's corners, so no value is named. A block's rows and columns follow adaptive pooling.
  function describeWhole(whole, img, event) {
    var shape = (whole.getAttribute("data-shape") || "").split(",").map(Number);
    var cells = (whole.getAttribute("data-cells") || "").split(",").map(Number);
    if (shape.length !== 2 || cells.length !== 2 || !cells[0] || !cells[1]) return null;
    var rect = img.getBoundingClientRect();
    var r = Math.floor((event.clientY - rect.top) / rect.height * cells[0]);
    var c = Math.floor((event.clientX - rect.left) / rect.width * cells[1]);
    if (r < 0 || c < 0 || r >= cells[0] || c >= cells[1]) return null;
    function span(i, n, size) {
      var first = Math.floor(i * size / n), last = Math.ceil((i + 1) * size / n) - 1;
      return first === last ? String(first) : first + "\u2013" + last;
    }
    return "[" + span(r, cells[0], shape[0]) + ", " + span(c, cells[1], shape[1]) + "]";
  }
  function shape(box) {
    var grid = box.previousElementSibling;
    if (!grid || !grid.classList.contains("lt-grid")) return null;
    var lines = grid.textContent.split("\n"), width = parseInt(grid.style.getPropertyValue("--lt-col"), 10) || 1;
    var cols = Math.max.apply(null, lines.map(function (l) { return Math.round(l.length / width); }));
    return { grid: grid, lines: lines, rows: lines.length, cols: cols, width: width };
  }
  function label(box, g, r, c) {
    if (r < 0 || c < 0 || r >= g.rows || c >= g.cols) return null;
    var text = g.lines[r].substr(c * g.width, g.width).trim();
    if (!text || text === "\u2026") return null;
    var ri = box.dataset.r ? expand(box.dataset.r)[r] : r, ci = box.dataset.c ? expand(box.dataset.c)[c] : c;
    var slice = g.grid.previousElementSibling, prefix = "";
    if (slice && slice.classList.contains("lt-slice")) prefix = slice.textContent.replace(/^\[/, "").replace(/:, :\]$/, "");
    return "[" + prefix + ri + ", " + ci + "] = " + text;
  }
  function show(text, x, y, near) {
    if (!tip) {
      tip = document.createElement("div");
      tip.className = "lt-hm-tip";
      tip.setAttribute("aria-live", "polite");
    }
    // beside the heatmap's viewer while stepping (the rest of the page is hidden then)
    var home = (near && near.closest(".lt-viewer")) || document.body;
    if (tip.parentNode !== home) home.appendChild(tip);
    tip.textContent = text;
    tip.hidden = false;
    tip.style.left = x + "px";
    tip.style.top = y + "px";
  }
  function hide() { if (tip) tip.hidden = true; }
  document.addEventListener("mousemove", function (event) {
    var box = event.target.closest && event.target.tagName === "IMG" && event.target.closest(".lt-hm");
    var text = null, rect = box ? event.target.getBoundingClientRect() : null;
    if (box && box.parentNode && box.parentNode.classList && box.parentNode.classList.contains("lt-hm-whole")) {
      text = describeWhole(box.parentNode, event.target, event);
    } else {
      var g = box ? shape(box) : null;
      if (g) text = label(box, g, Math.floor((event.clientY - rect.top) / rect.height * g.rows),
                          Math.floor((event.clientX - rect.left) / rect.width * g.cols));
    }
    if (!text) return hide();
    show(text, event.clientX + 12, event.clientY + 14, box);
  }, { passive: true });
  function showCell(img) {
    var box = img.closest(".lt-hm"), g = shape(box), cell = (img.dataset.cell || "0,0").split(",").map(Number);
    if (!g) return;
    var rect = img.getBoundingClientRect(), r = Math.min(cell[0], g.rows - 1), c = Math.min(cell[1], g.cols - 1);
    var text = label(box, g, r, c) || "[" + r + ", " + c + "] not shown (elided)";
    show(text, rect.left + (c + 1) * rect.width / g.cols + 6, rect.top + (r + 1) * rect.height / g.rows + 6, box);
  }
  function heatmapImg(target) { return target && target.tagName === "IMG" && target.closest && target.closest(".lt-hm") ? target : null; }
  document.addEventListener("focusin", function (event) { if (heatmapImg(event.target)) showCell(event.target); });
  document.addEventListener("focusout", function (event) { if (heatmapImg(event.target)) hide(); });
  document.addEventListener("keydown", function (event) {
    var img = heatmapImg(event.target);
    if (!img || event.ctrlKey || event.metaKey || event.altKey) return;
    var g = shape(img.closest(".lt-hm")), cell = (img.dataset.cell || "0,0").split(",").map(Number);
    if (!g) return;
    var move = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[event.key];
    if (event.key === "Home") cell = [cell[0], 0];
    else if (event.key === "End") cell = [cell[0], g.cols - 1];
    else if (move) cell = [Math.max(0, Math.min(g.rows - 1, cell[0] + move[0])), Math.max(0, Math.min(g.cols - 1, cell[1] + move[1]))];
    else if (event.key === "Escape") { hide(); return; }
    else return;
    event.preventDefault();
    event.stopPropagation();  // the cursor's keys, not step mode's
    img.dataset.cell = cell.join(",");
    showCell(img);
  }, true);
})();

// A line number is its line's anchor without a link (page_parts.html.j2): a click puts it in the address bar.
document.addEventListener("click", function (event) {
  var number = event.target.closest && event.target.closest(".lt-read .lt-ln[id]");
  if (number && !number.hasAttribute("href")) location.hash = number.id;
});

// The memory chart's points are one Tab stop (memory_chart.html.j2): the arrow keys, Home and End
// move focus between them (a roving tabindex), Enter follows the focused point's link.
(function () {
  "use strict";
  document.addEventListener("keydown", function (event) {
    var point = event.target.closest && event.target.closest(".lt-memory-point");
    if (!point || event.ctrlKey || event.metaKey || event.altKey) return;
    var points = Array.prototype.slice.call(point.ownerSVGElement.querySelectorAll(".lt-memory-point"));
    var at = points.indexOf(point), to = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1,
                                            Home: 0, End: points.length - 1 }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    to = Math.max(0, Math.min(points.length - 1, to));
    point.setAttribute("tabindex", "-1");
    points[to].setAttribute("tabindex", "0");
    points[to].focus();
  });
})();
