"""Site helpers for tests: build the real MkDocs site from traces into a temp dir, serve it, open Chromium.

``build_site(root, traces)`` copies the project's ``mkdocs.yml`` and ``site/`` pieces plus the test
lectures (for their images) under ``root``, puts the given trace files in ``site/traces``, runs
``mkdocs build --strict`` and returns the built site's directory (``site_project`` makes the same
project without building it). ``serve(directory)`` serves a directory on 127.0.0.1 (a free port, in a
thread) and yields its base URL. ``chromium()`` launches Debian's Chromium through playwright, or
skips the test when it is not installed.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def build_site(
    root: Path,
    traces: list[Path],
    gpu_runs: Sequence[Path] = (),
    language: str | None = None,
    environment: dict[str, str] | None = None,
) -> Path:
    """Build the real site (real plugin, real templates and assets) for ``traces`` (and kept GPU runs) under
    ``root``; ``language`` is the course's ``theme.language`` (Material's default, English, without it);
    ``environment`` is added to the build's."""
    site_project(root, traces, gpu_runs, language)
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=180,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin", **(environment or {})},
    )
    if result.returncode != 0:
        raise RuntimeError(f"mkdocs build failed in {root}:\n{result.stderr[-3000:]}")
    return root / "build" / "site"


def site_project(root: Path, traces: list[Path], gpu_runs: Sequence[Path] = (), language: str | None = None) -> Path:
    """The MkDocs project ``build_site`` builds, made under ``root`` (its ``mkdocs.yml``) and not built."""
    root.mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / "mkdocs.yml", root / "mkdocs.yml")
    if language is not None:
        config = (root / "mkdocs.yml").read_text(encoding="utf-8")
        assert "\ntheme:\n  name: material\n" in config
        config = config.replace("\ntheme:\n  name: material\n", f"\ntheme:\n  name: material\n  language: {language}\n")
        (root / "mkdocs.yml").write_text(config, encoding="utf-8")
    for part in ("docs",):
        shutil.copytree(REPO / "site" / part, root / "site" / part)
    shutil.copytree(REPO / "tests" / "lectures", root / "tests" / "lectures", dirs_exist_ok=True)
    shutil.copytree(REPO / "lectures" / "images", root / "lectures" / "images", dirs_exist_ok=True)
    (root / "site" / "traces").mkdir(parents=True, exist_ok=True)
    for trace in traces:
        shutil.copy(trace, root / "site" / "traces" / trace.name)
    for trace in gpu_runs:
        (root / "site" / "traces" / "gpu").mkdir(exist_ok=True)
        shutil.copy(trace, root / "site" / "traces" / "gpu" / trace.name)
    return root / "mkdocs.yml"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the base class's name)
        pass


@contextlib.contextmanager
def serve(directory: Path) -> Iterator[str]:
    """Serve ``directory`` over HTTP on 127.0.0.1; yields the base URL (ending in "/")."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(directory)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def chromium() -> Iterator[object]:
    """A headless Chromium (playwright Browser); skips the calling test when it cannot run."""
    if not CHROMIUM.exists():
        if os.environ.get("CHALKTRACE_REQUIRE_BROWSER"):  # CI installs it: a missing browser is a failure there
            pytest.fail("chromium not installed but CHALKTRACE_REQUIRE_BROWSER is set (CI): apt-get install -y chromium")
        pytest.skip("chromium not installed: apt-get install -y chromium")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright not installed: pip install playwright")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@contextlib.contextmanager
def served_fixture_site(root: Path, *names: str) -> Iterator[str]:
    """Trace the fixture lectures ``names``, build them into one real site under ``root``, serve it."""
    from helpers.traced import trace_all, trace_path

    trace_all(*names)
    with serve(build_site(root, [trace_path(name) for name in names])) as url:
        yield url


@contextlib.contextmanager
def viewer_context(browser: Any, **options: Any) -> Iterator[Any]:
    """A browser context for the viewer's tests; an uncaught error on any of its pages fails the test.

    It bypasses the pages' Content-Security-Policy: playwright's ``wait_for_function`` polls with
    eval() in the page, which the policy refuses (test_hostile.py steps the viewer with it on)."""
    context = browser.new_context(bypass_csp=True, **options)
    errors: list[str] = []
    context.on("page", lambda page: page.on("pageerror", lambda exc: errors.append(str(exc))))
    try:
        yield context
    finally:
        context.close()
    assert not errors, errors


def trace_ok(lecture: Path, directory: Path) -> dict:
    """Trace ``lecture`` with the real tracer into ``directory`` and load it; fail if the lecture raised."""
    from tracer.capture.runner import run_lecture
    from tracer.contract.trace_reading import load_trace

    out = directory / f"{lecture.stem}.json"
    result = run_lecture(lecture, output=out)
    assert result.status == "ok", result.error_line
    return load_trace(out)


def goto_lecture(page: Any, site: str, name: str, hash_: str = "") -> None:
    """Open lecture ``name`` of the served ``site`` (``hash_``: ``#step=N`` and the like) and wait
    until its viewer is ready."""
    page.goto(f"{site}lectures/{name}/{hash_}")
    page.wait_for_function("window.CHALKTRACE_READY !== undefined")
