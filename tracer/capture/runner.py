"""Run one lecture under the recorder and produce its trace (the collector: owns the lifecycle).

``run_lecture`` checks the file, imports the lecture module untraced (its directory first on
``sys.path``), seeds the random generators, installs the recorder, the authoring-API sink and a
stdout and stderr capture, calls ``main()``, and assembles the trace: header, sources and their hashes, the
error of a failing run. Writing is atomic, and nothing is written when the lecture cannot even be
imported, so a previous trace is never destroyed by bad input. This module must not format steps
(``trace_writer`` does) or parse command lines (``cli`` does).
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import functools
import importlib.util
import inspect
import io
import os
import threading
import platform
import random
import sys
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Any, Callable, NoReturn

from tracer import layout
from tracer.source_map import read_source, source_map
from tracer.layout import find_project_root
from tracer.capture import api
from tracer.capture.compute import LineMeter
from tracer.capture.directives import parse_source
from tracer.helper_files import SettingsError, opted_in, trace_patterns
from tracer.capture.memory import Probe, StorageRegistry, choose_probe
from tracer.capture.ranks import RankSession
from tracer.capture.recorder import EXTRAS, KEY, LectureFile, Recorder, Step, mark_error
from tracer.trace_format import SCHEMA_VERSION, sha256_file, write_atomic
from tracer.capture.trace_writer import trace_json
from tracer.capture.output_budget import OutputBudget
from tracer.capture.values import Limits, ValueEncoder, replace_surrogates


class LectureError(Exception):
    """A lecture that could not be traced at all; str() is ``path:line: message`` (one line)."""


class LectureExited(BaseException):
    """Raised in place of ``os._exit(code)`` called by the lecture's own process while it is traced.

    A BaseException, like SystemExit, so that the lecture's ``except Exception`` does not swallow it.
    """

    def __init__(self, code: int) -> None:
        super().__init__(f"os._exit({code}) called")
        self.code = code


# Statuses of a run (``status`` in the trace): anything but "ok" means the lecture did not complete.
STATUS_OK = "ok"
STATUS_ERROR = "error"  # main() raised
STATUS_EXITED = "exited"  # sys.exit() or os._exit() ended the lecture early (whatever the code)
STATUS_INTERRUPTED = "interrupted"  # KeyboardInterrupt


@dataclass
class RunResult:
    lecture: str  # project-relative path
    output: Path | None  # where the trace was written (None when nothing was written)
    status: str  # "ok", "error", "exited" or "interrupted"
    steps: int
    error_line: str | None = None  # "path:line: Type: message" for a lecture that raised
    warnings: list[str] = field(default_factory=list)
    trace_text: str | None = None


class _StdoutCapture(io.TextIOBase):
    """Stands in for sys.stdout while a lecture runs: text goes to the step being executed."""

    def __init__(self, recorder: Recorder) -> None:
        self._recorder = recorder

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._recorder.write_stdout(text)
        return len(text)


class _StderrCapture(_StdoutCapture):
    """Stands in for sys.stderr while a lecture runs: what the lecture writes there (its warnings
    too) is part of what it shows, kept on the step like stdout, within the same bounds."""

    def write(self, text: str) -> int:
        self._recorder.write_stderr(text)
        return len(text)


def _show_warning(message: Any, category: type[Warning], filename: str, lineno: int, file: Any = None,
                  line: str | None = None) -> None:
    """Python's own warning display, to the lecture's (captured) stderr whatever hook was installed
    before the run (a test runner's, say): a lecture's warnings are part of what it shows."""
    (file or sys.stderr).write(warnings.formatwarning(message, category, filename, lineno, line))


class _Sink:
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
        if rendering.get("type") == "image" and not rendering.get("external"):
            self.images.add(rendering["data"])
        if "command" in rendering:  # system_text: no absolute project paths in traces
            scrub = self._recorder.encoder.scrub
            rendering["data"] = scrub(rendering["data"])
            rendering["command"] = [scrub(arg) for arg in rendering["command"]]
        self._recorder.add_rendering(rendering)

    def relpath(self, path: Any) -> str | None:
        return self._recorder.relpath(path)

    def warn(self, message: str) -> None:
        """A warning about the lecture line now running (``path:line: message``)."""
        where = self._recorder.location()
        self._recorder.warn_once(f"{where}: {message}" if where else message)


def _check_source(path: Path, shown: str) -> str:
    try:
        source = read_source(path)
    except FileNotFoundError:
        raise LectureError(f"{shown}: no such lecture file") from None
    except (IsADirectoryError, UnicodeDecodeError, PermissionError, SyntaxError) as exc:
        raise LectureError(f"{shown}: cannot read lecture: {exc}") from None
    try:
        compile(source, str(path), "exec")
    except SyntaxError as exc:
        raise LectureError(f"{shown}:{exc.lineno or 0}: SyntaxError: {exc.msg}") from None
    return source


def _lecture_modules(lecture_dir: str) -> list[str]:
    return [name for name, module in list(sys.modules.items())
            if (getattr(module, "__file__", None) or "").startswith(lecture_dir)]


def _seed(seed: int) -> None:
    """Seed every generator the lecture has loaded (torch is seeded only if the lecture imports it)."""
    random.seed(seed)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed(seed)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.manual_seed(seed)


def _environment(seed: int, probe: Probe) -> dict[str, Any]:
    """Versions and device; libraries the lecture never imported are reported as null."""
    env: dict[str, Any] = {"python": platform.python_version(), "torch": None, "numpy": None, "device": "cpu",
                           "gpu_name": None, "gpu_total_memory_nbytes": None, "memory_source": probe.source,
                           "seed": seed}
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        env["numpy"] = numpy.__version__
    torch = sys.modules.get("torch")
    if torch is not None:
        env["torch"] = torch.__version__
        if torch.cuda.is_available():
            props = torch.cuda.get_device_properties(0)
            env.update(device="cuda", gpu_name=props.name, gpu_total_memory_nbytes=int(props.total_memory))
    return env


def _lecture_traceback(tb: TracebackType | None, recorder: Recorder) -> list[dict[str, Any]]:
    frames = []
    for frame_summary, line in traceback.walk_tb(tb):
        info = recorder.files.get(frame_summary.f_code.co_filename)
        if info is not None:
            frames.append({"path": info.path, "line": line, "function": frame_summary.f_code.co_qualname})
    return frames


def _is_trace_file(path: Path) -> bool:
    """Whether ``path`` holds a lectrace trace (our writer always starts with the schema version)."""
    try:
        with open(path, "rb") as f:
            head = f.read(64)
    except OSError:
        return False
    return head.lstrip().startswith(b'{"schema_version"')


def check_output(out_path: Path, lecture: Path, shown: str, out_shown: str | None = None) -> None:
    """Refuse to write a trace onto the lecture's source or onto any existing file that is not a trace."""
    target = out_path.resolve()
    out_shown = out_shown or str(out_path)
    if target == lecture.resolve():
        raise LectureError(f"{shown}: refusing to write the trace onto the lecture's own source; choose another -o")
    if target.is_dir():
        raise LectureError(f"{out_shown}: is a directory; -o takes a file path")
    if target.exists() and target.stat().st_size and not _is_trace_file(target):
        raise LectureError(f"{out_shown}: exists and is not a lectrace trace; refusing to overwrite it "
                           "(choose another -o, or delete the file)")


def _main_line(path: Path) -> int:
    """The line where ``main`` is bound at module level (for messages), else 1."""
    try:
        facts = source_map(read_source(path))
    except (OSError, UnicodeDecodeError, SyntaxError):
        return 1
    if facts.error is not None:
        return 1
    for node in facts.tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "main":
            return node.lineno
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "main" for t in node.targets):
            return node.lineno
    return 1


def _check_main(module: ModuleType, path: Path, shown: str) -> Callable[[], Any]:
    """The lecture's ``main`` as a plain call; LectureError (one line) when it cannot be run."""
    if not hasattr(module, "main"):
        raise LectureError(f"{shown}:1: no main() function to trace (define `def main():` at module level)")
    main = module.main
    where = f"{shown}:{_main_line(path)}"
    if not callable(main):
        raise LectureError(f"{where}: main is not callable (it is of type {type(main).__name__}); lectrace calls main()")
    if inspect.isgeneratorfunction(main) or inspect.isasyncgenfunction(main):
        raise LectureError(f"{where}: main() is a generator function (it contains `yield`): calling it runs "
                           "nothing; make it a plain function")
    if inspect.iscoroutinefunction(main):
        return lambda: asyncio.run(main())
    return main


class _ExitGuard:
    """While a lecture runs: ``os._exit`` in its own process and thread unwinds it (``LectureExited``)
    instead of ending lectrace without a trace. A forked child, or another thread (the timeout
    watchdog), still exits for real."""

    def __init__(self) -> None:
        self._real = os._exit
        self._pid = os.getpid()
        self._thread = threading.get_ident()

    def _exit(self, status: int) -> NoReturn:  # os._exit's signature: callers may name the argument
        if os.getpid() == self._pid and threading.get_ident() == self._thread:
            raise LectureExited(status)
        self._real(status)

    def __enter__(self) -> "_ExitGuard":
        os._exit = self._exit
        return self

    def __exit__(self, *exc: Any) -> None:
        os._exit = self._real

    def in_child(self) -> bool:
        return os.getpid() != self._pid

    def leave_child(self) -> None:
        """A forked child that ran on to the end of main(): leave quietly, writing nothing."""
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        self._real(0)


def _status(escaped: BaseException | None) -> str:
    if escaped is None:
        return STATUS_OK
    if isinstance(escaped, (SystemExit, LectureExited)):
        return STATUS_EXITED
    if isinstance(escaped, KeyboardInterrupt):
        return STATUS_INTERRUPTED
    return STATUS_ERROR


def _stop_message(escaped: BaseException, scrub: Callable[[str], str]) -> str:
    if isinstance(escaped, SystemExit):
        code = escaped.code
        return f"sys.exit({code!r}) called: the lecture ended before main() returned"
    if isinstance(escaped, LectureExited):
        return f"os._exit({escaped.code}) called: the lecture ended before main() returned"
    if isinstance(escaped, KeyboardInterrupt):
        return "interrupted (KeyboardInterrupt): the lecture ended before main() returned"
    try:
        return scrub(str(escaped))
    except Exception:
        return "(the exception's message cannot be shown)"


def _title(steps: list[Step], module: ModuleType, name: str) -> str:
    for step in steps:
        extras = step[EXTRAS]
        for rendering in (extras or {}).get("renderings", ()):
            if rendering.get("type") == "markdown" and rendering["data"].startswith("# "):
                return rendering["data"][2:].splitlines()[0].strip()
    doc = (module.__doc__ or "").strip()
    return doc.splitlines()[0] if doc else name


def build_recorder(path: Path, project_root: Path, *, limits: Limits | None = None,
                   probe_factory: Callable[[StorageRegistry], Probe] | None = None, inspect_all: bool = False,
                   max_steps: int = layout.DEFAULT_MAX_STEPS, measure_flops: bool = True,
                   trace_helpers: Any = None, output: OutputBudget | None = None) -> tuple[Recorder, ValueEncoder, Probe]:
    """The recorder, value encoder and memory probe of one traced process (a lecture or one rank)."""
    registry = StorageRegistry()
    root_text = str(project_root.resolve()) + os.sep
    encoder = ValueEncoder(registry, limits, scrub=lambda s: s.replace(root_text, ""),
                           relpath=functools.partial(layout.project_relpath, root=project_root.resolve()))
    probe = (probe_factory or choose_probe)(registry)
    recorder = Recorder(path.parent, project_root, encoder, probe, inspect_all=inspect_all,
                        max_steps=max_steps, meter_factory=LineMeter if measure_flops else None,
                        trace_helpers=trace_helpers, output=output)
    recorder.preload(path)  # parse the lecture's directives before its clock starts
    return recorder, encoder, probe


def run_lecture(lecture: str | os.PathLike[str], *, output: str | os.PathLike[str] | None = None, seed: int = 0,
                inspect_all: bool = False, max_steps: int = layout.DEFAULT_MAX_STEPS, limits: Limits | None = None,
                probe_factory: Callable[[StorageRegistry], Probe] | None = None,
                on_recorder: Callable[[Recorder], None] | None = None,
                write: bool = True, measure_flops: bool = True, shard_dir: str | os.PathLike[str] | None = None,
                output_budget: OutputBudget | None = None,
                max_plot_points: int = api.PLOT_DATA_POINTS) -> RunResult:
    """Trace ``lecture``'s ``main()``; write the trace (atomically) unless ``write`` is False.

    Raises LectureError (one line, nothing written) when the lecture cannot be read, parsed,
    imported, or has no ``main()``. A lecture whose ``main()`` raises still yields a trace, with
    ``status == "error"`` and the failing step's ``error``.
    """
    path = Path(lecture).absolute()
    project_root = find_project_root(path.parent)
    try:
        shown = path.resolve().relative_to(project_root.resolve()).as_posix()
    except ValueError:
        shown = str(lecture)
    _check_source(path, shown)
    try:
        helper_patterns = trace_patterns(project_root)
    except SettingsError as exc:
        raise LectureError(str(exc)) from None
    path = path.resolve()
    # Resolved now, against the invoking directory: the lecture may os.chdir() while it runs.
    out_path = (Path(output) if output is not None else layout.trace_path(project_root, path)).absolute()
    if write:
        check_output(out_path, path, shown, os.fspath(output) if output is not None else None)
    cwd = os.getcwd()

    lecture_dir = str(path.parent) + os.sep
    for name in _lecture_modules(lecture_dir):
        del sys.modules[name]
    sys.path.insert(0, str(path.parent))
    module_name = path.stem
    try:
        _seed(seed)
        spec = importlib.util.spec_from_file_location(module_name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except (Exception, SystemExit) as exc:
            raise LectureError(_error_line(exc, exc.__traceback__, project_root, default=shown)) from None
        main = _check_main(module, path, shown)

        # Built after the import, so that the probe knows whether the lecture uses torch (and CUDA).
        recorder, encoder, probe = build_recorder(path, project_root, limits=limits, probe_factory=probe_factory,
                                                  inspect_all=inspect_all, max_steps=max_steps,
                                                  measure_flops=measure_flops, trace_helpers=helper_patterns,
                                                  output=output_budget)
        if on_recorder is not None:
            on_recorder(recorder)

        sink = _Sink(recorder, max_plot_points)
        escaped: BaseException | None = None
        # Ranks the lecture starts are traced too (nothing is patched on the per-line path).
        ranks = RankSession(recorder, encoder, path, project_root, seed=seed, inspect_all=inspect_all,
                            max_steps=max_steps, measure_flops=measure_flops, shard_dir=shard_dir,
                            max_plot_points=max_plot_points)
        _seed(seed)
        guard = _ExitGuard()
        with api.rendering_sink(sink), contextlib.redirect_stdout(_StdoutCapture(recorder)), \
                contextlib.redirect_stderr(_StderrCapture(recorder)), warnings.catch_warnings(), guard:
            warnings.showwarning = _show_warning  # restored by catch_warnings(), with the filters
            try:
                with ranks:
                    recorder.start()
                    try:
                        main()
                    finally:
                        recorder.stop()
            except BaseException as exc:  # SystemExit, KeyboardInterrupt and os._exit too: each is a status
                escaped = exc
        if guard.in_child():
            guard.leave_child()
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(str(path.parent))
        with contextlib.suppress(OSError):
            os.chdir(cwd)
        loaded = {name: sys.modules[name] for name in _lecture_modules(lecture_dir)}
        for name in loaded:
            del sys.modules[name]

    steps = recorder.steps
    output_kept = recorder.output.finish()  # before steps are copied below: it edits their extras
    stderr_kept = recorder.stderr_output.finish()
    header_error = None
    error_line = None
    if escaped is not None:
        tb = _lecture_traceback(escaped.__traceback__, recorder)
        message = _stop_message(escaped, encoder.scrub)
        header_error = {"type": "os._exit" if isinstance(escaped, LectureExited) else type(escaped).__name__, "message": message, "traceback": tb}
        where = f"{tb[-1]['path']}:{tb[-1]['line']}" if tb else f"{shown}:1"
        error_line = f"{where}: {header_error['type']}: {message}".splitlines()[0]
        if isinstance(escaped, api.ImageOutsideProject):  # bad input: no trace, the previous one kept
            raise LectureError(f"{where}: {message}")
        mark_error(steps, escaped, header_error)

    truncated: dict[str, int] = {}
    if recorder.truncated:
        truncated["max_steps"] = max_steps
    if not steps and escaped is None:
        recorder.warn_once(f"{shown}: main() ran but recorded no step (is it defined in a helper module that is "
                           "not traced? see [tool.lectrace] trace_helpers)")
    if output_kept is not None:
        recorder.warn_once(f"{shown}: stdout: {output_kept}")
        truncated["stdout_chars"] = recorder.output.total_chars
    if stderr_kept is not None:
        recorder.warn_once(f"{shown}: stderr: {stderr_kept}")
        truncated["stderr_chars"] = recorder.stderr_output.total_chars
    if sink.plots_sampled:
        truncated["max_plot_points"] = max_plot_points
    files_with_steps = {step[KEY][0] for step in steps}
    lecture_files = sorted(recorder.files.values(), key=lambda f: f.path)
    for module_obj in loaded.values():
        module_file = getattr(module_obj, "__file__", None)
        if module_file and module_file not in recorder.files and module_file.endswith(".py"):
            rel = recorder.relpath(module_file)
            if rel is not None:
                source = read_source(module_file)
                lecture_files.append(LectureFile(rel, source, parse_source(source)))
    sources = {f.path: sha256_file(project_root / f.path) for f in lecture_files}
    for image in sorted(sink.images):
        sources[image] = sha256_file(project_root / image)
    header: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "lecture": {"name": path.stem, "path": shown, "title": _title(steps, module, path.stem)},
        "sources": dict(sorted(sources.items())),
        "files": {f.path: f.source for f in sorted(lecture_files, key=lambda f: f.path) if f.path in files_with_steps},
        "hidden_lines": {f.path: f.parsed.hidden_lines for f in sorted(lecture_files, key=lambda f: f.path)
                         if f.parsed.hidden_lines and f.path in files_with_steps},
        # decided as the recorder does, for every helper loaded (called or not), so freshness can re-decide
        "stepped_helpers": sorted(f.path for f in lecture_files
                                  if f.path != shown and opted_in(f.path, f.source, helper_patterns)),
        "environment": _environment(seed, probe),
        "status": _status(escaped),
        "truncated": truncated or None,
        "warnings": recorder.warnings,
    }
    if header_error is not None:
        header["error"] = header_error
    error_line = ranks.finish(header, steps, escaped, sink.images) or error_line
    out_path = ranks.shard_path or out_path
    text, surrogates = replace_surrogates(trace_json(header, steps))
    if surrogates:  # a last net: the encoder repairs the texts it sees, renderings may hold more
        recorder.warn_once(f"{shown}: {surrogates} lone surrogate(s) in lecture text shown as U+FFFD")
        text, _ = replace_surrogates(trace_json(header, steps))  # header["warnings"] is that same list
    if write:
        check_output(out_path, path, shown, os.fspath(output) if output is not None else None)  # again: the lecture itself may have made that file
        write_atomic(out_path, text)
    return RunResult(lecture=shown, output=out_path if write else None, status=header["status"], steps=len(steps),
                     error_line=error_line, warnings=list(recorder.warnings), trace_text=text)


def _error_line(exc: BaseException, tb: TracebackType | None, project_root: Path, default: str) -> str:
    """``path:line: Type: message`` for the innermost frame inside the project."""
    where = f"{default}:1"
    for frame_summary, line in traceback.walk_tb(tb):
        filename = frame_summary.f_code.co_filename
        try:
            rel = Path(filename).resolve().relative_to(project_root.resolve()).as_posix()
        except ValueError:
            continue
        if Path(filename).resolve().is_relative_to(layout.PACKAGE_DIR):
            continue
        where = f"{rel}:{line}"
    message = str(exc).replace(str(project_root.resolve()) + os.sep, "")
    return f"{where}: {type(exc).__name__}: {message}".splitlines()[0]
