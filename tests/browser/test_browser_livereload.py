"""Live reload under the Content-Security-Policy: ``chalktrace serve`` in a real course, Chromium on its page.

The lecture page keeps its policy while served (no ``bypass_csp`` here, and no CSP violation may be
logged); after a save, the open page reloads by itself and keeps its place: the scroll position in
read mode, the step in step mode. Built pages carry no reload script at all.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from helpers.network import free_port, wait_until_served
from helpers.reloading_page import wait_for, wait_for_all
from tracer.commands.init import create_course

PARAGRAPHS = "\n".join(f'    text("Paragraph {k}: filler so that the page scrolls.")' for k in range(60))


def lecture(version: str) -> str:
    return (
        f'from tracer import text\n\n\ndef main():\n    text("# Live")\n    text("Version {version}")\n'
        f'{PARAGRAPHS}\n    answer = len("{version}")  # @inspect answer\n    text("The end.")\n'
    )


@contextlib.contextmanager
def served_course(root: Path) -> Iterator[tuple[str, Path]]:
    create_course(root, name="Live", requirement="chalktrace")
    (root / "lectures" / "hello.py").unlink()
    source = root / "lectures" / "live.py"
    source.write_text(lecture("one"), encoding="utf-8")
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "tracer", "serve", "-a", f"127.0.0.1:{port}"],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
    )
    url = f"http://127.0.0.1:{port}/lectures/live/"
    try:
        wait_until_served(url, server, 240)
        yield url, source
    finally:
        os.killpg(server.pid, signal.SIGTERM)  # serve and the mkdocs server it started
        server.wait(30)


def test_a_served_lecture_page_reloads_in_place_under_its_policy(tmp_path, browser):
    with served_course(tmp_path / "course") as (url, source):
        context = browser.new_context(viewport={"width": 1280, "height": 720})  # the policy stays on
        refused: list[str] = []
        context.on("console", lambda message: refused.append(message.text) if "Content Security Policy" in message.text else None)
        page = context.new_page()
        page.goto(url)
        assert "Content-Security-Policy" in page.content()
        wait_for(page, "document.body && document.body.innerText.includes('Version one')")

        # read mode: scrolled down, a save reloads the page where it was
        page.evaluate("window.scrollTo(0, 1500)")
        loads = page.evaluate("performance.getEntriesByType('navigation').length && performance.timeOrigin")
        source.write_text(lecture("two"), encoding="utf-8")
        wait_for(page, "document.body && document.body.innerText.includes('Version two')")
        wait_for(page, f"performance.timeOrigin !== {loads}", 10)  # a reload, not an edit of the old page
        wait_for(page, "Math.abs(window.scrollY - 1500) < 4", 10)

        # step mode: at a step, a save reloads the page at the same step
        page.goto(url + "#step=3")
        wait_for(page, "window.CHALKTRACE_VIEWER && window.CHALKTRACE_VIEWER.cur === 3")
        source.write_text(lecture("three"), encoding="utf-8")
        wait_for(page, "JSON.stringify(window.CHALKTRACE_DATA || {}).includes('Version three')")
        wait_for(page, "window.CHALKTRACE_VIEWER && window.CHALKTRACE_VIEWER.cur === 3", 10)
        wait_for_all(
            page,
            {
                "step mode": "document.documentElement.classList.contains('lt-stepping')",
                "step 3 in the URL": "location.hash.startsWith('#step=3')",
            },
        )

        # past the end of an error trace: the viewer shows its last step, the URL keeps step 50, and
        # the fixed lecture reopens at step 50 (not at the error trace's last step)
        page.goto(url + "#step=50")
        wait_for(page, "window.CHALKTRACE_VIEWER && window.CHALKTRACE_VIEWER.cur === 50")
        source.write_text(
            lecture("four").replace('    text("Version four")\n', '    text("Version four")\n    raise ValueError("a draft")\n')
        )
        wait_for(page, "window.CHALKTRACE_VIEWER && window.CHALKTRACE_VIEWER.count < 10")
        wait_for(page, "location.hash.startsWith('#step=50')", 10)
        source.write_text(lecture("five"), encoding="utf-8")
        wait_for(page, "JSON.stringify(window.CHALKTRACE_DATA || {}).includes('Version five')")
        wait_for(page, "window.CHALKTRACE_VIEWER && window.CHALKTRACE_VIEWER.cur === 50", 10)
        wait_for(page, "location.hash.startsWith('#step=50')", 10)

        # a syntax error writes no trace: the page reloads into the viewer's error view at the failing
        # line, the saved (broken) source around it, from a draft that leaves the committed trace alone
        trace = source.parent.parent / "site" / "traces" / "live.json"
        committed = trace.read_bytes()
        broken = lecture("six").replace('    text("The end.")\n', '    text("The end."\n')
        line = broken.splitlines().index('    text("The end."') + 1
        source.write_text(broken, encoding="utf-8")
        failed = "document.querySelector('.lt-retracing-failed:not([hidden])')"
        said = json.dumps(f"lectures/live.py:{line}: SyntaxError: '(' was never closed")
        error_line = ".lt-sline.lt-current.lt-error-line"
        shown = "document.querySelector('.lt-v-error')"
        wait_for_all(
            page,
            {
                "the failure line": f"{failed}?.textContent === {said}",
                "the failing line current": f"document.querySelector(\"{error_line}[data-line='{line}']\")",
                "its code": f"document.querySelector('{error_line} .lt-scode')?.innerText.trim() === 'text(\"The end.\"'",
                # the saved source, not the last trace's
                "the saved source": "document.querySelector('.lt-v-lines')?.innerText.includes('Version six')",
                "the error shown": f"(e => !!e && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden'"
                " && e.innerText.includes('SyntaxError') && e.innerText.includes(\"'(' was never closed\"))"
                f"({shown})",
                "step 50 kept for the fixed lecture": "location.hash.startsWith('#step=50')",
                # in sight over the step viewer: the element at its middle is the line itself
                "the failure in sight": "(f => { if (!f) return false; const r = f.getBoundingClientRect();"
                " return r.bottom <= innerHeight && r.height > 0 &&"
                f" document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) === f; }})({failed})",
            },
            120,
        )
        assert trace.read_bytes() == committed
        # undone (the traced bytes again: nothing to re-trace): the draft goes, the page is the trace's again
        source.write_text(lecture("five"), encoding="utf-8")
        wait_for(page, "!document.querySelector('.lt-retracing:not([hidden])')", 60)
        wait_for(page, "window.CHALKTRACE_VIEWER && window.CHALKTRACE_VIEWER.cur === 50", 60)
        wait_for_all(
            page,
            {
                "no error line": f"!document.querySelector('{error_line}')",
                "the trace's source": "document.querySelector('.lt-v-lines')?.innerText.includes('Version five')",
            },
            10,
        )
        source.write_text(broken, encoding="utf-8")
        wait_for(page, f"{failed} && {failed}.textContent")
        wait_for(page, f"!!document.querySelector(\"{error_line}[data-line='{line}']\")")
        source.write_text(lecture("six"), encoding="utf-8")
        wait_for(page, "JSON.stringify(window.CHALKTRACE_DATA || {}).includes('Version six')")
        wait_for(page, "!document.querySelector('.lt-retracing:not([hidden])')", 10)
        wait_for(page, "window.CHALKTRACE_VIEWER && window.CHALKTRACE_VIEWER.cur === 50", 10)
        wait_for(page, f"!document.querySelector('{error_line}')", 10)
        context.close()
        assert refused == []

        # what `build` publishes has no reload script, and no file for one
        subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "--quiet"],
            cwd=source.parent.parent,
            check=True,
            env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
        )
        built = source.parent.parent / "build" / "site"
        assert "livereload" not in (built / "lectures" / "live" / "index.html").read_text(encoding="utf-8")
        assert not (built / "assets" / "chalktrace" / "livereload.js").exists()
