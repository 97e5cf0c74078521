/* chalktrace interface strings: the viewer's words in the course's language.

   The site puts the course language's catalogue (tracer/site/i18n/LANG.json, its viewer.* keys) at
   the head of the viewer bundle as window.CHALKTRACE_STRINGS = {language, strings}. t(key, params)
   is a key's text with its {name} parameters put in, numbers in the language's grouping
   (Intl.NumberFormat); a key with plural forms ({one, other, ...}) picks one by params.count under
   the language's plural rules (Intl.PluralRules). t.html(key, params) is the same as markup: the
   catalogue's text escaped, each parameter put in as the caller's markup (escape what is text). A
   key no catalogue holds comes back as the key itself: visible on the page, never a crash.
   Must not: touch the page or know where a string lands. */
window.CHALKTRACE_I18N = (function () {
  "use strict";
  var catalogue = window.CHALKTRACE_STRINGS || { language: "en", strings: {} };
  var language = catalogue.language;
  var intl = typeof Intl === "object";
  var plurals = intl && Intl.PluralRules ? new Intl.PluralRules(language) : null;
  var numbers = intl ? new Intl.NumberFormat(language, { maximumFractionDigits: 3 }) : null;

  function escapeHtml(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }

  function form(key, params) {
    var entry = catalogue.strings[key];
    if (entry === undefined) return key;
    if (typeof entry === "string") return entry;
    var count = params ? params.count : undefined;
    var category = plurals && typeof count === "number" ? plurals.select(count) : count === 1 ? "one" : "other";
    return entry[category] !== undefined ? entry[category] : entry.other;
  }

  function fill(text, params, asValue) {
    if (!params) return text;
    return text.replace(/\{(\w+)\}/g, function (whole, name) {
      if (!Object.prototype.hasOwnProperty.call(params, name)) return whole;
      var value = params[name];
      return typeof value === "number" && numbers ? numbers.format(value) : asValue(value);
    });
  }

  function t(key, params) { return fill(form(key, params), params, String); }
  t.html = function (key, params) {
    return fill(escapeHtml(form(key, params)), params, String);
  };
  t.number = function (value) { return numbers ? numbers.format(value) : String(value); };
  t.language = language;
  return t;
})();
