"""The run protocol: how ``build`` and ``check`` trace each lecture in a fresh ``chalktrace run`` process.

The whole contract between them and the traced subprocess is a :class:`RunRequest`, the command
:func:`run_command` makes of it (``chalktrace run``) and the :class:`RunOutcome` :func:`read_outcome`
makes of the exit code and error lines; :func:`run_many` runs several at once with a progress
display. This module must not record steps, render pages or parse command lines.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tracer.contract.paths import shown_path
from tracer.exit_codes import ExitCode


@dataclass
class RunOutcome:
    lecture: Path
    returncode: int
    seconds: float
    message: str = ""  # the run's error line(s), if any

    @property
    def ok(self) -> bool:
        return self.returncode == 0


@dataclass(frozen=True)
class RunRequest:
    """One lecture to trace in a fresh interpreter with ``chalktrace run`` (isolation, real timeouts, true
    parallelism): the whole contract between ``build``/``check`` and the traced subprocess is this
    request, :func:`run_command` and :func:`read_outcome`."""

    lecture: Path
    output: Path
    timeout: float  # seconds the run may take; the interpreter is killed KILL_GRACE_SECONDS after that
    force: bool = False
    options: tuple[str, ...] = ()  # further run options (a committed trace's, trace_settings.run_arguments)


KILL_GRACE_SECONDS = 60  # beyond the run's own --timeout, for start-up and writing the trace


def run_command(request: RunRequest) -> list[str]:
    """The command line that traces ``request``: the one place that spells ``chalktrace run``'s options."""
    command = [
        sys.executable,
        "-m",
        "tracer",
        "run",
        str(request.lecture),
        "-o",
        str(request.output),
        "-q",
        "--timeout",
        str(request.timeout),
        *request.options,
    ]
    if request.force:
        command.append("--force")
    return command


def read_outcome(request: RunRequest, returncode: int | None, stderr: str, seconds: float) -> RunOutcome:
    """What a run of ``request`` came to: its exit code (None: it was killed after its timeout and the
    grace) and its last three error lines (warnings left out)."""
    if returncode is None:
        return RunOutcome(
            request.lecture,
            ExitCode.TIMEOUT,
            seconds,
            f"{request.lecture}: timeout: killed after {request.timeout + KILL_GRACE_SECONDS:g}s",
        )
    lines = [line for line in stderr.splitlines() if line.strip() and not line.startswith("chalktrace: warning")]
    return RunOutcome(request.lecture, returncode, seconds, "\n".join(lines[-3:]))


def trace_in_subprocess(request: RunRequest) -> RunOutcome:
    """Trace one lecture in a fresh interpreter."""
    started = time.perf_counter()
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env.setdefault("PYTHONHASHSEED", "0")  # traced processes hash strings alike on every run
    try:
        done = subprocess.run(
            run_command(request), capture_output=True, text=True, timeout=request.timeout + KILL_GRACE_SECONDS, env=env
        )
    except subprocess.TimeoutExpired:
        return read_outcome(request, None, "", time.perf_counter() - started)
    return read_outcome(request, done.returncode, done.stderr, time.perf_counter() - started)


class _Display:
    """Per-lecture progress: a live table on a terminal, one line per finished lecture otherwise."""

    def __init__(self, lectures: list[str], enabled: bool) -> None:
        self._live = None
        self._rows = {name: "queued" for name in lectures}
        if enabled and sys.stderr.isatty():
            from rich.live import Live

            self._live = Live(
                self._table(),
                refresh_per_second=8,
                transient=False,
                console=__import__("rich.console").console.Console(stderr=True),
            )
            self._live.start()

    def _table(self) -> Any:
        from rich.table import Table

        table = Table(show_header=False, box=None)
        for name, status in self._rows.items():
            table.add_row(name, status)
        return table

    def update(self, name: str, status: str, final: bool = False) -> None:
        self._rows[name] = status
        if self._live is not None:
            self._live.update(self._table())
        elif final:
            print(f"{name}: {status}", file=sys.stderr)

    def close(self) -> None:
        if self._live is not None:
            self._live.stop()


def run_many(
    lectures: list[Path],
    outputs: list[Path],
    *,
    jobs: int,
    timeout: float,
    force: bool,
    project_root: Path,
    show: bool = True,
    options: list[tuple[str, ...]] | None = None,
) -> list[RunOutcome]:
    """Trace ``lectures`` into ``outputs``, ``jobs`` at a time; ``options``: each lecture's further run
    options (none: the course's [tool.chalktrace] and the built-in defaults)."""
    names = [shown_path(p, project_root) for p in lectures]
    display = _Display(names, show)

    def work(index: int) -> RunOutcome:
        display.update(names[index], "tracing…")
        outcome = trace_in_subprocess(
            RunRequest(lectures[index], outputs[index], timeout=timeout, force=force, options=options[index] if options else ())
        )
        last = outcome.message.splitlines()[-1] if outcome.message else outcome.returncode
        status = (
            f"traced in {outcome.seconds:.1f}s"
            if outcome.ok
            else f"raised in {outcome.seconds:.1f}s ({last})"
            if outcome.returncode == ExitCode.LECTURE_FAILED
            else f"FAILED ({last})"
        )
        display.update(names[index], status, final=True)
        return outcome

    try:
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            return list(pool.map(work, range(len(lectures))))
    finally:
        display.close()
