/* chalktrace read mode: what a lecture page does without step mode.

   Three independent pieces, each a no-op on pages without its elements: lazy annotation bodies put in
   place as they near the viewport, every card expanded for printing, and heatmap hover labels.
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

