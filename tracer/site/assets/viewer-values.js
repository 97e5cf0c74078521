/* chalktrace step mode, the side panel: the step's error, compute, variables, call stack and output.

   The variables are the frame's accumulated env (nearest snapshot plus the diffs after it, from
   data.js); each card's HTML is assembled from shared fragments once, and a card that leaves (a call
   enters another frame) is kept detached and reused when the same value comes back.
   Must not: move on its own (the stack's buttons ask the core to `go`), or know about quiz questions
   (the quiz controller hides a card through cardEl and computeEl). */
(function () {
  "use strict";
  var el = window.CHALKTRACE.el, escapeHtml = window.CHALKTRACE.escapeHtml;
  var SPARE_CARDS = 64;         // detached card elements kept for reuse (see show)

  function Values(v) {
    this.v = v;
    this.cards = new Map();     // name -> {el, card} in the variables panel
    this.cardCache = [];        // card index -> HTML, assembled from fragments on first use
    this.spareCards = new Map(); // name + " " + card index -> a card element that left the panel
    this.stackCallers = null;   // the callers' steps shown in the stack, to redraw it only when they change
  }

  Values.prototype.build = function (layout) {
    var v = this.v, side = layout.side;
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
      if (item) v.go(+item.getAttribute("data-step"));
    });
    var out = side.appendChild(el("section", "lt-v-stdout"));
    out.appendChild(el("h3", null, "Output of this step"));
    this.stdoutEl = out.appendChild(el("pre", "lt-v-out"));
    this.stderrEl = out.appendChild(el("pre", "lt-v-out lt-v-err"));
  };

  // The element of the card named `name` in the panel now, or null.
  Values.prototype.cardEl = function (name) {
    var entry = this.cards.get(name);
    return entry ? entry.el : null;
  };

  Values.prototype.show = function (step) {
    var d = this.v.data, error = d.errors[step], compute = d.compute[step], out = d.stdout[step], err = d.stderr && d.stderr[step];
    this.updateValues(step);
    this.updateStack(step);
    this.errorEl.innerHTML = error ? error : "";
    this.errorEl.hidden = !error;
    this.computeEl.innerHTML = compute ? compute : "";
    this.computeEl.hidden = !compute;
    this.stdoutEl.textContent = out || "";
    this.stdoutEl.hidden = !out;
    this.stderrEl.textContent = err || "";
    this.stderrEl.hidden = !err;
    this.stdoutEl.parentNode.hidden = !out && !err;
  };

  // Accumulated env of the step's frame activation: nearest snapshot, then the diffs after it.
  Values.prototype.envAt = function (step) {
    var d = this.v.data, chain = [], cursor = step;
    while (cursor >= 0 && d.snapshots[cursor] === undefined) {
      chain.push(cursor);
      cursor = this.v.s.act_prev[cursor];
    }
    var env = new Map(cursor >= 0 ? d.snapshots[cursor] : []);
    for (var i = chain.length - 1; i >= 0; i--) {
      var index = chain[i], cleared = d.clear[index], diff = d.env[index];
      if (cleared) for (var c = 0; c < cleared.length; c++) env.delete(cleared[c]);
      if (diff) for (var k = 0; k < diff.length; k++) env.set(diff[k][0], diff[k][1]);
    }
    return env;
  };

  Values.prototype.cardHtml = function (card) {
    var html = this.cardCache[card];
    if (html === undefined) {
      var fragments = this.v.data.fragments;
      html = this.cardCache[card] = this.v.withRoot(this.v.data.cards[card].map(function (k) { return fragments[k]; }).join("\n"));
    }
    return html;
  };

  Values.prototype.updateValues = function (step) {
    var env = this.envAt(step), cards = this.cards, self = this;
    var changed = new Set((this.v.data.env[step] || []).map(function (p) { return p[0]; }));
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
          entry = { el: el("div", "lt-v-card"), card: -1, changed: null };
          entry.el.setAttribute("data-name", name);
          entry.el.setAttribute("role", "group");
        }
        cards.set(name, entry);
      }
      if (entry.card !== card) {
        entry.card = card;
        entry.el.innerHTML = self.cardHtml(card);
      }
      var isChanged = changed.has(name);
      if (entry.changed !== isChanged) {  // the mark is seen (a border) and named (for a screen reader)
        entry.changed = isChanged;
        entry.el.classList.toggle("lt-changed", isChanged);
        entry.el.setAttribute("aria-label", name + (isChanged ? " (changed on this step)" : ""));
      }
      var wanted = previous ? previous.nextSibling : self.varsEl.firstChild;
      if (wanted !== entry.el) self.varsEl.insertBefore(entry.el, wanted);
      previous = entry.el;
    });
    this.emptyEl.hidden = env.size > 0;
  };

  Values.prototype.updateStack = function (step) {
    var s = this.v.s, d = this.v.data, chain = [];
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

  window.CHALKTRACE.part("values", Values);
})();
