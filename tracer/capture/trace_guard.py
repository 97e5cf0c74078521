"""Steps are never lost without a word: watch who switches the tracer while a lecture is recorded.

While the recorder runs, ``TraceGuard`` stands in for ``sys.settrace`` (looked up by name, so a
debugger, a profiler or the lecture itself goes through it) and watches ``threading.Thread.start``:

* ``sys.settrace(None)`` from the recorded thread leaves nothing else tracing, so it is safe to keep
  chalktrace's tracer: the call is ignored and a warning names the line.
* ``sys.settrace(other)`` (another tool takes over) is honoured, since that tool relies on it, and a
  warning says ``file:line: the tracer was switched off here; steps after it are missing``. When that
  tool removes itself again, chalktrace's tracer is put back if its picture of the call stack still
  matches the live lecture frames (else it stays off and says so).
* A tracer replaced behind its back (C code calling ``PyEval_SetTrace``) is found when recording
  stops and named by the last recorded line.
* Lines run in threads the lecture starts are not traced (the recorder follows one thread): a thread
  whose target (or ``run``) is lecture code counts the lecture lines it runs, and when recording
  stops one warning per thread names it, its function and how many lines are missing from the trace.
  The count is kept by a tracer set inside that thread only, which passes every event on to the
  tracer another tool (coverage) had set there; no trace hook is set for other new threads.

Nothing here runs per traced line of the recorded thread: its per-line callback is untouched. This module must not record
steps or encode values; it only reports through the recorder's ``warn_once``.
"""

from __future__ import annotations

import os
import sys
import threading
from types import CodeType, FrameType
from typing import Any, Callable, Protocol


SWITCHED_OFF = "the tracer was switched off here; steps after it are missing"
# The real functions, taken when this module is first imported (before any guard stands in for them):
# a forked child, or a guard started inside another, still reaches them.
_SETTRACE = sys.settrace
_THREAD_START = threading.Thread.start


class GuardedRecorder(Protocol):
    """What the guard asks of the recorder it stands in for (``recorder.Recorder``)."""

    truncated: bool  # the step cap stopped recording
    steps: list[Any]

    @property
    def active(self) -> bool: ...

    def lecture_path(self) -> str: ...

    def warn_once(self, message: str) -> None: ...

    def known_code(self, code: CodeType) -> Any: ...

    def decide_code(self, code: CodeType) -> Any: ...

    def stack_keys(self) -> list[tuple[str, str]]: ...


class TraceGuard:
    def __init__(
        self, recorder: GuardedRecorder, global_trace: Callable[..., Any], local_trace: Callable[..., Any], resume: Any = None
    ) -> None:
        self.recorder = recorder
        self.resume = resume  # the tracer installed before recording: put back when the guard is left
        self.global_trace = global_trace
        self.local_trace = local_trace
        self.thread = threading.get_ident()
        self.pid = os.getpid()  # a forked child (a rank) inherits the guard; there it stands aside
        self.replaced_by: Any = None  # the other tool's tracer while it holds the thread
        self.noted_threads: set[str] = set()
        # thread name -> (the thread, "path:line: function()" of its lecture code, [lines run]): counted
        # in that thread, reported when recording stops
        self.thread_lines: dict[str, tuple[threading.Thread, str, list[int]]] = {}
        self._real_settrace = _SETTRACE
        self._real_thread_start = _THREAD_START

    # -- installing -------------------------------------------------------------------------------
    def __enter__(self) -> "TraceGuard":
        self.install()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.uninstall(resume=self.resume)

    def install(self) -> None:
        sys.settrace = self.settrace
        guard = self

        def start(thread: threading.Thread) -> None:
            guard.note_thread(thread)
            guard._real_thread_start(thread)

        threading.Thread.start = start  # type: ignore[method-assign,assignment]
        self._real_settrace(self.global_trace)

    def uninstall(self, resume: Any = None) -> None:
        """Stop tracing (``resume``: the tracer installed before recording, put back) and put the real
        functions back; warn when the tracer had been replaced without going through
        ``sys.settrace`` (and recording had not stopped on its own)."""
        # Threads are reported before the previous tracer is back: a C tracer put back with
        # sys.settrace (coverage's) loses its place in the caller if Python code runs in between.
        self.report_threads()
        current = sys.gettrace()
        self._real_settrace(resume)
        sys.settrace = self._real_settrace
        threading.Thread.start = self._real_thread_start  # type: ignore[method-assign]
        if current is not self.global_trace and self.replaced_by is None and self.recorder.active and not self.recorder.truncated:
            last = self.recorder.steps[-1] if self.recorder.steps else None
            where = f"{last[1][0]}:{last[2]}" if last is not None else self.recorder.lecture_path()
            self.recorder.warn_once(f"{where}: {SWITCHED_OFF} (replaced after this line by code chalktrace could not see)")

    # -- sys.settrace while recording ---------------------------------------------------------------
    def settrace(self, function: Any) -> None:
        if threading.get_ident() != self.thread or not self.recorder.active or os.getpid() != self.pid:
            self._real_settrace(function)  # a thread of the lecture's, or recording has stopped
            return
        where = self._lecture_line(sys._getframe(1))
        if function is None:
            if self.replaced_by is None:  # nothing else is tracing: keep ours
                self.recorder.warn_once(
                    f"{where}: the lecture switched the tracer off here (sys.settrace(None)); "
                    "chalktrace kept tracing, so no steps are missing"
                )
                return
            self.replaced_by = None
            self._real_settrace(None)
            self._restore(sys._getframe(1), where)
            return
        if function is self.global_trace:
            self._real_settrace(function)
            return
        self.replaced_by = function
        name = getattr(function, "__qualname__", None) or type(function).__name__
        self.recorder.warn_once(f"{where}: {SWITCHED_OFF} (replaced by {name})")
        self._real_settrace(function)

    def _restore(self, frame: FrameType | None, where: str) -> None:
        """Put chalktrace's tracer back, if its stack of lecture frames is still the live one."""
        live: list[FrameType] = []
        while frame is not None:
            found = self.recorder.known_code(frame.f_code)
            if found is not None:
                live.append(frame)
            frame = frame.f_back
        live.reverse()  # outermost first, as the recorder's stack
        keys = [self.recorder.known_code(f.f_code)[1] for f in live]
        if keys != self.recorder.stack_keys():
            self.recorder.warn_once(
                f"{where}: the other tracer was removed here, but the lecture's calls moved "
                "meanwhile: chalktrace stays off, steps after this are missing"
            )
            return
        for f in live:
            f.f_trace = self.local_trace
        self._real_settrace(self.global_trace)
        self.recorder.warn_once(f"{where}: the other tracer was removed here; chalktrace traces again from here")

    def _lecture_line(self, frame: FrameType | None) -> str:
        """``path:line`` of the innermost lecture frame at or outside ``frame``."""
        while frame is not None:
            found = self.recorder.known_code(frame.f_code)
            if found is not None:
                return f"{found[1][0]}:{frame.f_lineno}"
            frame = frame.f_back
        return self.recorder.lecture_path()

    # -- threads ---------------------------------------------------------------------------------
    def note_thread(self, thread: threading.Thread) -> None:
        """Count the lecture lines of a thread that will run lecture code (they are not in the trace)."""
        if os.getpid() != self.pid or not self.recorder.active:
            return
        run = type(thread).run
        target = getattr(thread, "_target", None) if run is threading.Thread.run else run
        code = getattr(getattr(target, "__func__", target), "__code__", None)
        if code is None:
            return
        found = self.recorder.decide_code(code)
        if found is None or thread.name in self.noted_threads:
            return  # library code (a pool's worker), or noted already
        self.noted_threads.add(thread.name)
        count = [0]
        self.thread_lines[thread.name] = (thread, f"{found[1][0]}:{code.co_firstlineno}: {found[1][1]}()", count)
        run_thread = thread.run
        counting = self._counting_tracer

        def counted_run() -> None:
            other = sys.gettrace()  # what another tool set for new threads (coverage's hook), kept
            _SETTRACE(counting(other, count))
            try:
                run_thread()
            finally:
                _SETTRACE(other)

        thread.run = counted_run  # type: ignore[method-assign]

    def _counting_tracer(self, other: Any, count: list[int]) -> Callable[..., Any]:
        """A tracer for a lecture thread: counts its lecture lines and passes every event to ``other``."""
        decide = self.recorder.decide_code

        def global_trace(frame: FrameType, event: str, arg: Any) -> Any:
            inner = other(frame, event, arg) if other is not None else None
            found = decide(frame.f_code)
            if found is None:
                return inner

            def local_trace(frame: FrameType, event: str, arg: Any) -> Any:
                nonlocal inner
                if event == "line":
                    count[0] += 1
                if inner is not None:
                    inner = inner(frame, event, arg)
                return local_trace

            return local_trace

        return global_trace

    def report_threads(self) -> None:
        """Say once per lecture thread how many of its lines are missing from the trace."""
        for name, (thread, where, count) in self.thread_lines.items():
            running = "; it was still running when recording stopped" if thread.is_alive() else ""
            lines = f"{count[0]:,} line{'s' if count[0] != 1 else ''} run"
            self.recorder.warn_once(
                f"{where} ran in thread {name!r}, which chalktrace does not trace: its lines "
                f"are not in the trace ({lines}{running})"
            )
        self.thread_lines.clear()
