/* chalktrace step mode, the keyboard: from the core's command table (COMMANDS in viewer-core.js), the
   dispatch, the help overlay (?) and the titles of the bar's buttons.

   A key press runs the first row (plugins' rows first, then COMMANDS in order) that lists its key and
   whose `when` holds; the help lists the rows that have `help`; a button's title is its command's
   row's `title` (else `help`) and that row's keys. Plugins add rows with viewer.addKeyBinding. While a
   controller holds the keys (grab: an open quiz question), every key goes to it alone.
   Single-key shortcuts (a letter, Space) act only while focus is in the viewer and not on a link, a
   button or a field, and the help's setting turns them off (WCAG 2.1.4); a field or the progress
   slider keeps every key it takes.
   Must not: do what a command does (it only names commands; the controllers register them), or
   handle keys outside step mode, or with Ctrl, Alt or Meta held (the browser's and the theme's). */
(function () {
  "use strict";
  var t = window.CHALKTRACE.t, el = window.CHALKTRACE.el, escapeHtml = window.CHALKTRACE.escapeHtml;
  var SHORTCUTS_KEY = "chalktrace-single-key-shortcuts";
  // take their keys themselves (Esc still leaves, but not from a text field)
  var OWN_KEYS = "input, textarea, select, [contenteditable], [role=slider], .lt-hm > img, pre.lt-rounded, .lt-memory-point";
  var TYPED_INTO = "input:not([type=checkbox]), textarea, select, [contenteditable]";
  var ACTIVATES = "a[href], button, summary, [role=button], [role=link]";     // Space and letters are theirs

  function stored(key) { try { return localStorage.getItem(key); } catch (e) { return null; } }
  function store(key, value) { try { localStorage.setItem(key, value); } catch (e) { /* private mode */ } }

  var COMMANDS = window.CHALKTRACE.COMMANDS;
  var NAMES = { ArrowRight: "\u2192", ArrowLeft: "\u2190", ArrowDown: "\u2193", ArrowUp: "\u2191", Escape: "Esc" };

  function keyName(key) { return NAMES[key] || key; }

  function Keyboard(v) {
    var self = this;
    this.v = v;
    this.plugins = [];          // rows added with addKeyBinding, tried before COMMANDS
    this.grabbed = null;        // a controller's handler that takes every key while it is set
    this.helpEl = null;
    this.shortcuts = stored(SHORTCUTS_KEY) !== "off";  // single-key shortcuts (the help's setting)
    this.onKeyDown = function (event) { self.onKey(event); };
    window.addEventListener("keydown", this.onKeyDown, true);
    v.addCommand("help", function () { self.toggleHelp(); });
  }

  // Every row, in the order a key press tries them.
  Keyboard.prototype.rows = function () { return this.plugins.concat(COMMANDS); };

  // A row's keys that no earlier row always takes (a plugin's Home wins over the built-in Home).
  Keyboard.prototype.liveKeys = function (row) {
    var rows = this.rows(), taken = {};
    for (var k = 0; k < rows.length && rows[k] !== row; k++) {
      if (!rows[k].when) rows[k].keys.forEach(function (key) { taken[key] = true; });
    }
    return row.keys.filter(function (key) { return !taken[key]; });
  };

  Keyboard.prototype.find = function (key) {
    var rows = this.rows();
    for (var k = 0; k < rows.length; k++) {
      if (rows[k].keys.indexOf(key) >= 0 && (!rows[k].when || rows[k].when(this.v))) return rows[k];
    }
    return null;
  };

  Keyboard.prototype.onKey = function (event) {
    if (!this.v.active || event.ctrlKey || event.metaKey || event.altKey) return;
    if (this.grabbed) return this.grabbed(event);
    var key = event.key === " " ? (event.shiftKey ? "Shift+Space" : "Space") : event.key;
    var target = event.target && event.target.closest ? event.target : null;
    if (target && target.closest(OWN_KEYS) && (key !== "Escape" || target.closest(TYPED_INTO))) return;
    if ((event.key.length === 1) && !this.singleKeyOk(target)) return;
    var row = this.find(key);
    if (row) {
      event.preventDefault();
      event.stopPropagation();  // keep the theme's own shortcuts (n, p, /, ...) out of step mode
      if (row.run) row.run(event);
      else this.v.command(row.command, event.repeat);
    } else if (event.key.length === 1) {
      event.stopPropagation();
    }
  };

  // A letter or Space acts as a shortcut only with the setting on, and focus in the viewer (or
  // nowhere) and not on something Space or a letter activates or types into.
  Keyboard.prototype.singleKeyOk = function (target) {
    if (!this.shortcuts) return false;
    if (!target || target === document.body || target === document.documentElement) return true;
    return this.v.rootEl.contains(target) && !target.closest(ACTIVATES);
  };

  Keyboard.prototype.setShortcuts = function (on) {
    this.shortcuts = on;
    store(SHORTCUTS_KEY, on ? "on" : "off");
  };

  // While a controller holds the keys (an open quiz question), every key goes to `handler` alone;
  // grab(null) gives them back.
  Keyboard.prototype.grab = function (handler) { this.grabbed = handler; };

  Keyboard.prototype.add = function (binding, run) {
    var self = this, row = { keys: binding.keys || [], label: binding.label, help: binding.help, when: binding.when, run: run };
    this.plugins.push(row);
    this.titleButtons();
    if (this.helpShown()) this.fillHelp();
    return function () {
      self.plugins = self.plugins.filter(function (r) { return r !== row; });
      self.titleButtons();
    };
  };

  // A command's button title: its row's words and the keys that reach it, e.g. "step back (← or h)".
  Keyboard.prototype.title = function (command) {
    var rows = this.rows(), pick = null;
    for (var k = 0; k < rows.length; k++) {
      if (rows[k].command !== command || !rows[k].keys.length) continue;
      if (!rows[k].when) { pick = rows[k]; break; }
      if (!pick) pick = rows[k];
    }
    if (!pick) return null;
    var keys = this.liveKeys(pick).map(keyName);
    return keys.length ? t("viewer.keys.title", { what: pick.title || pick.help, keys: keys.join(t("viewer.keys.or")) }) : pick.title || pick.help;
  };

  Keyboard.prototype.titleButtons = function () {
    var buttons = this.v.controllers.bar.buttons;
    for (var command in buttons) {
      var title = this.title(command);
      if (title === null) continue;
      buttons[command].title = title;
      buttons[command].setAttribute("aria-label", title);
    }
  };

  Keyboard.prototype.build = function (layout) {
    var self = this, help = el("div", "lt-v-help");
    help.hidden = true;
    help.innerHTML = "<div class=\"lt-v-help-box\" role=\"document\"><h2>" + t.html("viewer.help.heading") + "</h2><table></table>" +
      "<p>" + t.html("viewer.help.links", { link: "<code>#step=N</code>" }) + "</p>" +
      "<fieldset class=\"lt-v-settings\"><legend>" + t.html("viewer.help.settings") + "</legend>" +
      "<label><input type=\"checkbox\" data-setting=\"shortcuts\"> " + t.html("viewer.help.shortcuts") + "</label>" +
      "<label><input type=\"checkbox\" data-setting=\"announce\"> " + t.html("viewer.help.announce") + "</label></fieldset>" +
      "<button type=\"button\" class=\"lt-v-btn\">" + t.html("viewer.help.close") + "</button></div>";
    help.addEventListener("click", function (event) {
      if (event.target === help || event.target.tagName === "BUTTON") self.toggleHelp(false);
    });
    help.addEventListener("change", function (event) {
      var setting = event.target.getAttribute("data-setting");
      if (setting === "shortcuts") self.setShortcuts(event.target.checked);
      if (setting === "announce" && self.v.controllers.announce) self.v.controllers.announce.setQuiet(!event.target.checked);
    });
    this.helpEl = layout.root.appendChild(help);
  };

  // The help's rows: COMMANDS', then the plugins', each with the keys that still reach it.
  Keyboard.prototype.fillHelp = function () {
    var self = this, html = "";
    COMMANDS.concat(this.plugins).forEach(function (row) {
      if (!row.help || (row.command && !self.v.commands[row.command])) return;  // a command this page lacks (no room, no quiz)
      var keys = self.liveKeys(row);
      if (row.keys.length && !keys.length) return;  // every key of it is taken by a plugin's row
      var label = row.label && keys.length === row.keys.length ? row.label : keys.map(keyName).join(" / ") || row.label;
      html += "<tr" + (row.command ? " data-command=\"" + row.command + "\"" : "") + "><th><kbd>" + escapeHtml(label) +
        "</kbd></th><td>" + escapeHtml(row.help) + "</td></tr>";
    });
    this.helpEl.querySelector("table").innerHTML = html;
    this.helpEl.querySelector("[data-setting=shortcuts]").checked = this.shortcuts;
    var announce = this.v.controllers.announce;
    this.helpEl.querySelector("[data-setting=announce]").checked = !(announce && announce.quiet);
  };

  Keyboard.prototype.helpShown = function () { return !!this.helpEl && !this.helpEl.hidden; };

  Keyboard.prototype.toggleHelp = function (show) {
    var shown = show === undefined ? this.helpEl.hidden : show;
    if (shown) this.fillHelp();
    this.helpEl.hidden = !shown;
  };

  Keyboard.prototype.close = function () { if (this.helpEl) this.toggleHelp(false); };

  Keyboard.prototype.destroy = function () { window.removeEventListener("keydown", this.onKeyDown, true); };

  window.CHALKTRACE.controller("keyboard", Keyboard);
})();
