"""tracer/commands/serve.py: ``chalktrace serve`` re-traces a saved lecture and the MkDocs plugin's ``on_serve``
watch makes the running server rebuild from the new trace (``serve`` passes no --watch of its own).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from helpers.network import fetch, free_port
from helpers.projects import make_project
from tracer.contract.trace_reading import load_trace


def test_serve_retraces_a_saved_lecture_and_serves_the_new_page(tmp_path):
    import shutil
    import time

    repo = Path(__file__).resolve().parents[2]
    root = make_project(tmp_path, {"demo.py": 'from tracer import text\n\ndef main():\n    text("# First title")\n'})
    shutil.copy(repo / "mkdocs.yml", root / "mkdocs.yml")
    for part in ("docs",):
        shutil.copytree(repo / "site" / part, root / "site" / part)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "tracer", "serve", "-a", f"127.0.0.1:{port}"],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
    )
    url = f"http://127.0.0.1:{port}/lectures/demo/"
    try:
        deadline = time.monotonic() + 90
        page = None
        while time.monotonic() < deadline and not (page and "First title" in page):
            time.sleep(0.5)
            page = fetch(url)
        assert page and "First title" in page, "the served page never showed the first trace"
        (root / "lectures" / "demo.py").write_text('from tracer import text\n\ndef main():\n    text("# Second title")\n')
        while time.monotonic() < deadline and "Second title" not in (page or ""):
            time.sleep(0.5)
            page = fetch(url)
        assert page and "Second title" in page, "saving the lecture did not re-trace and rebuild it"
        assert load_trace(root / "site" / "traces" / "demo.json")["lecture"]["title"] == "Second title"
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
