"""Running one command of a runner on this machine: in its own session, cancelled cleanly on Ctrl-C.

``run_command`` starts the command (a launch template filled in, or an ``ssh`` client) in a new
session, so the terminal's Ctrl-C reaches chalktrace alone; chalktrace then runs the ``cancel``
command (``scancel`` of the job, or the remote kill) and ends the whole process group, leaving
nothing behind. A command still running after ``seconds`` is treated the same way. This module must
not know what the command does: Slurm and ssh are ``slurm``'s and ``ssh``'s business.
"""

from __future__ import annotations

import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

STOP_GRACE_SECONDS = 10  # after SIGTERM, before SIGKILL


@dataclass
class Finished:
    returncode: int | None  # None: stopped after its time ran out
    stdout: str
    stderr: str

    def last_line(self) -> str:
        """The last non-empty line of its error output, for one-line messages."""
        lines = [line.strip() for line in self.stderr.splitlines() if line.strip()]
        return lines[-1] if lines else ""


def stop_group(process: subprocess.Popen[bytes]) -> None:
    """End ``process`` and every process of its session: SIGTERM, then SIGKILL after a grace."""
    for sig, wait in ((signal.SIGTERM, STOP_GRACE_SECONDS), (signal.SIGKILL, STOP_GRACE_SECONDS)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            pass
        try:
            process.wait(wait)
            # the leader is gone; others of its group may linger (srun's helpers): take them too
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            return
        except subprocess.TimeoutExpired:
            continue
        return


def run_command(
    argv: list[str],
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    stdin: bytes | None = None,
    seconds: float | None = None,
    cancel: Callable[[], None] | None = None,
) -> Finished:
    """Run ``argv`` to its end and return what it printed. On Ctrl-C (KeyboardInterrupt) or when
    ``seconds`` pass, ``cancel()`` runs first (it stops the work wherever it runs), then the local
    process group is ended; the KeyboardInterrupt goes on to the caller."""
    process = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = process.communicate(stdin, timeout=seconds)
    except subprocess.TimeoutExpired:
        _cancel_and_stop(process, cancel)
        out, err = process.communicate()
        return Finished(None, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"))
    except BaseException:
        _cancel_and_stop(process, cancel)
        raise
    return Finished(process.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"))


def _cancel_and_stop(process: subprocess.Popen[bytes], cancel: Callable[[], None] | None) -> None:
    try:
        if cancel is not None:
            cancel()
    finally:
        stop_group(process)
