"""Running commands the way a new user's shell would, for the end-to-end tests: ``run`` (fails the
test with the command's output tail when it exits non-zero) and ``clean_env`` (no PYTHONPATH or
VIRTUAL_ENV leaking from the test runner into a fresh virtual environment)."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path


def run(
    *command: str | Path, cwd: Path, env: dict[str, str], timeout: float = 600, check: bool = True
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if check:
        assert done.returncode == 0, f"{command}: exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["NO_MKDOCS_2_WARNING"] = "1"
    return env


def ctrl_c_as_a_terminal_gives_it() -> None:
    """``preexec_fn`` for a command a test will press Ctrl-C on: SIGINT at its default, as a terminal's
    shell starts a command. A test runner started in the background (``cmd &`` without job control,
    ``nohup``) has SIGINT ignored, and a child would inherit that and never see the Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
