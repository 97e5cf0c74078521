"""``chalktrace run`` in a subprocess, tagged through its environment, so a test can find any rank
process left behind (``assert_no_orphans``)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def tagged_processes(tag: str) -> list[int]:
    """Pids of live processes whose environment carries ``tag`` (ranks inherit it from the run)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().split(")")[-1].split()[0]
        except OSError:
            continue
        if f"CHALKTRACE_TEST_TAG={tag}".encode() in environ and state != "Z":
            found.append(int(entry.name))
    return found


class Run:
    """``chalktrace run ARGV`` started now in a subprocess, tagged; ``result()`` waits for it."""

    def __init__(self, *argv: str) -> None:
        self.tag = uuid.uuid4().hex
        env = dict(os.environ, CHALKTRACE_TEST_TAG=self.tag)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tracer", "run", *argv],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def result(self, timeout: float = 180) -> tuple[int, str]:
        _out, err = self.process.communicate(timeout=timeout)
        return self.process.returncode, err


def assert_no_orphans(tag: str) -> None:
    deadline = time.monotonic() + 5
    while tagged_processes(tag) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert tagged_processes(tag) == [], "rank processes outlived the run"
