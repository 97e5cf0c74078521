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
      var asked = /^#step=(\d+)/.exec(location.hash);
      // The URL's step shows as this one (past the end of an error trace, say, it shows the last step):
      // keep the URL's, so the page returns to it once the lecture runs that far again.
      if (asked && viewer.nearestVisible(+asked[1]) === viewer.cur) return;
      var hash = asked ? location.hash.replace(/^#step=\d+/, "#step=" + viewer.cur) : "#step=" + viewer.cur;
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

  // `chalktrace serve` says which lectures are away on a runner (a cluster, a GPU box): this page's
  // lecture gets a status line, "re-tracing on gpu (job 812345)…" or the one-line failure, until its
  // new trace arrives and the poll above reloads the page.
  var statusUrl = me.getAttribute("data-retrace-status");
  var lecture = (/\/lectures\/([^\/]+)\/(?:index\.html)?$/.exec(location.pathname) || [])[1];
  var line = null, info = null, statusTimer = null;

  function statusText(entry) {
    var where = "re-tracing on " + entry.runner + (entry.job ? " (job " + entry.job + ")" : "");
    return entry.state === "failed" ? entry.message : where + "…";  // the message names lecture, runner and job
  }

  function pollStatus() {
    var ask = new XMLHttpRequest();
    ask.onloadend = function () {
      var entry = null;
      try { entry = this.status === 200 ? JSON.parse(this.responseText)[decodeURIComponent(lecture)] : null; } catch (e) { entry = null; }
      var text = entry ? statusText(entry) : "";
      if (line.textContent !== text) line.textContent = text;
      line.hidden = !text;
      var failed = Boolean(entry && entry.state === "failed");
      line.classList.toggle("lt-retracing-failed", failed);
      // a failure stays in sight at the window's foot, over the step viewer too (which covers the article)
      if (failed && line.parentNode !== document.body) document.body.appendChild(line);
      else if (!failed && line.parentNode === document.body) info.insertAdjacentElement("afterend", line);
      statusTimer = setTimeout(pollStatus, 1000);
    };
    ask.open("GET", statusUrl + "?" + Date.now());
    ask.send();
  }

  function startStatus() {
    info = document.querySelector(".lt-page-info");
    if (!statusUrl || !lecture || !info) return;
    line = document.createElement("p");
    line.className = "lt-retracing";
    line.setAttribute("role", "status");  // a polite live region: said once when it changes
    line.hidden = true;
    info.insertAdjacentElement("afterend", line);
    pollStatus();
  }

  window.addEventListener("load", function () {
    restoreScroll();
    startStatus();
    if (document.visibilityState === "visible") poll();
  });
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") { if (!request) poll(); } else stop();
  });
  window.addEventListener("pagehide", stop);
})();
