"""Threads a lecture started that are still running when its ``main()`` has returned.

Python waits for every non-daemon thread before the process exits, so one that never ends would
keep ``chalktrace run`` alive for ever after the trace is written. ``run`` names them once; with
``--timeout`` it waits for them only until the run's deadline, then says which are still running
and ends the process (the trace is already written, atomically). This module must not record
steps or write traces.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any, Collection

from tracer.exit_codes import ExitCode


def started_since(before: Collection[threading.Thread]) -> list[threading.Thread]:
    """Non-daemon threads alive now that were not in ``before`` (the lecture's, started while it ran)."""
    return [t for t in threading.enumerate() if t not in before and t.is_alive() and not t.daemon]


def names(threads: list[threading.Thread]) -> str:
    return ("thread " if len(threads) == 1 else "threads ") + ", ".join(repr(t.name) for t in threads)


def bound(
    before: Collection[threading.Thread], label: str, *, deadline: float | None, seconds: float | None, stream: Any
) -> None:
    """After a run: wait for the lecture's lingering threads until ``deadline`` (``time.monotonic()``),
    then end the process with ExitCode.TIMEOUT naming those still running; without a deadline, say
    once that the command waits for them."""
    lingering = started_since(before)
    if not lingering:
        return
    if deadline is None:
        stream.write(
            f"{label}: main() returned; waiting for {names(lingering)} that the lecture started "
            "(Ctrl-C stops it; --timeout bounds the wait)\n"
        )
        stream.flush()
        return
    for thread in lingering:
        thread.join(max(0.0, deadline - time.monotonic()))
    still = [t for t in lingering if t.is_alive()]
    if still:
        stream.write(
            f"{label}: timeout: main() returned, but {names(still)} that the lecture started still ran "
            f"after {seconds:g}s; the trace is written; stopping {'it' if len(still) == 1 else 'them'}\n"
        )
        stream.flush()
        os._exit(ExitCode.TIMEOUT)
