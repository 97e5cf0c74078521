/* chalktrace read mode: what a lecture page does without step mode.

   Independent pieces, each a no-op on pages without its elements: lazy annotation bodies put in
   place as they near the viewport, every card expanded for printing, cell labels of heatmaps and
   rounded value grids (by mouse and by keyboard, exact values from exact.js where the page has no
   copy) and the memory chart's arrow keys.
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

// Value grids that scroll sideways take one Tab stop each, so a keyboard reaches what is off to the
// right (arrow keys scroll a focused box); a grid that fits, or holds its own focusable grid, takes
// none. Asked again when lazy bodies arrive and when the window is resized.
(function () {
  "use strict";
  var read = document.querySelector(".lt-read");
  if (!read) return;
  var FOCUSABLE = "a[href], button, input, select, textarea, [tabindex]";
  function mark() {
    read.querySelectorAll(".lt-values").forEach(function (box) {
      var ours = box.hasAttribute("data-lt-scroll-stop");
      var scrolls = box.scrollWidth > box.clientWidth + 1;
      if (scrolls && !ours && !box.hasAttribute("tabindex") && !box.querySelector(FOCUSABLE)) {
        box.setAttribute("tabindex", "0");
        box.setAttribute("data-lt-scroll-stop", "");
      } else if (!scrolls && ours) {
        box.removeAttribute("tabindex");
        box.removeAttribute("data-lt-scroll-stop");
      }
    });
  }
  var queued = false;
  function later() {
    if (queued) return;
    queued = true;
    requestAnimationFrame(function () { queued = false; mark(); });
  }
  mark();
  new MutationObserver(later).observe(read, { childList: true, subtree: true });
  window.addEventListener("resize", later);
})();

// Printing: a handout shows every card expanded. Closed <details> (a repr, a chart's spec, the memory
// timeline) open for printing and close again afterwards; a folded value grid stays folded (site.css
// hides its rest on paper), its summary ("120 more rows") the handout's note of what the page holds.
(function () {
  "use strict";
  var opened = [];
  window.addEventListener("beforeprint", function () {
    opened = Array.prototype.filter.call(document.querySelectorAll(".md-content details:not([open]):not(.lt-memory-table):not(.lt-fold)"), function (d) {
      d.open = true;
      return true;
    });
  });
  window.addEventListener("afterprint", function () {
    opened.forEach(function (d) { d.open = false; });
    opened = [];
  });
})();

// Cell labels (cards.html.j2): hovering a cell of a heatmap or of a rounded value grid shows its index
// and value, and the keyboard gets the same: each takes focus, the arrow keys (Home/End) move a cell
// cursor, and the label is shown at the cell and read out (a polite live region). Values come from the
// value grid (a heatmap's sits right beside it), so the page carries no second copy for this; a
// rounded grid's exact values come from its exact copy (the disclosure after it) or, on a read page
// whose size is budgeted, from exact.js beside the page, loaded on first need (data-exact).
// Indices are the tensor's: rows and columns elided from the preview ("…") are counted from its shape.
(function () {
  "use strict";
  var tip = null, box = null, shown = null, exactLoad = null, exactParsed = {}, parsed = new WeakMap(), widths = new WeakMap();
  function expand(runs) {
    var out = [];
    runs.split(",").forEach(function (run) {
      if (run === "") return out.push(null);
      var ends = run.split("-").map(Number);
      for (var k = ends[0]; k <= ends[ends.length - 1]; k++) out.push(k);
    });
    return out;
  }
  function isWhole(hm) { return hm.parentNode && hm.parentNode.classList && hm.parentNode.classList.contains("lt-hm-whole"); }
  // A grid's text as rows of cells: tab-separated (cards.tab_grid_view) or --lt-col characters a cell.
  function rowsOf(pre) {
    var rows = parsed.get(pre);
    if (rows) return rows;
    var lines = pre.textContent.split("\n");
    if (pre.classList.contains("lt-tabs")) {
      rows = lines.map(function (line) { return line.split("\t").map(function (cell) { return cell.trim(); }); });
    } else {
      var width = parseInt(pre.style.getPropertyValue("--lt-col"), 10) || 1;
      rows = lines.map(function (line) {
        var row = [];
        for (var k = 0; k < line.length; k += width) row.push(line.substr(k, width).trim());
        return row;
      });
    }
    parsed.set(pre, rows);
    return rows;
  }
  // A folded grid (cards.html.j2): the rows shown, then a heatmap, then details.lt-fold holding the
  // rest (pre.lt-grid-more). Labels, exact copies and heatmaps count in the whole grid's rows.
  function after(pre) {  // the next sibling past the grid's heatmap
    var next = pre.nextElementSibling;
    while (next && (next.classList.contains("lt-hm") || next.classList.contains("lt-hm-whole"))) next = next.nextElementSibling;
    return next;
  }
  function headOf(pre) {
    if (!pre.classList.contains("lt-grid-more")) return pre;
    var head = pre.parentNode.previousElementSibling;
    while (head && !head.classList.contains("lt-grid")) head = head.previousElementSibling;
    return head || pre;
  }
  function allRows(head) {
    var next = after(head), more = next && next.classList.contains("lt-fold") ? next.querySelector("pre.lt-grid-more") : null;
    return more ? rowsOf(head).concat(rowsOf(more)) : rowsOf(head);
  }
  // The grid's exact copy as rows, null when it has none, or "loading" while exact.js loads.
  function exactRows(pre) {
    if (!pre.classList.contains("lt-rounded")) return null;
    var next = after(pre);
    if (next && next.classList.contains("lt-fold")) next = next.nextElementSibling;
    if (next && next.classList.contains("lt-exact")) return rowsOf(next.querySelector("pre"));
    var ref = pre.getAttribute("data-exact");
    if (ref === null) return null;
    var table = window.CHALKTRACE_EXACT;
    if (table) {
      if (!exactParsed[ref]) exactParsed[ref] = table[+ref] ? table[+ref].split("\n").map(function (line) { return line.split("\t"); }) : [];
      return exactParsed[ref].length ? exactParsed[ref] : null;
    }
    if (!exactLoad) {
      exactLoad = document.createElement("script");
      exactLoad.src = "exact.js";  // beside the page (mkdocs_plugin.py writes it)
      exactLoad.onload = function () { if (shown) shown(); };
      exactLoad.onerror = function () { window.CHALKTRACE_EXACT = []; if (shown) shown(); };
      document.head.appendChild(exactLoad);
    }
    return "loading";
  }
  // The tensor index of grid row r, column c: the preview keeps each dimension's two ends around a
  // "…", so a position after it counts back from the dimension's size (the card's shape).
  function shapeOf(pre) {
    var whole = pre.parentNode && pre.parentNode.querySelector(".lt-hm-whole[data-shape]");
    if (whole) return whole.getAttribute("data-shape").split(",").map(Number);
    var card = pre.closest(".lt-card");
    var dt = card && Array.prototype.find.call(card.querySelectorAll("dl.lt-anatomy > dt"), function (d) { return d.textContent === "shape"; });
    var dims = dt && dt.nextElementSibling ? dt.nextElementSibling.textContent.match(/\d+/g) : null;
    return dims ? dims.map(Number) : null;
  }
  function indexOf(pre, rows, r, c) {
    var hm = pre.nextElementSibling && pre.nextElementSibling.classList.contains("lt-hm") ? pre.nextElementSibling : null;
    var ri = r, ci = c;
    if (hm && hm.dataset.r) return [expand(hm.dataset.r)[r], expand(hm.dataset.c)[c]];
    var shape = shapeOf(pre) || [], gapRow = rows.findIndex(function (row) { return row.length === 1 && row[0] === "\u2026"; });
    var gapCol = rows[r].indexOf("\u2026");
    if (rows.length === 1 && shape.length) {  // one row: a vector (or a 0-d value)
      var n = shape[shape.length - 1];
      return [gapCol >= 0 && c > gapCol ? n - (rows[0].length - c) : c];
    }
    if (gapRow >= 0 && r > gapRow && shape.length >= 2) ri = shape[shape.length - 2] - (rows.length - r);
    if (gapCol >= 0 && c > gapCol && shape.length >= 1) ci = shape[shape.length - 1] - (rows[r].length - c);
    return [ri, ci];
  }
  function prefix(pre) {  // a slice of a higher-rank tensor: its leading indices
    var slice = pre.previousElementSibling;
    return slice && slice.classList.contains("lt-slice") ? slice.textContent.replace(/^\[/, "").replace(/:, :\]$/, "") : "";
  }
  function gridLabel(pre, r, c) {
    var head = headOf(pre);
    if (head !== pre) { r += rowsOf(head).length; pre = head; }
    var rows = allRows(pre), cell = rows[r] && rows[r][c];
    if (!cell) return null;
    if (cell === "\u2026") return "\u2026 not shown (elided)";
    var exact = exactRows(pre), value = cell;
    if (exact === "loading") value = cell + " (exact value loading\u2026)";
    else if (exact && exact[r] && exact[r][c] && exact[r][c].trim() !== cell) value = exact[r][c].trim() + " (shown as " + cell + ")";
    return "[" + prefix(pre) + indexOf(pre, rows, r, c).join(", ") + "] = " + value;
  }
  // A heatmap of the whole tensor (a cell per element, or per block): the element or block under the
  // pointer by index. Its values are not in the page (colours only), and the grid beside it is the
  // preview's corners, so no value is named. A block's rows and columns follow adaptive pooling.
  function wholeLabel(whole, r, c) {
    var shape = (whole.getAttribute("data-shape") || "").split(",").map(Number);
    var cells = (whole.getAttribute("data-cells") || "").split(",").map(Number);
    function span(i, n, size) {
      var first = Math.floor(i * size / n), last = Math.ceil((i + 1) * size / n) - 1;
      return first === last ? String(first) : first + "\u2013" + last;
    }
    return "[" + span(r, cells[0], shape[0]) + ", " + span(c, cells[1], shape[1]) + "]";
  }
  function gridOf(hm) {
    var pre = hm.previousElementSibling;
    return pre && pre.classList.contains("lt-grid") ? pre : null;
  }
  function heatmapLabel(img, r, c) {
    var hm = img.closest(".lt-hm");
    if (isWhole(hm)) return wholeLabel(hm.parentNode, r, c);
    var pre = gridOf(hm);
    if (!pre) return null;
    var label = gridLabel(pre, r, c);
    return label && label.charAt(0) === "\u2026" ? "[" + r + ", " + c + "] not shown (elided)" : label;
  }
  // The cells of a target (a heatmap image or a grid): {rows, cols, rect, w, h} (w, h: one cell, in px).
  function layout(target) {
    var rect = target.getBoundingClientRect();
    if (target.tagName === "IMG") {
      var hm = target.closest(".lt-hm"), rows, cols;
      if (isWhole(hm)) {
        var cells = (hm.parentNode.getAttribute("data-cells") || "").split(",").map(Number);
        rows = cells[0]; cols = cells[1];
        if (!rows || !cols) return null;
      } else {
        var pre = gridOf(hm);
        if (!pre) return null;
        var grid = allRows(pre);
        rows = grid.length; cols = Math.max.apply(null, grid.map(function (row) { return row.length; }));
      }
      return { rows: rows, cols: cols, rect: rect, w: rect.width / cols, h: rect.height / rows };
    }
    var grid2 = rowsOf(target), style = getComputedStyle(target);
    var width = (parseInt(target.style.getPropertyValue("--lt-col"), 10) || 1) * charWidth(target);
    return { rows: grid2.length, cols: Math.max.apply(null, grid2.map(function (row) { return row.length; })), rect: rect,
             w: width, h: parseFloat(style.lineHeight) || rect.height / grid2.length };
  }
  // One character's width in a grid, measured in the grid itself (its font, its zoom), once per grid.
  function charWidth(pre) {
    var width = widths.get(pre);
    if (width) return width;
    var probe = document.createElement("span");
    probe.textContent = "0000000000";
    probe.style.position = "absolute";
    probe.style.visibility = "hidden";
    pre.appendChild(probe);
    width = probe.getBoundingClientRect().width / 10;
    pre.removeChild(probe);
    if (width) widths.set(pre, width);
    return width || 8;
  }
  function label(target, r, c) {
    return target.tagName === "IMG" ? heatmapLabel(target, r, c) : gridLabel(target, r, c);
  }
  function show(text, x, y, near) {
    if (!tip) {
      tip = document.createElement("div");
      tip.className = "lt-hm-tip";
      tip.setAttribute("aria-live", "polite");
    }
    // beside the viewer while stepping (the rest of the page is hidden then)
    var home = (near && near.closest(".lt-viewer")) || document.body;
    if (tip.parentNode !== home) home.appendChild(tip);
    tip.textContent = text;
    tip.hidden = false;
    tip.style.left = Math.min(x, window.innerWidth - tip.offsetWidth - 4) + "px";
    tip.style.top = y + "px";
  }
  function outline(target, g, r, c) {
    if (!box) {
      box = document.createElement("div");
      box.className = "lt-cell-cursor";
    }
    var home = target.closest(".lt-viewer") || document.body;
    if (box.parentNode !== home) home.appendChild(box);
    box.hidden = false;
    box.style.left = g.rect.left + c * g.w + "px";
    box.style.top = g.rect.top + r * g.h + "px";
    box.style.width = g.w + "px";
    box.style.height = g.h + "px";
  }
  function hide() {
    shown = null;
    if (tip) tip.hidden = true;
    if (box) box.hidden = true;
  }
  function targetOf(node) {
    if (!node || !node.closest) return null;
    if (node.tagName === "IMG" && node.closest(".lt-hm")) return node;
    return node.closest("pre.lt-rounded");
  }
  document.addEventListener("mousemove", function (event) {
    var target = targetOf(event.target), g = target && layout(target);
    if (!g) return hide();
    var r = Math.floor((event.clientY - g.rect.top) / g.h), c = Math.floor((event.clientX - g.rect.left) / g.w);
    var text = r >= 0 && c >= 0 && r < g.rows && c < g.cols ? label(target, r, c) : null;
    if (!text) return hide();
    if (box) box.hidden = true;
    shown = function () { var again = label(target, r, c); if (again) show(again, event.clientX + 12, event.clientY + 14, target); };
    show(text, event.clientX + 12, event.clientY + 14, target);
  }, { passive: true });
  function showCell(target) {
    var g = layout(target);
    if (!g) return;
    var cell = (target.dataset.cell || "0,0").split(",").map(Number), r = Math.min(cell[0], g.rows - 1), c = Math.min(cell[1], g.cols - 1);
    shown = function () {
      var text = label(target, r, c) || "[" + r + ", " + c + "] not shown (elided)";
      show(text, g.rect.left + (c + 1) * g.w + 6, g.rect.top + (r + 1) * g.h + 6, target);
      outline(target, g, r, c);
    };
    shown();
  }
  document.addEventListener("focusin", function (event) { var target = targetOf(event.target); if (target && target === event.target) showCell(target); });
  document.addEventListener("focusout", function (event) { if (targetOf(event.target)) hide(); });
  document.addEventListener("keydown", function (event) {
    var target = targetOf(event.target);
    if (!target || target !== event.target || event.ctrlKey || event.metaKey || event.altKey) return;
    var g = layout(target), cell = (target.dataset.cell || "0,0").split(",").map(Number);
    if (!g) return;
    var move = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[event.key];
    if (event.key === "Home") cell = [cell[0], 0];
    else if (event.key === "End") cell = [cell[0], g.cols - 1];
    else if (move) cell = [Math.max(0, Math.min(g.rows - 1, cell[0] + move[0])), Math.max(0, Math.min(g.cols - 1, cell[1] + move[1]))];
    else if (event.key === "Escape" && shown) {  // the label goes first; a second Escape leaves step mode
      hide();
      event.stopPropagation();
      return;
    } else return;
    event.preventDefault();
    event.stopPropagation();  // the cursor's keys, not step mode's
    target.dataset.cell = cell.join(",");
    showCell(target);
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
