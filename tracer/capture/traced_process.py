"""One traced process (a lecture, or one rank of it): what owns everything a run changes.

A :class:`TracedProcess` builds the recorder, the value encoder and the memory probe, and it owns every
piece of process-wide state tracing changes, each a context manager (most in ``process_state``).
:meth:`TracedProcess.importing` enters the import's: the lecture's import isolation, edtrace's
names, the run's fetcher and file-read listener, seeding; it builds the process after the import
(the probe depends on whether the lecture imported torch). :meth:`TracedProcess.run` enters the
run's in one ExitStack: the authoring API's rendering sink, the stdout, stderr and warnings capture,
the ``os._exit`` guard, file descriptors 1 and 2, the lecture's signals and timers,
``multiprocessing``'s ``BaseProcess.start`` (patched only while a process-start hook is registered,
the way coverage.py follows subprocesses), what extensions hand it (:meth:`add_process_state`: a
rank's ``torch.distributed`` wrappers), and the recorder's trace guard (``sys.settrace`` and
``Thread.start`` while recording), which puts back the tracer that was installed before
(``sys.gettrace()`` at start: a debugger's or coverage's).
Extensions (the ranks, ``tracer.capture.ranks``) plug in through :meth:`TracedProcess.add_extension` and
:meth:`TracedProcess.on_process_start`; :meth:`TracedProcess.abort` is the handle the timeout timer (``progress_and_timeout``)
calls. This module must not import the lecture, build the trace header (``header`` does) or write
files (``runner`` and the ranks do).
"""

from __future__ import annotations

import contextlib
import functools
import io
import sys
import re
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Any, Callable, ContextManager, Iterable, Iterator, Protocol, TypeVar

from tracer.contract import paths
from tracer.capture import api, import_alias
from tracer.capture.compute import LineMeter
from tracer.capture.memory import Probe, StorageRegistry, choose_probe
from tracer.capture.lecture_module import LECTURE_MODULE
from tracer.capture.output_budget import OutputBudget
from tracer.capture.portable_paths import library_name, path_scrubber
from tracer.capture.process_state import (
    ExitGuard,
    FdCapture,
    LectureExited,
    hold_timer_signals,
    isolated_imports,
    lecture_signals,
    process_start_hooks,
    seed_generators,
    seeded_imports,
)
from tracer.capture.recorder import Recorder
from tracer.capture.terminal import stderr as own_stderr
from tracer.capture.encoder_core import Limits
from tracer.contract.trace_settings import DEFAULT_PREVIEW_ROWS
from tracer.capture.values import ValueEncoder
from tracer.contract.trace_format import ErrorInfo, Frame


Loaded = TypeVar("Loaded")


@dataclass
class TraceOptions:
    """How one process is traced (the ``chalktrace run`` options that reach the recorder)."""

    seed: int = 0
    inspect_all: bool = False
    max_steps: int = paths.DEFAULT_MAX_STEPS
    limits: Limits | None = None
    preview_rows: int = DEFAULT_PREVIEW_ROWS  # recorded in the trace's options: the site folds grids after these
    probe_factory: Callable[[StorageRegistry], Probe] | None = None
    measure_flops: bool = True
    output_budget: OutputBudget | None = None
    max_plot_points: int = api.PLOT_DATA_POINTS
    trace_helpers: tuple[str, ...] = ()  # [tool.chalktrace] trace_helpers patterns
    guard_exit: bool = True  # os._exit unwinds the traced function (False in a rank: it exits for real)
    capture_fds: bool = True  # capture file descriptors 1 and 2 (False in a rank: its launcher captures them)
    seed_at_run: bool = True  # seed the generators when the run starts (False: seeded before the import)


class Extension(Protocol):
    """Something that runs alongside the recorder in a traced process (the ranks do)."""

    def start(self) -> None: ...  # just before the recorder starts
    def stop(self) -> None: ...  # just after it stops, however the traced function ended
    def abort(self) -> tuple[str, str] | None: ...  # the timeout timer: (where, what) of what held the run up


class _Capture(io.TextIOBase):
    """Stands in for sys.stdout or sys.stderr while a lecture runs: text goes to the step being executed."""

    def __init__(self, write: Callable[[str], None]) -> None:
        self._write = write

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._write(text)
        return len(text)


def warning_text(
    message: Any,
    category: type[Warning],
    filename: str,
    lineno: int,
    line: str | None,
    recorder: Recorder,
    scrub: Callable[[str], str],
) -> str:
    """A warning as the lecture's stderr shows it. One the lecture's own code raised reads as Python
    writes it; a library's reads ``LECTURE:LINE: Category: message (from LIBRARY)``, naming the
    lecture line that called into the library, not the library's install path."""
    if filename in recorder.files:
        return warnings.formatwarning(message, category, filename, lineno, line)
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename not in recorder.files:
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None:  # not called from the lecture (a thread of a library's own)
        return warnings.formatwarning(message, category, filename, lineno, line)
    library = library_name(scrub(filename))
    origin = f" (from {library})" if library else ""
    return f"{recorder.files[frame.f_code.co_filename].path}:{frame.f_lineno}: {category.__name__}: {message}{origin}\n"


class Sink:
    """The authoring API's view of a run: renderings go to the recorder."""

    def __init__(self, recorder: Recorder, max_plot_points: int = api.PLOT_DATA_POINTS) -> None:
        self._recorder = recorder
        self.project_root = recorder.project_root
        self.images: set[str] = set()
        self.max_plot_points = max_plot_points  # read by api.plot()
        self.plots_sampled = False  # a plot() held more points than max_plot_points

    def add_rendering(self, rendering: dict[str, Any]) -> None:
        if rendering.get("type") == "plot" and rendering.get("truncated"):
            self.plots_sampled = True
        if rendering.get("type") in ("image", "video") and not rendering.get("external"):
            self.images.add(rendering["data"])
        if "command" in rendering:  # system_text: no absolute project paths in traces
            scrub = self._recorder.encoder.scrub
            rendering["data"] = scrub(rendering["data"])
            rendering["command"] = [scrub(arg) for arg in rendering["command"]]
        self._recorder.add_rendering(rendering)

    def add_speaker_note(self, markdown: str) -> None:
        self._recorder.add_speaker_note(markdown)

    def relpath(self, path: Any) -> str | None:
        return self._recorder.relpath(path)

    def warn(self, message: str) -> None:
        """A warning about the lecture line now running (``path:line: message``)."""
        where = self._recorder.location()
        self._recorder.warn_once(f"{where}: {message}" if where else message)


@dataclass
class CallOutcome:
    """How the traced function ended: what it returned, or what escaped it."""

    value: Any = None
    escaped: BaseException | None = None


class TracedProcess:
    """One traced process: its recorder, encoder, probe and sink, and the state its run changes."""

    def __init__(self, lecture: Path, project_root: Path, options: TraceOptions | None = None) -> None:
        self.lecture = lecture  # the lecture's main file (absolute)
        self.project_root = project_root
        self.shown = paths.shown_path(lecture, project_root)  # the lecture as messages and the trace name it
        self.options = options = options or TraceOptions()
        root = project_root.resolve()
        registry = StorageRegistry()
        self.encoder = ValueEncoder(
            registry,
            options.limits,
            scrub=functools.partial(_scrub, paths=path_scrubber(root)),
            relpath=functools.partial(paths.project_relpath, root=root),
            aborts=(LectureExited,),
        )
        self.probe = (options.probe_factory or choose_probe)(registry)
        self.recorder = Recorder(
            lecture.parent,
            project_root,
            self.encoder,
            self.probe,
            inspect_all=options.inspect_all,
            max_steps=options.max_steps,
            meter_factory=LineMeter if options.measure_flops else None,
            trace_helpers=options.trace_helpers,
            output=options.output_budget,
        )
        self.recorder.preload(lecture)  # parse the lecture's directives before its clock starts
        self.sink = Sink(self.recorder, options.max_plot_points)
        self.extensions: list[Extension] = []
        self.previous_tracer: Any = None  # sys.gettrace() when the run started; restored when it stops
        self._start_hooks: list[Callable[[Any], None]] = []
        self._process_state: list[ContextManager[Any]] = []
        self._guard: ExitGuard | None = None
        self.loaded: dict[str, ModuleType] = {}  # modules the lecture's import loaded from its directory (``importing``)

    @classmethod
    @contextlib.contextmanager
    def importing(
        cls,
        lecture: Path,
        project_root: Path,
        options: TraceOptions,
        load: Callable[[], Loaded],
        around: Iterable[ContextManager[Any]] = (),
    ) -> Iterator[tuple["TracedProcess", Loaded]]:
        """Import the lecture and build its traced process, the import's state in force while the
        block runs (``run`` inside it): the lecture's import isolation (``isolated_imports``; the
        modules it loaded are ``loaded`` afterwards), edtrace's names (``import_alias``), each of
        ``around`` (the run's fetcher, the record of files it reads), and seeding (``seeded_imports``:
        the lecture's own module-level seeding comes after ours, so it is not seeded again at run).
        ``load()`` imports it; the process is built after it, so that the memory probe knows
        whether the lecture uses torch (and CUDA). What ``load`` raises leaves nothing changed."""
        with contextlib.ExitStack() as stack:
            loaded = stack.enter_context(isolated_imports(lecture, project_root))
            stack.enter_context(import_alias.installed())
            for manager in around:
                stack.enter_context(manager)
            with seeded_imports(options.seed):
                result = load()
            options.seed_at_run = False
            traced = cls(lecture, project_root, options)
            traced.loaded = loaded
            yield traced, result

    def _show_warning(
        self, message: Any, category: type[Warning], filename: str, lineno: int, file: Any = None, line: str | None = None
    ) -> None:
        text = warning_text(message, category, filename, lineno, line, self.recorder, self.encoder.scrub)
        (file or sys.stderr).write(text)

    def add_extension(self, extension: Extension) -> None:
        self.extensions.append(extension)

    def add_process_state(self, manager: ContextManager[Any]) -> None:
        """Enter ``manager`` while the traced function runs (after the extensions start, exited before
        they stop): an extension's patch of process-wide state (a rank's ``torch.distributed``)."""
        self._process_state.append(manager)

    def on_process_start(self, hook: Callable[[Any], None]) -> None:
        """Call ``hook(process)`` whenever the traced function starts a ``multiprocessing`` process."""
        self._start_hooks.append(hook)

    def run(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> CallOutcome:
        """Trace ``fn(*args, **kwargs)``; every exception (SystemExit, KeyboardInterrupt too) is caught
        into the outcome. The process state is as it was before when this returns."""
        outcome = CallOutcome()
        if self.options.seed_at_run:
            seed_generators(self.options.seed)
        recorder = self.recorder
        own_stderr()  # chalktrace's messages: saved (if not yet) before fd 2 and sys.stderr become the lecture's
        fds: FdCapture | None = None
        with contextlib.ExitStack() as stack:
            stack.enter_context(lecture_signals(recorder))
            stack.enter_context(api.rendering_sink(self.sink))
            if self.options.capture_fds:
                fds = stack.enter_context(FdCapture(recorder))
                recorder.drain = fds.drain
                stack.callback(setattr, recorder, "drain", None)
            stack.enter_context(contextlib.redirect_stdout(_Capture(recorder.write_stdout)))
            stack.enter_context(contextlib.redirect_stderr(_Capture(recorder.write_stderr)))
            stack.enter_context(warnings.catch_warnings())
            # Python's display, to the lecture's (captured) stderr whatever hook was installed before
            # the run (a test runner's, say); restored by catch_warnings(), with the filters.
            warnings.showwarning = self._show_warning
            if self.options.guard_exit:
                self._guard = stack.enter_context(ExitGuard())
            try:
                # a process the lecture starts writes to the captured descriptors like any child
                hooks = self._start_hooks + ([fds.child_starting] if fds is not None else [])
                with process_start_hooks(hooks), self._extensions_running():
                    self.previous_tracer = sys.gettrace()
                    # The trace guard (sys.settrace and Thread.start while recording, trace_guard)
                    # installs the tracer; leaving it puts back the one found at start.
                    try:
                        with recorder.start(resume=self.previous_tracer):
                            try:
                                outcome.value = fn(*args, **kwargs)
                            finally:
                                hold_timer_signals()  # from here on, the lecture's timers wait (then are dropped)
                    finally:
                        recorder.stop()
            except BaseException as exc:  # SystemExit, KeyboardInterrupt and os._exit too: each is a status
                outcome.escaped = exc
        if self._guard is not None and self._guard.in_child():
            self._guard.leave_child()
        return outcome

    @contextlib.contextmanager
    def _extensions_running(self) -> Iterator[None]:
        with contextlib.ExitStack() as stack:
            for extension in self.extensions:
                extension.start()
                stack.callback(extension.stop)
            for manager in self._process_state:
                stack.enter_context(manager)
            yield

    def abort(self) -> tuple[str, str] | None:
        """For the timeout timer (another thread): stop what the run started (its ranks); (where,
        what) naming what held it up, or None."""
        for extension in self.extensions:
            try:
                found = extension.abort()
            except Exception:
                continue
            if found is not None:
                return found
        return None

    def finish_output(self, label: str) -> None:
        """Mark where the output budgets cut stdout and stderr, and warn (``label: stdout: ...``) about
        each stream that was cut. Call once, after ``run``, before the steps' extras are copied."""
        recorder = self.recorder
        for name, budget in (("stdout", recorder.output), ("stderr", recorder.stderr_output)):
            kept = budget.finish()
            if kept is not None:
                recorder.warn_once(f"{label}: {name}: {kept}")

    def lecture_traceback(self, tb: TracebackType | None) -> list[Frame]:
        """The frames of ``tb`` inside traced lecture files, outermost first."""
        frames: list[Frame] = []
        for frame_summary, line in traceback.walk_tb(tb):
            info = self.recorder.files.get(frame_summary.f_code.co_filename)
            if info is not None:
                frames.append({"path": info.path, "line": line, "function": frame_summary.f_code.co_qualname})
        return frames

    def error_info(self, escaped: BaseException) -> ErrorInfo:
        """The trace's ``error`` record of an exception that ended the run."""
        kind = "os._exit" if isinstance(escaped, LectureExited) else type(escaped).__name__
        return {
            "type": kind,
            "message": stop_message(escaped, self.encoder.scrub),
            "traceback": self.lecture_traceback(escaped.__traceback__),
        }

    def truncated(self) -> dict[str, int]:
        """The trace's ``truncated`` record: every cap that left something out."""
        recorder, truncated = self.recorder, {}
        if recorder.truncated:
            truncated["max_steps"] = recorder.max_steps
        for name, budget in (("stdout_chars", recorder.output), ("stderr_chars", recorder.stderr_output)):
            if budget.elided_chars:
                truncated[name] = budget.total_chars
        if self.sink.plots_sampled:
            truncated["max_plot_points"] = self.options.max_plot_points
        return truncated


# Python names a function it could not bind arguments to by its module and name
# (``tracer.capture.api.text() got multiple values for keyword argument 'verbatim'``); a course
# calls it ``text()``, from ``edtrace`` or ``tracer``.
AUTHORING_CALL = re.compile(r"\btracer(?:\.\w+)+\.(\w+\(\))")


def course_names(text: str) -> str:
    """``text`` with chalktrace's module paths of authoring functions left out: ``text()``, as the course calls it."""
    return AUTHORING_CALL.sub(r"\1", text)


def _scrub(text: str, paths: Callable[[str], str]) -> str:
    """``text`` with environment paths in their portable forms, authoring functions named as the
    course calls them (``course_names``), and the lecture's private module name as Python names a
    script's module (``__main__``)."""
    return course_names(paths(text)).replace(LECTURE_MODULE + ".", "__main__.")


def stop_message(escaped: BaseException, scrub: Callable[[str], str]) -> str:
    """What ended the run, in words (the exception's message, scrubbed of the project's path)."""
    if isinstance(escaped, SystemExit):
        return f"sys.exit({escaped.code!r}) called: the lecture ended before main() returned"
    if isinstance(escaped, LectureExited):
        return f"os._exit({escaped.code}) called: the lecture ended before main() returned"
    if isinstance(escaped, KeyboardInterrupt):
        return "interrupted (KeyboardInterrupt): the lecture ended before main() returned"
    try:
        return scrub(str(escaped) + python_suggestion(escaped))
    except Exception:
        return "(the exception's message cannot be shown)"


def python_suggestion(escaped: BaseException) -> str:
    """What Python's own error display adds after the message (". Did you mean: 'w_k'?"), else "".
    Python 3.11 computes it only in its C display, so that display is asked, into a string."""
    if not isinstance(escaped, (NameError, AttributeError, ImportError)):
        return ""
    shown = io.StringIO()
    try:
        with contextlib.redirect_stderr(shown):
            sys.__excepthook__(type(escaped), escaped, escaped.__traceback__)
    except Exception:
        return ""
    last, message = shown.getvalue().rstrip("\n").rpartition("\n")[2], str(escaped)
    at = last.rfind(message) if message else -1
    return last[at + len(message) :] if at >= 0 else ""
