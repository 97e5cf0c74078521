/* chalktrace quiz answers: reads a typed answer leniently and says whether it is right.

   Pure functions, no DOM and no state: window.CHALKTRACE_QUIZ = {parse, check, hints, questionCount}. The quiz
   controller (viewer-quiz.js) asks the questions tracer/site/pages/quiz.py chose and checks answers here.
   Must not: touch the page, the viewer or storage, so it can be tested by calling it alone. */
(function () {
  "use strict";

  var QUIZ_UNITS = { "": 1, k: 1e3, m: 1e6, g: 1e9, t: 1e12, p: 1e15, ki: 1024, mi: 1048576, gi: 1073741824, ti: 1099511627776 };
  var DTYPE_ALIASES = {
    float: "float32", fp32: "float32", f32: "float32", single: "float32", half: "float16", fp16: "float16",
    f16: "float16", bf16: "bfloat16", double: "float64", fp64: "float64", f64: "float64", long: "int64",
    i64: "int64", int: "int32", i32: "int32", short: "int16", byte: "uint8", fp8: "float8_e4m3fn",
    e4m3: "float8_e4m3fn", float8: "float8_e4m3fn", e5m2: "float8_e5m2"
  };
  var BOOL_WORDS = {
    yes: true, y: true, true: true, t: true, "1": true, shares: true, share: true, view: true, same: true,
    no: false, n: false, false: false, f: false, "0": false, copy: false, not: false, new: false, different: false,
    "\u662f": true, "\u662f\u7684": true, "\u5bf9": true, "\u5426": false, "\u4e0d": false, "\u4e0d\u662f": false, "\u9519": false  // 是 是的 对 否 不 不是 错
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

  var t = window.CHALKTRACE_I18N;
  var QUIZ_HINTS = { ints: t("viewer.quiz.hint_ints"), number: t("viewer.quiz.hint_number"),
    dtype: t("viewer.quiz.hint_dtype"), bool: t("viewer.quiz.hint_bool") };

  function questionCount(n) {
    return t("viewer.quiz.questions", { count: n });
  }

  window.CHALKTRACE_QUIZ = { parse: quizParse, check: quizCheck, hints: QUIZ_HINTS, questionCount: questionCount };
})();
