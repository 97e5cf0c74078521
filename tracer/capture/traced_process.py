"""One traced process (a lecture, or one rank of it): what owns everything a run changes.

A :class:`TracedProcess` builds the recorder, the value encoder and the memory probe, and while it runs a
function it owns every piece of process-wide state tracing needs: the authoring API's rendering
sink, the stdout, stderr and warnings capture, the seeded random generators, the ``os._exit``
guard, ``multiprocessing``'s ``BaseProcess.start`` (patched only while a process-start hook is
registered, the way coverage.py follows subprocesses), and the tracer that was installed before
(``sys.gettrace()`` at start: a debugger's or coverage's), which it puts back when it stops.
Extensions (the ranks, ``tracer.capture.ranks``) plug in through :meth:`TracedProcess.add_extension` and
:meth:`TracedProcess.on_process_start`; :meth:`TracedProcess.abort` is the handle the timeout watchdog (``watchdog``)
calls. This module must not import the lecture, build the trace header (``header`` does) or write
files (``runner`` and the ranks do).
"""

from __future__ import annotations

import codecs
import contextlib
import functools
import importlib.abc
import io
import multiprocessing.process
import os
import random
import signal
import sys
import tempfile
import threading
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Any, Callable, Iterator, NoReturn, Protocol

from tracer.contract import paths
from tracer.capture import api, audit
from tracer.capture.compute import LineMeter
from tracer.capture.memory import Probe, StorageRegistry, choose_probe
from tracer.capture.lecture_module import LECTURE_MODULE
from tracer.capture.output_budget import OutputBudget
from tracer.capture.portable_paths import library_name, path_scrubber
from tracer.capture.recorder import Recorder
from tracer.capture.terminal import stderr as own_stderr
from tracer.capture.encoder_core import Limits
from tracer.capture.values import ValueEncoder
from tracer.contract.trace_format import ErrorInfo, Frame


class LectureExited(BaseException):
    """Raised in place of ``os._exit(code)`` called by the lecture's own process while it is traced.

    A BaseException, like SystemExit, so that the lecture's ``except Exception`` does not swallow it.
    """

    def __init__(self, code: int) -> None:
        super().__init__(f"os._exit({code}) called")
        self.code = code


@dataclass
class TraceOptions:
    """How one process is traced (the ``chalktrace run`` options that reach the recorder)."""

    seed: int = 0
    inspect_all: bool = False
    max_steps: int = paths.DEFAULT_MAX_STEPS
    limits: Limits | None = None
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
    def abort(self) -> tuple[str, str] | None: ...  # the watchdog: (where, what) of what held the run up


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


def seed_generators(seed: int) -> None:
    """Seed every generator the lecture has loaded (torch is seeded only if the lecture imports it)."""
    random.seed(seed)
    for name, seeder in _SeedOnImport.SEEDED.items():
        module = sys.modules.get(name)
        if module is not None:
            seeder(module, seed)


class _SeedOnImport(importlib.abc.MetaPathFinder):
    """Seeds numpy's or torch's global generator right after the lecture's import loads it, before the
    lecture's next statement (its own ``np.random.seed(…)`` among them) runs."""

    SEEDED = {"numpy": lambda module, seed: module.random.seed(seed), "torch": lambda module, seed: module.manual_seed(seed)}

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._busy = False

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name not in self.SEEDED or self._busy:
            return None
        self._busy = True
        try:
            spec = None
            for finder in sys.meta_path:
                if finder is not self and hasattr(finder, "find_spec"):
                    spec = finder.find_spec(name, path, target)
                    if spec is not None:
                        break
        finally:
            self._busy = False
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        run_module, seed, seeder = loader.exec_module, self.seed, self.SEEDED[name]

        def exec_module(module: ModuleType) -> None:
            run_module(module)
            seeder(module, seed)

        loader.exec_module = exec_module  # this spec's loader object only (made for this import)
        return spec


@contextlib.contextmanager
def seeded_imports(seed: int) -> Iterator[None]:
    """Seed now, and seed numpy and torch when they are first imported while the block runs: the
    lecture is imported inside it, so its own module-level seeding comes after ours and wins."""
    seed_generators(seed)
    finder = _SeedOnImport(seed)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(finder)


def hash_seed() -> int | None:
    """The string-hash seed of this process: PYTHONHASHSEED's number, or None when hashing is randomised."""
    if not sys.flags.hash_randomization:
        return 0
    try:
        return int(os.environ.get("PYTHONHASHSEED", ""))
    except ValueError:
        return None


class ExitGuard:
    """While a lecture runs: ``os._exit`` in its own process and thread unwinds it (``LectureExited``)
    instead of ending chalktrace without a trace. A forked child, or another thread (the timeout
    watchdog), still exits for real."""

    def __init__(self) -> None:
        self._real = os._exit
        self._pid = os.getpid()
        self._thread = threading.get_ident()

    def _exit(self, status: int) -> NoReturn:  # os._exit's signature: callers may name the argument
        if os.getpid() == self._pid and threading.get_ident() == self._thread:
            raise LectureExited(status)
        self._real(status)

    def __enter__(self) -> "ExitGuard":
        os._exit = self._exit
        return self

    def __exit__(self, *exc: Any) -> None:
        os._exit = self._real

    def in_child(self) -> bool:
        return os.getpid() != self._pid

    def leave_child(self) -> NoReturn:
        """A forked child that ran on to the end of main(): leave quietly, writing nothing."""
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        self._real(0)


class FdCapture:
    """Output that bypasses ``sys.stdout``/``sys.stderr`` (child processes, ``os.write(1, …)``, C code)
    reaches the lecture's steps: file descriptors 1 and 2 point at unlinked temporary files while it
    runs (as pytest's ``capfd`` does; a file never blocks a writer, a pipe would). ``drain`` hands
    what arrived since the last call to the recorder; the recorder calls it off its per-line path.
    Starting a child process or calling ``os.write`` on 1 or 2 marks the line as having output, so
    its step drains it exactly; anything else written there (C code, a ``write`` bound before the run)
    shows on a later step (the next that drains), and the recorder says so once."""

    UNEXPECTED_EVERY = 256
    CHILD_EVENTS = frozenset(
        {"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "pty.spawn"}
    )

    def __init__(self, recorder: Recorder) -> None:
        self._recorder = recorder
        self._files: list[tuple[int, Any, int, Any, Callable[[str], None]]] = []  # fd, file, saved fd, decoder, write
        self._offsets: dict[int, int] = {}
        self._expected = False  # a child process ran, or os.write was called, since the last drain
        self._unexpected_calls = 0
        self._active = False
        self._real_write = os.write

    def __enter__(self) -> "FdCapture":
        for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
            with contextlib.suppress(Exception):
                if stream is not None:
                    stream.flush()  # what was written before the run stays where it was going
        for fd, write in ((1, self._recorder.write_stdout), (2, self._recorder.write_stderr)):
            try:
                saved = os.dup(fd)
            except OSError:  # no such descriptor (a daemon): nothing to capture there
                continue
            file = tempfile.TemporaryFile(prefix="chalktrace-fd-")
            os.dup2(file.fileno(), fd)
            self._files.append((fd, file, saved, codecs.getincrementaldecoder("utf-8")("replace"), write))
            self._offsets[fd] = 0
        self._active = True
        self._listening = audit.listening(self.on_audit, self.CHILD_EVENTS)
        self._listening.__enter__()
        os.write = self._write
        return self

    def _write(self, fd: int, data: Any) -> int:
        if self._active and fd in (1, 2) and self._recorder.active:
            self._expected = True
            self._recorder.output_arrived()  # the line that wrote takes the slow path: its step drains
        return self._real_write(fd, data)

    def child_starting(self, process: Any = None) -> None:
        """A ``multiprocessing`` process is starting (no audit event says so for spawn)."""
        self.on_audit("os.fork")

    def on_audit(self, event: str, args: Any = ()) -> None:
        if self._active and event in self.CHILD_EVENTS and self._recorder.active:
            self._expected = True
            self._recorder.output_arrived()

    def drain(self, final: bool = False) -> None:
        """Hand what arrived to the recorder. Reading costs two system calls, so a line that started
        no child and called no ``os.write`` looks only every ``UNEXPECTED_EVERY``-th time (and when
        the outermost call returns: ``final``)."""
        if not (self._expected or final):
            self._unexpected_calls += 1
            if self._unexpected_calls < self.UNEXPECTED_EVERY:
                return
        self._unexpected_calls = 0
        expected, self._expected = self._expected, False
        for fd, file, _, decoder, write in self._files:
            start = self._offsets[fd]
            try:
                size = os.fstat(file.fileno()).st_size
                if size <= start:
                    continue
                data = os.pread(file.fileno(), size - start, start)
            except OSError:
                continue
            self._offsets[fd] = start + len(data)
            text = decoder.decode(data)
            if text:
                write(text)
                if not expected:
                    self._recorder.warn_once(
                        "output written straight to file descriptor 1 or 2 (by C code, or a write bound before "
                        "the run) is shown on the next step chalktrace looked at, which may come after the line "
                        "that wrote it"
                    )

    def __exit__(self, *exc: Any) -> None:
        with contextlib.suppress(Exception):
            sys.__stdout__.flush()  # type: ignore[union-attr]
            sys.__stderr__.flush()  # type: ignore[union-attr]
        os.write = self._real_write
        self._active = False
        self._listening.__exit__(None, None, None)
        for fd, file, saved, _, _ in self._files:
            with contextlib.suppress(OSError):
                os.dup2(saved, fd)
            with contextlib.suppress(OSError):
                os.close(saved)
        late = 0  # what arrived after the last step (a child process still writing when main() returned)
        for fd, file, _, _, _ in self._files:
            with contextlib.suppress(OSError):
                late += max(0, os.fstat(file.fileno()).st_size - self._offsets[fd])
            file.close()
        if late:
            self._recorder.warn_once(
                f"{late:,} bytes written to file descriptor 1 or 2 after the lecture's last "
                "step (a child process still running?) are not in the trace"
            )
        self._files = []


_TIMER_SIGNALS = frozenset({signal.SIGALRM, signal.SIGVTALRM, signal.SIGPROF})


def _hold_timer_signals() -> None:
    """Block the interval timers' signals in this thread: one that fires now stays pending (and is
    dropped by ``_lecture_signals``) instead of running the lecture's handler in chalktrace's code."""
    if threading.current_thread() is threading.main_thread():
        signal.pthread_sigmask(signal.SIG_BLOCK, _TIMER_SIGNALS)


@contextlib.contextmanager
def _lecture_signals(recorder: Recorder) -> Iterator[None]:
    """Signal handlers and interval timers the lecture sets are its own: when it ends, its timers are
    disarmed and every handler is as before, so a timer left armed cannot fire while the trace is
    written (a pending signal is discarded, not delivered)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    catchable = [sig for sig in signal.valid_signals() if sig not in (signal.SIGKILL, signal.SIGSTOP)]
    before = {}
    for sig in catchable:
        with contextlib.suppress(ValueError, OSError):
            before[sig] = signal.getsignal(sig)
    try:
        yield
    finally:
        timers = (signal.ITIMER_REAL, signal.ITIMER_VIRTUAL, signal.ITIMER_PROF)
        alarm_signals: frozenset[signal.Signals] = _TIMER_SIGNALS
        signal.pthread_sigmask(signal.SIG_BLOCK, alarm_signals)
        try:
            armed = [timer for timer in timers if signal.getitimer(timer)[0] > 0]
            for timer in armed:
                signal.setitimer(timer, 0)
            if armed:
                recorder.warn_once(
                    f"{recorder.lecture_path()}: the lecture left an interval timer armed; "
                    "chalktrace disarmed it before writing the trace"
                )
            for timer_signal in alarm_signals:
                with contextlib.suppress(ValueError, OSError):
                    signal.signal(timer_signal, signal.SIG_IGN)  # a signal already pending is dropped on unblock
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, alarm_signals)
        for sig, handler in before.items():
            if handler is not None and signal.getsignal(sig) is not handler:
                with contextlib.suppress(ValueError, OSError, TypeError):
                    signal.signal(sig, handler)


@contextlib.contextmanager
def _process_start_hooks(hooks: list[Callable[[Any], None]]) -> Iterator[None]:
    """``BaseProcess.start`` calls every hook with the process before starting it; the original is
    back afterwards. Nothing is patched when there are no hooks (the per-line path is never touched)."""
    if not hooks:
        yield
        return
    original = multiprocessing.process.BaseProcess.start

    def start(self: multiprocessing.process.BaseProcess) -> None:
        for hook in hooks:
            hook(self)
        return original(self)

    multiprocessing.process.BaseProcess.start = start  # type: ignore[method-assign]
    try:
        yield
    finally:
        multiprocessing.process.BaseProcess.start = original  # type: ignore[method-assign]


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
        self._guard: ExitGuard | None = None

    def _show_warning(
        self, message: Any, category: type[Warning], filename: str, lineno: int, file: Any = None, line: str | None = None
    ) -> None:
        text = warning_text(message, category, filename, lineno, line, self.recorder, self.encoder.scrub)
        (file or sys.stderr).write(text)

    def add_extension(self, extension: Extension) -> None:
        self.extensions.append(extension)

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
            stack.enter_context(_lecture_signals(recorder))
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
                with _process_start_hooks(hooks), self._extensions_running():
                    self.previous_tracer = sys.gettrace()
                    recorder.start(resume=self.previous_tracer)
                    try:
                        outcome.value = fn(*args, **kwargs)
                    finally:
                        _hold_timer_signals()  # from here on, the lecture's timers wait (then are dropped)
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
            yield

    def abort(self) -> tuple[str, str] | None:
        """For the timeout watchdog (another thread): stop what the run started (its ranks); (where,
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


def lecture_modules(lecture_dir: str) -> dict[str, ModuleType]:
    """The modules loaded from ``lecture_dir`` (a directory path ending in a separator), by name."""
    return {
        name: module
        for name, module in list(sys.modules.items())
        if (getattr(module, "__file__", None) or "").startswith(lecture_dir)
    }


def _scrub(text: str, paths: Callable[[str], str]) -> str:
    """``text`` with environment paths in their portable forms, and the lecture's private module name
    as Python names a script's module (``__main__``)."""
    return paths(text).replace(LECTURE_MODULE + ".", "__main__.")


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
