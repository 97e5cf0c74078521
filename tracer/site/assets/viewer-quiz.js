/* chalktrace step mode, quiz mode (q, &quiz=1): predict a value, then see it.

   The questions come from data.js (tracer/site/pages/quiz.py chooses them); answers are read by
   quiz-parse.js. On a step with a question (once per visit of the page) it hides what would give the
   answer away, asks, and while the question is open holds the keys: Esc skips, typing goes to the
   answer. The score per lecture lives in localStorage, shown on the read page with a reset.
   Must not: cost a step anything while quiz mode is off, or parse answers itself. */
(function () {
  "use strict";
  var t = window.CHALKTRACE.t, el = window.CHALKTRACE.el, escapeHtml = window.CHALKTRACE.escapeHtml;

  function store(lecture) { return "chalktrace-quiz:" + lecture; }

  // The stored score of a lecture: {answers: {question step: "right" | "wrong" | "skipped"}}.
  function loadScore(lecture) {
    try { return JSON.parse(localStorage.getItem(store(lecture))) || { answers: {} }; } catch (e) { return { answers: {} }; }
  }

  function saveScore(lecture, score) {
    try {
      if (score) localStorage.setItem(store(lecture), JSON.stringify(score));
      else localStorage.removeItem(store(lecture));
    } catch (e) { /* storage off (private mode, file://): the score lives for this page only */ }
  }

  function tally(score) {
    var counts = { right: 0, wrong: 0, skipped: 0 };
    Object.keys(score.answers).forEach(function (k) { counts[score.answers[k]] = (counts[score.answers[k]] || 0) + 1; });
    return counts;
  }

  function Quiz(v) {
    var self = this, questions = v.data.quiz || [];
    this.v = v;
    this.on = false;
    this.byStep = {};           // question step -> question index
    this.done = new Set();      // questions answered or skipped on this visit of the page
    this.open = null;           // index of the question being asked
    this.stepShown = -1;        // the step whose question (or its feedback) is shown
    this.box = null;            // the question's form, then its feedback
    this.hidden = null;         // what is hidden while asking (a card, the compute panel)
    this.focusBack = null;      // where the focus was before asking
    this.scoreBox = null;       // the read page's score line
    for (var k = 0; k < questions.length; k++) this.byStep[questions[k].step] = k;
    v.addMode("quiz", { early: true, get: function () { return self.on; }, set: function (on) { self.set(on); } });
    v.addCommand("quiz", function () { v.toggle("quiz"); }, { button: questions.length > 0 });
    if (questions.length) this.mountScore();
  }

  Quiz.prototype.build = function (layout) {
    var self = this;
    this.side = layout.side;
    layout.root.addEventListener("chalktrace:step", function (event) { if (self.on) self.step(event.detail.step); });
  };

  Quiz.prototype.set = function (on) {
    this.on = on;
    if (!on) this.clear();
  };

  // After a step is drawn while quiz mode is on: ask the step's question, once per visit of the page.
  Quiz.prototype.step = function (step) {
    if (this.stepShown !== step) this.clear();
    var index = this.byStep[step];
    if (index === undefined || this.done.has(index) || this.open !== null) return;
    this.ask(index);
  };

  Quiz.prototype.clear = function () {
    if (this.box) this.box.remove();
    this.box = null;
    this.open = null;
    this.v.controllers.keyboard.grab(null);
    this.stepShown = -1;
    this.reveal();
  };

  Quiz.prototype.reveal = function () {
    if (this.hidden) this.hidden.classList.remove("lt-quiz-hidden");
    this.hidden = null;
    if (this.v.rootEl) this.v.rootEl.classList.remove("lt-quiz-asking");
  };

  Quiz.prototype.ask = function (index) {
    var self = this, v = this.v, q = v.data.quiz[index], id = "lt-quiz-" + index, hints = window.CHALKTRACE_QUIZ.hints;
    var form = el("form", "lt-quiz");
    form.setAttribute("data-question", index);
    form.setAttribute("aria-labelledby", id + "-prompt");
    form.innerHTML = "<h3>" + t.html("viewer.quiz.heading") + "</h3><p class=\"lt-quiz-prompt\" id=\"" + id + "-prompt\">" +
      escapeHtml(q.prompt) + "</p><label for=\"" + id + "-input\">" + t.html("viewer.quiz.your_answer") + "</label> <input id=\"" + id +
      "-input\" class=\"lt-quiz-input\" type=\"text\" autocomplete=\"off\" spellcheck=\"false\" aria-describedby=\"" + id +
      "-hint\"> <button type=\"submit\" class=\"lt-v-btn lt-quiz-check\">" + t.html("viewer.quiz.check") + "</button>" +
      (q.choices.length ? "<fieldset class=\"lt-quiz-choices\"><legend>" + t.html("viewer.quiz.pick_one") + "</legend>" + q.choices.map(function (c) {
        return "<button type=\"button\" class=\"lt-v-btn lt-quiz-choice\">" + escapeHtml(c) + "</button>";
      }).join(" ") + "</fieldset>" : "") +
      "<p class=\"lt-quiz-hint\" id=\"" + id + "-hint\">" +
      t.html("viewer.quiz.hint", { what: escapeHtml(hints[q.accept.kind]), enter: "<kbd>Enter</kbd>", esc: "<kbd>Esc</kbd>" }) + "</p>";
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var right = window.CHALKTRACE_QUIZ.check(q.accept, form.querySelector("input").value);
      if (right === null) {
        form.querySelector(".lt-quiz-hint").textContent = t("viewer.quiz.unreadable", { what: hints[q.accept.kind] });
        return;
      }
      self.answer(right ? "right" : "wrong");
    });
    form.addEventListener("click", function (event) {
      var choice = event.target.closest && event.target.closest(".lt-quiz-choice");
      if (choice) self.answer(choice.textContent === q.answer ? "right" : "wrong");
    });
    this.side.insertBefore(form, this.side.firstChild);
    this.side.scrollTop = 0;
    this.box = form;
    this.open = index;
    this.stepShown = q.step;
    this.focusBack = document.activeElement;
    v.controllers.keyboard.grab(function (event) { self.onKey(event); });
    // hide what would give the answer away: the asked value's card, a line's FLOPs, else (a
    // collective's bytes) the whole panel; the values that lead to it stay in view
    var card = q.name && v.controllers.values.cardEl(q.name);
    this.hidden = card ? card : q.fact === "flops" ? v.controllers.values.computeEl : null;
    if (this.hidden) this.hidden.classList.add("lt-quiz-hidden");
    else v.rootEl.classList.add("lt-quiz-asking");
    form.querySelector("input").focus();
  };

  // Close the open question with an outcome: record it, reveal the values, say why, focus back.
  Quiz.prototype.answer = function (outcome) {
    var index = this.open, lecture = this.v.data.lecture.name;
    if (index == null) return;
    var q = this.v.data.quiz[index];
    this.done.add(index);
    var score = loadScore(lecture);
    score.answers[q.step] = outcome;
    saveScore(lecture, score);
    this.updateScore();
    var feedback = el("div", "lt-quiz-feedback");
    feedback.setAttribute("data-result", outcome);
    var verdict = { right: t("viewer.quiz.right"), wrong: t("viewer.quiz.wrong"), skipped: t("viewer.quiz.skipped") }[outcome];
    feedback.innerHTML = "<b>" + escapeHtml(verdict) + "</b> " +
      "<span class=\"lt-quiz-said\">" + escapeHtml(q.prompt) + "</span> " +
      t.html("viewer.quiz.recorded", { answer: "<strong class=\"lt-quiz-answer\">" + escapeHtml(q.answer) + "</strong>" }) +
      (q.reason ? " <span class=\"lt-quiz-reason\">" + escapeHtml(q.reason) + "</span>" : "");
    var form = this.box;
    form.parentNode.insertBefore(feedback, form);
    form.remove();
    this.box = feedback;
    this.open = null;
    this.v.controllers.keyboard.grab(null);
    this.reveal();
    var back = this.focusBack;
    this.focusBack = null;
    if (back && back !== document.body && document.contains(back)) back.focus();
    else if (document.activeElement) document.activeElement.blur();
    var announce = this.v.controllers.announce;  // the feedback appeared in place of the form: say it
    if (announce) announce.say(feedback.textContent);
  };

  // While a question is open the keys are its own: Esc skips, typing goes to the answer.
  Quiz.prototype.onKey = function (event) {
    if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      this.answer("skipped");
    } else if (event.key.length === 1 || /^Arrow|^Home$|^End$/.test(event.key)) {
      event.stopPropagation();  // not a step key, and not the theme's shortcuts
    }
  };

  // The lecture page's score line (read mode): right of answered, skipped, and a reset.
  Quiz.prototype.mountScore = function () {
    var self = this, v = this.v, box = el("span", "lt-quiz-score");
    box.innerHTML = "<button type=\"button\" class=\"md-button lt-quiz-enter\">" + t.html("viewer.quiz.enter") + "</button> " +
      "<span class=\"lt-quiz-tally\" role=\"status\"></span> " +
      "<button type=\"button\" class=\"lt-v-btn lt-quiz-reset\">" + t.html("viewer.quiz.reset") + "</button>";
    v.host.appendChild(box);
    this.scoreBox = box;
    box.querySelector(".lt-quiz-enter").addEventListener("click", function () {
      v.go(v.cur >= 0 ? v.cur : v.firstVisible());
      v.setMode("quiz", true);
    });
    box.querySelector(".lt-quiz-reset").addEventListener("click", function () {
      saveScore(v.data.lecture.name, null);
      self.done.clear();
      self.updateScore();
    });
    this.updateScore();
  };

  Quiz.prototype.updateScore = function () {
    var box = this.scoreBox, count = this.v.data.quiz.length;
    if (!box) return;
    var score = tally(loadScore(this.v.data.lecture.name)), answered = score.right + score.wrong;
    var questions = window.CHALKTRACE_QUIZ.questionCount(count);
    box.querySelector(".lt-quiz-tally").textContent = !(answered || score.skipped) ? t("viewer.quiz.asks", { questions: questions }) :
      score.skipped ? t("viewer.quiz.tally_skipped", { right: score.right, answered: answered, skipped: score.skipped, questions: questions }) :
      t("viewer.quiz.tally", { right: score.right, answered: answered, questions: questions });
    box.querySelector(".lt-quiz-reset").hidden = !(answered || score.skipped);
  };

  Quiz.prototype.close = function () { if (this.box) this.clear(); };

  window.CHALKTRACE.controller("quiz", Quiz);
})();
