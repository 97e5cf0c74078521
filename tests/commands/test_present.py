"""tracer/commands/present.py: when the site is rebuilt first, and the one-line refusals (a lecture
the course does not have, a busy port)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

from helpers.projects import make_project
from tracer.commands.present import lecture_path, site_is_stale, terminal_qr
from tracer.contract.course_layout import quiet_layout_of


def built(root):
    (root / "mkdocs.yml").write_text("site_name: x\n", encoding="utf-8")
    (root / "site" / "docs").mkdir(parents=True, exist_ok=True)
    (root / "build" / "site").mkdir(parents=True)
    (root / "build" / "notes").mkdir()
    (root / "build" / "site" / "index.html").write_text("<html></html>", encoding="utf-8")


def test_the_site_is_stale_when_a_trace_doc_or_mkdocs_yml_is_newer_or_notes_are_missing(tmp_path):
    root = make_project(tmp_path)
    layout, site = quiet_layout_of(root), root / "build" / "site"

    def stale():
        return site_is_stale(layout, root / "mkdocs.yml", site)

    (root / "site" / "traces" / "a.json").write_text("{}", encoding="utf-8")
    built(root)
    (root / "build" / "site" / "index.html").unlink()
    assert stale()  # never built
    built_at = root / "build" / "site" / "index.html"
    built_at.write_text("<html></html>", encoding="utf-8")
    assert not stale()
    later = time.time() + 5
    for path in (root / "site" / "traces" / "a.json", root / "mkdocs.yml"):
        os.utime(path, (later, later))
        assert stale(), path
        os.utime(path, (later - 60, later - 60))
    assert not stale()
    (root / "build" / "notes").rmdir()
    assert stale()


def test_a_lecture_is_named_by_its_name_or_file_and_an_unknown_one_is_none(tmp_path):
    layout = quiet_layout_of(make_project(tmp_path))
    assert lecture_path(layout, None) == "/"
    assert lecture_path(layout, "a") == lecture_path(layout, "lectures/a.py") == "/lectures/a/"
    assert lecture_path(layout, "_shared") is None and lecture_path(layout, "nosuch") is None


def test_the_terminal_qr_code_is_drawn_in_block_characters():
    drawn = terminal_qr("http://192.168.1.20:8000/lectures/a/").splitlines()
    assert len(drawn) >= 12 and len({len(line) for line in drawn if line}) == 1 and "\u2588" in drawn[0]


def call(root, *args):
    done = subprocess.run(
        [sys.executable, "-m", "tracer", "present", *args], cwd=root, capture_output=True, text=True, timeout=120
    )
    return done.returncode, done.stderr


def test_an_unknown_lecture_and_a_busy_port_are_one_line_each(tmp_path):
    root = make_project(tmp_path)
    built(root)
    assert call(root, "nosuch") == (2, "chalktrace present: no lecture 'nosuch' in lectures/\n")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code, stderr = call(root, "a", "--port", str(port))
    assert code == 2 and stderr.splitlines() == [
        f"chalktrace present: port {port} is in use (Address already in use): is another server running there? "
        f"Stop it, or pass another port: --port {port + 1}"
    ]
