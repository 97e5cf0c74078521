/* chalktrace step mode, the side panel: the step's error, compute, variables, call stack and output.

   The variables are the frame's accumulated env (nearest snapshot plus the diffs after it, from
   data.js); each card's HTML is decoded (step-data.js) once, and a card that leaves (a call
   enters another frame) is kept detached and reused when the same value comes back.
   Each card is a one-line summary (name, kind, dtype, shape, a short value: data.card(k).summary)
   that opens into the full card: the current line's cards are open, and a card the student opened
   stays open until closed. Values the step made are marked new or changed (`changesAt` says which,
   for the announcements). After each step the panel follows: the current line's first card is
   brought into view (smoothly, or at once under prefers-reduced-motion or while a key is held); a
   panel the student scrolled by hand follows again from the next step. The v key hides the panel
   (the values mode, on unless &values=0).
   Must not: move on its own (the stack's buttons ask the core to `go`), or know about quiz questions
   (the quiz controller hides a card through cardEl and computeEl). */
(function () {
  "use strict";
  var t = window.CHALKTRACE.t, el = window.CHALKTRACE.el, escapeHtml = window.CHALKTRACE.escapeHtml;
  var FOLD = t.html("viewer.values.fold"), UNFOLD = t.html("viewer.values.unfold");
  var CHANGE_WORDS = { new: t("viewer.values.new"), changed: t("viewer.values.changed") };
  var SPARE_CARDS = 64;         // detached card elements kept for reuse (see show)
  var FOCUS_LOOKBACK = 64;      // steps looked back in the frame for the line that last set a value
  var SMOOTH_AFTER_MS = 300;    // a step this soon after the last one (a held key) scrolls at once
  var MARGIN_PX = 6;            // room kept above a followed card
  var reducedMotion = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;

  function Values(v) {
    this.v = v;
    this.cards = new Map();     // name -> {el, card} in the variables panel
    this.cardCache = [];        // card index -> HTML, decoded on first use
    this.spareCards = new Map(); // name + " " + card index -> a card element that left the panel
    this.stackCallers = null;   // the callers' steps shown in the stack, to redraw it only when they change
    this.pinned = new Set();    // names of cards the student opened by hand (they stay open)
    this.focus = [];            // names of the current line's cards (open, and followed)
    this.changes = new Map();   // name -> "new" or "changed": what the current step made
    this.hidden = false;        // the panel hidden (v)
    this.lastFollow = 0;        // performance.now() of the last follow, to tell a held key
    var self = this;
    v.addMode("values", { initially: true, get: function () { return !self.hidden; }, set: function (on) { self.setHidden(!on); } });
    v.addCommand("values", function () { v.toggle("values"); }, { button: false });
  }

  Values.prototype.build = function (layout) {
    var v = this.v, side = layout.side;
    this.errorEl = side.appendChild(el("section", "lt-v-error"));
    this.computeEl = side.appendChild(el("section", "lt-v-compute"));
    var vars = side.appendChild(el("section", "lt-v-vars"));
    this.varsHead = vars.appendChild(el("h3", null, t.html("viewer.values.variables")));
    this.varsEl = vars.appendChild(el("div", "lt-v-cards"));
    this.sideEl = side;
    var self = this;
    // a summary opens its card; the fold button closes it; either way the choice is kept
    this.varsEl.addEventListener("click", function (event) {
      var toggle = event.target.closest && event.target.closest(".lt-v-sum, .lt-v-fold");
      if (!toggle) return;
      var card = toggle.closest(".lt-v-card"), name = card.getAttribute("data-name");
      var open = !card.classList.contains("lt-open");
      if (open) self.pinned.add(name); else self.pinned.delete(name);
      self.setOpen(card, open);
      if (open) card.querySelector(".lt-v-fold").focus({ preventScroll: true });
      else card.querySelector(".lt-v-sum").focus({ preventScroll: true });
    });
    this.emptyEl = vars.appendChild(el("p", "lt-v-empty", t.html("viewer.values.empty")));
    var stack = side.appendChild(el("section", "lt-v-stack"));
    stack.appendChild(el("h3", null, t.html("viewer.values.stack")));
    this.stackEl = stack.appendChild(el("ol", "lt-v-frames"));
    this.stackEl.addEventListener("click", function (event) {
      var item = event.target.closest && event.target.closest("[data-step]");
      if (item) v.go(+item.getAttribute("data-step"));
    });
    var out = side.appendChild(el("section", "lt-v-stdout"));
    out.appendChild(el("h3", null, t.html("viewer.values.output")));
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
      var unpacked = this.v.data.card(card), summary = unpacked.summary;  // step-data.js decodes it
      html = this.v.withRoot(unpacked.html);
      if (summary) {
        html = "<button type=\"button\" class=\"lt-v-sum\" aria-expanded=\"false\" title=\"" + UNFOLD + "\">" + summary +
          "</button><button type=\"button\" class=\"lt-v-fold\" aria-expanded=\"true\" title=\"" + FOLD + "\"" +
          " aria-label=\"" + FOLD + "\">\u25be</button>" + html;
      }
      this.cardCache[card] = html;
    }
    return html;
  };

  Values.prototype.setOpen = function (cardEl, open) {
    if (cardEl.classList.contains("lt-open") === open) return;
    cardEl.classList.toggle("lt-open", open);
    var sum = cardEl.firstElementChild;
    if (sum && sum.classList.contains("lt-v-sum")) sum.setAttribute("aria-expanded", open ? "true" : "false");
  };

  // What `step` made, by name: "new" (not in the frame before it) or "changed" (another value).
  // A value recorded again unchanged is neither.
  Values.prototype.changesAt = function (step) {
    var d = this.v.data, diff = d.env[step], out = new Map();
    if (!diff) return out;
    var before = this.v.s.act_prev[step], env = before >= 0 ? this.envAt(before) : new Map();
    for (var k = 0; k < diff.length; k++) {
      var old = env.get(diff[k][0]);
      if (old === undefined) out.set(diff[k][0], "new");
      else if (old !== diff[k][1]) out.set(diff[k][0], "changed");
    }
    return out;
  };

  // The current line's cards: what the step set, else what the frame's latest line that set
  // something set (a text() line leaves the value just computed in focus).
  Values.prototype.focusAt = function (step) {
    var d = this.v.data, act = this.v.s.act_prev;
    for (var k = 0, cursor = step; k < FOCUS_LOOKBACK && cursor >= 0; k++, cursor = act[cursor]) {
      if (d.env[cursor]) return d.env[cursor].map(function (pair) { return pair[0]; });
    }
    return [];
  };
  Values.prototype.updateValues = function (step) {
    var env = this.envAt(step), cards = this.cards, self = this;
    var changes = this.changes = this.changesAt(step);
    var focus = this.focus = this.focusAt(step), pinned = this.pinned;
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
          entry = { el: el("div", "lt-v-card"), card: -1, change: null };
          entry.el.setAttribute("data-name", name);
          entry.el.setAttribute("role", "group");
        }
        cards.set(name, entry);
      }
      if (entry.card !== card) {
        entry.card = card;
        entry.el.innerHTML = self.cardHtml(card);
        entry.el.classList.toggle("lt-summarised", !!self.v.data.card(card).summary);
        entry.el.classList.remove("lt-open");
      }
      var change = changes.get(name) || "";
      if (entry.change !== change) {  // seen (a mark and a word) and named (for a screen reader)
        entry.change = change;
        entry.el.classList.toggle("lt-changed", !!change);
        if (change) {
          entry.el.setAttribute("data-change", change);
          entry.el.setAttribute("data-change-label", CHANGE_WORDS[change]);  // viewer.css shows it
        } else entry.el.removeAttribute("data-change");
        entry.el.setAttribute("aria-label", !change ? name : change === "new" ? t("viewer.values.card_new", { name: name }) :
          t("viewer.values.card_changed", { name: name }));
      }
      self.setOpen(entry.el, focus.indexOf(name) >= 0 || pinned.has(name));
      var wanted = previous ? previous.nextSibling : self.varsEl.firstChild;
      if (wanted !== entry.el) self.varsEl.insertBefore(entry.el, wanted);
      previous = entry.el;
    });
    this.emptyEl.hidden = env.size > 0;
  };

  // Bring the current line's cards into view (all of them if they fit, else the first one's top).
  // Called after every DOM write of the step (viewer-core.js render): reads layout once.
  Values.prototype.follow = function () {
    if (this.hidden || !this.focus.length) return;
    var first = null, last = null;
    for (var k = 0; k < this.focus.length; k++) {
      var entry = this.cards.get(this.focus[k]);
      if (!entry) continue;
      if (!first) first = entry.el;
      last = entry.el;
    }
    if (!first) return;
    var side = this.sideEl, box = side.getBoundingClientRect(), top = side.scrollTop;
    var a = first.getBoundingClientRect(), b = last.getBoundingClientRect();
    var head = getComputedStyle(this.varsHead).position !== "sticky" ? 0  // held at the panel's padding edge
      : parseFloat(getComputedStyle(side).paddingTop) + this.varsHead.getBoundingClientRect().height;
    var start = a.top - box.top + top - MARGIN_PX - head, end = b.bottom - box.top + top + MARGIN_PX;  // below a sticky heading
    var height = side.clientHeight, want = null;
    if (end - start > height) {  // too tall for the panel: the first card's top, unless it is shown there already
      if (Math.abs(start - top) > 1 && (start < top || a.top > box.top + height / 3)) want = start;
    } else if (start < top) want = start;
    else if (end > top + height) want = end - height;
    var now = performance.now(), held = now - this.lastFollow < SMOOTH_AFTER_MS;
    this.lastFollow = now;
    if (want === null) return;
    var smooth = !held && !(reducedMotion && reducedMotion.matches);
    side.scrollTo({ top: Math.max(0, want), behavior: smooth ? "smooth" : "instant" });
  };

  Values.prototype.setHidden = function (on) {
    this.hidden = on;
    this.v.rootEl.classList.toggle("lt-values-hidden", on);
    this.v.controllers.code.scrollToCurrent(true);
    if (!on) this.follow();
  };

  Values.prototype.updateStack = function (step) {
    var s = this.v.s, d = this.v.data, chain = [];
    for (var cursor = step; cursor >= 0; cursor = s.parent[cursor]) chain.push(cursor);
    var callers = chain.slice(1).join(",");
    if (callers === this.stackCallers && this.stackEl.lastElementChild) {
      // the same frames as the last step: only the innermost one's step and line change
      var button = this.stackEl.lastElementChild.firstElementChild;
      button.setAttribute("data-step", step);
      button.title = t("viewer.values.goto_step", { step: step });
      button.lastElementChild.textContent = d.files[s.file[step]].path + ":" + s.line[step];
      return;
    }
    this.stackCallers = callers;
    var html = "";
    for (var i = chain.length - 1; i >= 0; i--) {
      var k = chain[i];
      html += "<li><button type=\"button\" data-step=\"" + k + "\"" + (k === step ? " aria-current=\"step\"" : "") +
        " title=\"" + t.html("viewer.values.goto_step", { step: k }) + "\"><code>" + escapeHtml(d.functions[s.fn[k]]) + "</code> <span>" +
        escapeHtml(d.files[s.file[k]].path) + ":" + s.line[k] + "</span></button></li>";
    }
    this.stackEl.innerHTML = html;
    this.varsHead.innerHTML = t.html("viewer.values.variables") + " <small>" + t.html("viewer.values.in_function", { function: "<code>" + escapeHtml(d.functions[s.fn[step]]) + "</code>" }) + "</small>";
  };

  window.CHALKTRACE.controller("values", Values);
})();
