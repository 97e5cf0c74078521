"""The process-wide state a traced run changes, each change a context manager that puts it back.

Seeding (the generators, and numpy and torch as they are imported), the ``os._exit`` guard, the
capture of file descriptors 1 and 2, the lecture's signal handlers and timers, ``multiprocessing``'s
process-start hooks, and the lecture's import (its directory on ``sys.path``, its modules out of
``sys.modules`` before and after, the course root as working directory). ``TracedProcess``
(``traced_process``) enters every one, and the other changes a run makes: the trace guard
(``trace_guard``, handed over by the recorder), the fetcher and the record of files read (``remote``,
``file_reads``) and a rank's ``torch.distributed`` wrappers (``ranks/collectives.py``); nothing
else in chalktrace enters them. This module must not record steps nor write files.
"""

from __future__ import annotations

import codecs
import contextlib
import importlib.abc
import multiprocessing.process
import os
import random
import shutil
import signal
import sys
import tempfile
import threading
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterator, NoReturn

from tracer.capture import audit
from tracer.capture.lecture_module import LECTURE_MODULE, importer_source
from tracer.capture.recorder import Recorder


class LectureExited(BaseException):
    """Raised in place of ``os._exit(code)`` called by the lecture's own process while it is traced.

    A BaseException, like SystemExit, so that the lecture's ``except Exception`` does not swallow it.
    """

    def __init__(self, code: int) -> None:
        super().__init__(f"os._exit({code}) called")
        self.code = code


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
    timer), still exits for real."""

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


def hold_timer_signals() -> None:
    """Block the interval timers' signals in this thread: one that fires now stays pending (and is
    dropped by ``lecture_signals``) instead of running the lecture's handler in chalktrace's code."""
    if threading.current_thread() is threading.main_thread():
        signal.pthread_sigmask(signal.SIG_BLOCK, _TIMER_SIGNALS)


@contextlib.contextmanager
def lecture_signals(recorder: Recorder) -> Iterator[None]:
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
def process_start_hooks(hooks: list[Callable[[Any], None]]) -> Iterator[None]:
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


def lecture_modules(lecture_dir: str) -> dict[str, ModuleType]:
    """The modules loaded from ``lecture_dir`` (a directory path ending in a separator), by name."""
    return {
        name: module
        for name, module in list(sys.modules.items())
        if (getattr(module, "__file__", None) or "").startswith(lecture_dir)
    }


@contextlib.contextmanager
def isolated_imports(path: Path, project_root: Path) -> Iterator[dict[str, ModuleType]]:
    """Import the lecture afresh: its directory's modules are dropped from ``sys.modules`` before
    (an earlier run's) and after (yielded, for the sources they loaded); its directory is first on
    ``sys.path``, and the course root is the working directory (wherever chalktrace was started: a
    lecture's relative paths mean the same to every caller), while the block runs."""
    lecture_dir = str(path.parent) + os.sep
    for name in lecture_modules(lecture_dir):
        del sys.modules[name]
    sys.path.insert(0, str(path.parent))
    # Last on sys.path (shadowing nothing): the lecture's private module name, importable by the
    # processes it spawns, which copy sys.path (lecture_module.importer_source).
    importer = tempfile.mkdtemp(prefix="chalktrace-lecture-")
    Path(importer, LECTURE_MODULE + ".py").write_text(importer_source(path.absolute()), encoding="utf-8")
    sys.path.append(importer)
    cwd = os.getcwd()
    os.chdir(project_root)
    loaded: dict[str, ModuleType] = {}
    try:
        yield loaded
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(importer)
        shutil.rmtree(importer, ignore_errors=True)
        with contextlib.suppress(ValueError):
            sys.path.remove(str(path.parent))
        with contextlib.suppress(OSError):
            os.chdir(cwd)
        loaded.update(lecture_modules(lecture_dir))
        for name in loaded:
            del sys.modules[name]
