/* chalktrace live reload, served only by `chalktrace serve` / `mkdocs serve` (never published).
   MkDocs' own reload script is inline, which the lecture pages' Content-Security-Policy refuses; the
   plugin has the server link this file instead (script-src 'self'), with the site's build number in
   data-epoch. It asks the server (a long poll, as MkDocs' script does) for a newer build and reloads
   the page in place: step mode keeps its step (it is in the URL), read mode its scroll position. */
(function () {
  "use strict";
  var me = document.currentScript;
  var epoch = me && me.getAttribute("data-epoch");
  if (!epoch) return;
  var KEY = "chalktrace-reload:" + location.pathname;
  var request = null, timer = null;

  function keepPlace() {
    var viewer = window.CHALKTRACE_VIEWER;
    if (viewer && viewer.active) {  // the step may not be in the URL yet (the viewer writes it after a burst)
      var hash = /^#step=\d+/.test(location.hash) ? location.hash.replace(/^#step=\d+/, "#step=" + viewer.cur)
                                                   : "#step=" + viewer.cur;
      history.replaceState(null, "", location.pathname + location.search + hash);
    } else {
      try { sessionStorage.setItem(KEY, String(window.scrollY)); } catch (e) { /* storage off: reload anyway */ }
    }
  }

  function poll() {
    request = new XMLHttpRequest();
    request.onloadend = function () {
      if (parseFloat(this.responseText) > Number(epoch)) {
        keepPlace();
        location.reload();
      } else {
        timer = setTimeout(poll, this.status === 200 ? 0 : 3000);
      }
    };
    request.open("GET", "/livereload/" + epoch + "/" + Date.now());
    request.send();
  }

  function stop() {
    if (request) request.abort();
    clearTimeout(timer);
    request = timer = null;
  }

  function restoreScroll() {
    var saved = null;
    try { saved = sessionStorage.getItem(KEY); sessionStorage.removeItem(KEY); } catch (e) { /* storage off */ }
    if (saved !== null && !/^#step=/.test(location.hash)) window.scrollTo(0, Number(saved));
  }

  window.addEventListener("load", function () {
    restoreScroll();
    if (document.visibilityState === "visible") poll();
  });
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") { if (!request) poll(); } else stop();
  });
  window.addEventListener("pagehide", stop);
})();
