/* chalktrace step mode, focus: the viewer behaves as a modal dialog.

   Opening step mode remembers the control that opened it, makes the page behind it inert, marks the
   viewer aria-modal and moves focus into it; closing gives the page back and focus returns to that
   control (the "Step through" button when it came from a link or the address bar). The help overlay
   is a dialog inside it, the same way: its Close button gets focus, the bar and panels behind it are
   inert, and focus returns to where it was. The viewer's label says the mode (present, speaker).
   The skip link to "Step through" is shown here, once there is a viewer to step through.
   Nothing traps focus: Tab leaves the viewer for the browser's own controls as from any page.
   Must not: move between steps, or handle keys (viewer-keyboard.js does). */
(function () {
  "use strict";
  var t = window.CHALKTRACE.t;

  function Focus(v) {
    this.v = v;
    this.opener = null;
    this.helpOpener = null;
    this.inerted = [];
    this.enter = null;
    var skip = document.querySelector(".lt-skip-step"), enter = v.host.querySelector(".lt-step-enter");
    this.enter = enter;
    if (skip && enter) {
      skip.hidden = false;
      skip.addEventListener("click", function (event) { event.preventDefault(); enter.focus(); });
    }
  }

  Focus.prototype.build = function (layout) {
    var self = this, root = layout.root;
    this.title = root.getAttribute("aria-label");
    root.setAttribute("aria-modal", "true");
    root.tabIndex = -1;
    // present and speaker modes are classes on the viewer (viewer-present.js, viewer-speaker.js): follow them
    new MutationObserver(function () { self.label(); }).observe(root, { attributes: true, attributeFilter: ["class"] });
    var help = this.v.controllers.keyboard.helpEl;
    if (help) {
      help.setAttribute("role", "dialog");
      help.setAttribute("aria-modal", "true");
      help.setAttribute("aria-label", t("viewer.help.label"));
      // the help is shown and hidden through its hidden attribute: follow it
      new MutationObserver(function () { self.helpChanged(!help.hidden); }).observe(help, { attributes: true, attributeFilter: ["hidden"] });
    }
  };

  Focus.prototype.open = function () {
    var active = document.activeElement, root = this.v.rootEl;
    this.opener = active && active !== document.body && !root.contains(active) ? active : this.enter;
    this.inerted = [];
    for (var node = document.body.firstElementChild; node; node = node.nextElementSibling) {
      if (node === root || node.inert || node.classList.contains("lt-rankbar")) continue;
      node.inert = true;
      this.inerted.push(node);
    }
    this.label();
    root.focus({ preventScroll: true });
  };

  Focus.prototype.close = function () {
    this.inerted.forEach(function (node) { node.inert = false; });
    this.inerted = [];
    var back = this.opener;
    this.opener = null;
    // the read page is laid out again only after the core's close: focus it a frame later
    if (back) requestAnimationFrame(function () { if (back.isConnected) back.focus({ preventScroll: false }); });
  };

  // The viewer's name says the mode it is in.
  Focus.prototype.label = function () {
    var v = this.v, root = v.rootEl;
    if (!root) return;
    var title = { title: this.title };
    root.setAttribute("aria-label", v.mode("speaker") ? t("viewer.focus.speaker", title) :
      v.mode("present") ? t("viewer.focus.presenting", title) : t("viewer.focus.stepping", title));
  };

  Focus.prototype.helpChanged = function (shown) {
    var v = this.v, help = v.controllers.keyboard.helpEl, others = [];
    for (var node = v.rootEl.firstElementChild; node; node = node.nextElementSibling) {
      if (node !== help && !node.classList.contains("lt-v-live")) others.push(node);
    }
    others.forEach(function (node) { node.inert = shown; });
    if (shown) {
      var active = document.activeElement;
      this.helpOpener = active && !help.contains(active) ? active : v.rootEl;
      var first = help.querySelector("button, input");
      if (first) first.focus();
    } else if (this.helpOpener) {
      var back = this.helpOpener;
      this.helpOpener = null;
      if (back.isConnected) back.focus();
    }
  };

  window.CHALKTRACE.controller("focus", Focus);
})();
