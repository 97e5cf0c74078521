"""Watching a traced run from another thread: the progress line and the timeout timer.

Both read the traced's recorder (its step tuples and current location) while the lecture runs; the
timer ends a run that passes its time limit through :meth:`TracedProcess.abort` (no orphan ranks) and
``os._exit``, naming the last line reached. This module must not record steps itself.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from tracer.capture import terminal
from tracer.exit_codes import ExitCode


def show_progress(traced_box: list, stop: threading.Event, label: str, stream: Any) -> None:
    from rich.console import Console

    console = Console(file=stream)  # the terminal: sys.stderr is the lecture's own while it runs
    with console.status(f"{label}: starting") as status:
        while not stop.wait(0.1):
            if not traced_box:
                continue
            recorder = traced_box[0].recorder
            where = recorder.location() or ""
            status.update(f"{label}: {len(recorder.steps):,} steps  {where}")


def start_timeout(seconds: float | None, traced_box: list, label: str) -> threading.Timer | None:
    """A timer that ends a lecture running past ``seconds``, naming the last line reached (the
    run's TracedProcess, once it exists, is ``traced_box[0]``: its ``abort()`` stops the ranks)."""
    if not seconds:
        return None
    stream = terminal.stderr()  # saved at start: while the lecture runs, sys.stderr and fd 2 are its own

    def expire() -> None:
        traced = traced_box[0] if traced_box else None
        recorder = traced.recorder if traced is not None else None
        where = label
        if recorder is not None and recorder.steps:
            from tracer.capture.recorder import KEY, LINE

            step = recorder.steps[-1]
            where = f"{step[KEY][0]}:{step[LINE]}"
        if recorder is not None and recorder.location():
            where = recorder.location()
        hung = traced.abort() if traced is not None else None  # stop its ranks: no orphans
        if hung is not None:
            where, what = hung[0], f"{label} ran longer than {seconds:g}s: {hung[1]}"
            stream.write(f"{where}: timeout: {what}; previous trace kept\n")
        else:
            stream.write(f"{where}: timeout: {label} ran longer than {seconds:g}s; previous trace kept\n")
        stream.flush()
        os._exit(ExitCode.TIMEOUT)

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()
    return timer
