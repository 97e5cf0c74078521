"""A real ``chalktrace present`` for browser tests: a scratch course with a small lecture that has
speaker notes, the command run in a child process on a free port, and the two links it prints."""

from __future__ import annotations

import contextlib
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from helpers.network import free_port
from helpers.projects import make_project
from helpers.site import REPO

LECTURE = """
from tracer import speaker_note, text


def square(n):
    result = n * n  # @inspect result
    return result


def main():
    text("# The room")
    speaker_note("SECRET-NOTE-1: ask who has seen a call stack")
    a = 1  # @inspect a
    b = a + 1  # @inspect b
    text("## Calls")
    speaker_note("SECRET-NOTE-2: now **the loop**")
    total = 0  # @inspect total
    for i in range(6):
        total += square(i)  # @inspect total
    text("That is all.")
"""


@dataclass
class Room:
    presenter_url: str
    audience_url: str
    process: subprocess.Popen[str]
    output: list[str]


@contextlib.contextmanager
def presenting(root: Path, *options: str) -> Iterator[Room]:
    """``chalktrace present room`` in a scratch course under ``root``; yields its links once it serves."""
    make_project(root, {"room.py": LECTURE})
    shutil.copy(REPO / "mkdocs.yml", root / "mkdocs.yml")
    shutil.copytree(REPO / "site" / "docs", root / "site" / "docs")
    process = subprocess.Popen(
        [sys.executable, "-m", "tracer", "present", "room", "--port", str(free_port()), *options],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
    )
    lines: queue.Queue[str] = queue.Queue()
    output: list[str] = []

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    try:
        deadline = time.monotonic() + 180
        while not any("Ctrl-C stops the room" in line for line in output):
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("chalktrace present did not start:\n" + "".join(output))
            with contextlib.suppress(queue.Empty):
                output.append(lines.get(timeout=0.5))
        text = "".join(output)
        presenter = re.search(r"presenter .*?\n\s+(http://\S+)", text)
        audience = re.search(r"audience:\n\s+(http://\S+)", text)
        assert presenter and audience, text
        yield Room(presenter.group(1), audience.group(1), process, output)
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
