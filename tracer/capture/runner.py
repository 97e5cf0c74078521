"""Run one lecture in a traced process and write its trace (the collector: owns the lifecycle).

``run_lecture`` checks the file, imports the lecture module untraced (its directory first on
``sys.path``, its modules isolated from any earlier run, edtrace's names served by chalktrace's
API through ``import_alias``, fetches going to the course cache through ``remote``), runs ``main()`` in a
``traced_process.TracedProcess`` (which owns the recorder and every piece of process state tracing changes),
lets the ranks it started add themselves (``ranks.follow``), builds the header
(``header.trace_header``) and writes the trace. Writing is atomic, and nothing is written when the
lecture cannot even be imported, so a previous trace is never destroyed by bad input. This module
must not format steps (``trace_writer`` does), hold process state (``traced_process`` does) or parse
command lines (``cli`` does).
"""

from __future__ import annotations

import ast
import asyncio
import functools
import inspect
import os
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Any, Callable, Iterable

from tracer.contract import course_layout, paths
from tracer.capture import api, arxiv, ranks, remote
from tracer.capture.lecture_module import load_lecture
from tracer.capture.file_reads import FileReads
from tracer.capture.header import lecture_title, loaded_files, trace_header
from tracer.capture.recorder import Recorder, mark_error
from tracer.capture.process_state import LectureExited
from tracer.capture.traced_process import AUTHORING_CALL, CallOutcome, TracedProcess, TraceOptions
from tracer.capture.terminal import save as save_own_stderr
from tracer.capture.trace_writer import trace_json
from tracer.capture.encoder_core import replace_surrogates
from tracer.contract.helper_files import SettingsError, trace_patterns
from tracer.contract.lecture_files import place_problem
from tracer.contract.paths import find_project_root
from tracer.contract.source_facts import read_source, source_facts
from tracer.contract.files import write_atomic
from tracer.contract.trace_format import Status, Trace

__all__ = ["LectureError", "LectureExited", "RunResult", "TraceOptions", "check_output", "find_project_root", "run_lecture"]


class LectureError(Exception):
    """A lecture that could not be traced at all; str() is ``path:line: message`` (one line)."""


@dataclass
class RunResult:
    lecture: str  # project-relative path
    output: Path | None  # where the trace was written (None when nothing was written)
    status: Status
    steps: int
    error_line: str | None = None  # "path:line: Type: message" for a lecture that raised
    warnings: list[str] = field(default_factory=list)
    trace_text: str | None = None


def _check_source(path: Path, shown: str) -> str:
    try:
        source = read_source(path)
    except FileNotFoundError:
        raise LectureError(f"{shown}: no such lecture file") from None
    except IsADirectoryError:
        raise LectureError(
            f"{shown}: is a folder; run takes lecture files ({shown.rstrip('/')}/NAME.py), "
            "`chalktrace build` traces every lecture"
        ) from None
    except (UnicodeDecodeError, PermissionError, SyntaxError) as exc:
        raise LectureError(f"{shown}: cannot read lecture: {exc}") from None
    try:
        compile(source, str(path), "exec")
    except SyntaxError as exc:
        raise LectureError(f"{shown}:{exc.lineno or 0}: SyntaxError: {exc.msg}") from None
    return source


def _is_trace_file(path: Path) -> bool:
    """Whether ``path`` holds a chalktrace trace (our writer always starts with the schema version)."""
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
        raise LectureError(
            f"{out_shown}: exists and is not a chalktrace trace; refusing to overwrite it (choose another -o, or delete the file)"
        )


def _main_line(path: Path) -> int:
    """The line where ``main`` is bound at module level (for messages), else 1."""
    try:
        facts = source_facts(read_source(path))
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
        raise LectureError(f"{where}: main is not callable (it is of type {type(main).__name__}); chalktrace calls main()")
    if inspect.isgeneratorfunction(main) or inspect.isasyncgenfunction(main):
        raise LectureError(
            f"{where}: main() is a generator function (it contains `yield`): calling it runs nothing; make it a plain function"
        )
    try:
        inspect.signature(main).bind()
    except TypeError as exc:  # chalktrace calls main() with no arguments
        raise LectureError(
            f"{where}: main() cannot be called without arguments ({exc}); chalktrace calls "
            "main() with none: give its parameters defaults"
        ) from None
    except ValueError:  # no signature to read (a builtin): let the call decide
        pass
    if inspect.iscoroutinefunction(main):
        return lambda: asyncio.run(main())
    return main


def _status(escaped: BaseException | None) -> Status:
    if escaped is None:
        return "ok"
    if isinstance(escaped, (SystemExit, LectureExited)):
        return "exited"
    if isinstance(escaped, KeyboardInterrupt):
        return "interrupted"
    return "error"


def _import_error_line(exc: BaseException, tb: TracebackType | None, project_root: Path, default: str) -> str:
    """``path:line: Type: message`` for the innermost frame inside the project."""
    where = f"{default}:1"
    for frame_summary, line in traceback.walk_tb(tb):
        filename = frame_summary.f_code.co_filename
        rel = paths.project_relpath(filename, project_root)
        if rel is None or Path(filename).resolve().is_relative_to(paths.PACKAGE_DIR):
            continue
        where = f"{rel}:{line}"
    message = str(exc).replace(str(project_root.resolve()) + os.sep, "")
    return f"{where}: {type(exc).__name__}: {message}".splitlines()[0]


def run_lecture(
    lecture: str | os.PathLike[str],
    *,
    output: str | os.PathLike[str] | None = None,
    write: bool = True,
    shard_dir: str | os.PathLike[str] | None = None,
    options: TraceOptions | None = None,
    on_process: Callable[[TracedProcess], None] | None = None,
    on_recorder: Callable[[Recorder], None] | None = None,
    **settings: Any,
) -> RunResult:
    """Trace ``lecture``'s ``main()``; write the trace (atomically) unless ``write`` is False.

    ``options`` (or the same fields as keywords, ``settings``: ``seed=1, max_steps=...``) say how it
    is traced; ``on_process`` gets the TracedProcess before it runs (the CLI's progress display and
    timeout timer hold it), ``on_recorder`` its recorder (tests and the bench). Raises LectureError (one line, nothing written) when the lecture
    cannot be read, parsed, imported, or has no ``main()``. A lecture whose ``main()`` raises still
    yields a trace, with ``status == "error"`` and the failing step's ``error``.
    """
    save_own_stderr()  # before the lecture can patch print or sys.stderr
    path, project_root, shown = _locate(lecture)
    _check_source(path, shown)
    place = place_problem(Path(lecture).absolute(), project_root, shown, default_output=output is None)
    if place:
        raise LectureError(place)
    options = _with_helpers(options or TraceOptions(**settings), project_root)
    # Resolved now, against the invoking directory: the lecture may os.chdir() while it runs.
    out_path = (Path(output) if output is not None else course_layout.trace_path(project_root, path)).absolute()
    out_shown = os.fspath(output) if output is not None else None
    if write:
        check_output(out_path, path, shown, out_shown)
    fetcher = remote.Remote.for_lecture(path, project_root)
    reads = FileReads(project_root)
    _make_scratch(project_root)
    arxiv.prefetch(path.parent, fetcher)  # every paper the course cites, in a few paced queries
    load = functools.partial(_import_lecture, path, project_root, shown)
    with TracedProcess.importing(path, project_root, options, load, (remote.opened(fetcher), reads.recording())) as (
        traced,
        (main, module),
    ):
        _pass_on_warnings(fetcher, traced)
        followed = ranks.follow(traced, shard_dir)  # ranks the lecture starts are traced too
        if on_process is not None:
            on_process(traced)
        if on_recorder is not None:
            on_recorder(traced.recorder)
        outcome = traced.run(main)
    loaded = traced.loaded
    steps = traced.recorder.steps
    reads.add_modules([vars(module), *(vars(m) for m in loaded.values())])
    trace, error_line = _lecture_trace(
        traced, outcome, module.__doc__, loaded.values(), reads.project_files(exclude=(out_path, path.parent / remote.CACHE_DIR))
    )
    error_line = followed.finish(trace, steps, outcome.escaped) or error_line
    out_path = followed.shard_path or out_path
    text = _trace_text(traced, trace)
    if write:
        check_output(out_path, path, shown, out_shown)  # again: the lecture itself may have made that file
        try:
            write_atomic(out_path, text)
        except OSError as exc:  # a full disk, a read-only folder: the message names the trace
            if exc.filename is None and exc.errno is not None:
                exc.filename = str(out_path)
            raise
    return RunResult(
        lecture=shown,
        output=out_path if write else None,
        status=trace["status"],
        steps=len(steps),
        error_line=error_line,
        warnings=list(traced.recorder.warnings),
        trace_text=text,
    )


def _pass_on_warnings(fetcher: remote.Remote, traced: TracedProcess) -> None:
    """What fetching said while the lecture was imported (a references.py of arXiv papers) goes to
    the run's warnings, and so does all it says from now on."""
    for message in fetcher.warnings:
        traced.recorder.warn_once(message)
    fetcher.warn_hook = traced.recorder.warn_once


def _locate(lecture: str | os.PathLike[str]) -> tuple[Path, Path, str]:
    """The lecture's resolved path, its project root, and its path as messages show it."""
    path = Path(lecture).absolute()
    project_root = find_project_root(path.parent)
    shown = paths.project_relpath(path, project_root) or os.fspath(lecture)
    return path.resolve(), project_root, shown


def _with_helpers(options: TraceOptions, project_root: Path) -> TraceOptions:
    """``options`` with the course's [tool.chalktrace] trace_helpers (LectureError when unreadable)."""
    try:
        options.trace_helpers = trace_patterns(project_root)
    except SettingsError as exc:
        raise LectureError(str(exc)) from None
    return options


def _make_scratch(project_root: Path) -> None:
    """An edtrace course's ``var/`` and traces folder, made before its lecture runs, as edtrace makes
    them (lectures write into ``var/``; git ignores it, so a fresh clone has none)."""
    layout = course_layout.quiet_layout_of(project_root)
    if layout.scratch_dir is not None:
        layout.scratch_dir.mkdir(parents=True, exist_ok=True)
        layout.traces_dir.mkdir(parents=True, exist_ok=True)


def _import_lecture(path: Path, project_root: Path, shown: str) -> tuple[Callable[[], Any], ModuleType]:
    """Import the lecture module untraced (``TracedProcess.importing`` seeds and isolates it); its
    ``main`` and the module."""
    try:
        module = load_lecture(path)
    except (Exception, SystemExit) as exc:
        raise LectureError(_import_error_line(exc, exc.__traceback__, project_root, default=shown)) from None
    return _check_main(module, path, shown), module


def _lecture_trace(
    traced: TracedProcess, outcome: CallOutcome, doc: str | None, modules: Iterable[ModuleType], reads: Iterable[str] = ()
) -> tuple[Trace, str | None]:
    """The lecture's trace header, and the run's error line (``path:line: Type: message``) if it failed."""
    recorder, shown, escaped = traced.recorder, traced.shown, outcome.escaped
    steps = recorder.steps
    if not steps and escaped is None:
        recorder.warn_once(
            f"{shown}: main() ran but recorded no step (is it defined in a helper module that is "
            "not traced? see [tool.chalktrace] trace_helpers)"
        )
    traced.finish_output(shown)  # before mark_error below copies a step's extras
    error, error_line = None, None
    if escaped is not None:
        error = traced.error_info(escaped)
        frames = error["traceback"]
        where = f"{frames[-1]['path']}:{frames[-1]['line']}" if frames else f"{shown}:1"
        raised = recorder.raised_at(escaped)
        if raised is not None and raised[2]:  # the line that raised it last (a kept exception raised again)
            where = f"{raised[1][0]}:{raised[2]}"
        where = authoring_call_site(escaped, traced.project_root) or where
        error_line = f"{where}: {error['type']}: {error['message']}".splitlines()[0]
        if isinstance(escaped, api.ImageOutsideProject):  # bad input: no trace, the previous one kept
            raise LectureError(f"{where}: {error['message']}")
        mark_error(steps, escaped, error, traced.recorder.raised_at(escaped))
    files = loaded_files(traced, [getattr(module, "__file__", None) or "" for module in modules])
    trace = trace_header(
        traced,
        steps,
        status=_status(escaped),
        files=files,
        title=lecture_title(steps, doc, traced.lecture.stem),
        error=error,
        reads=reads,
    )
    return trace, error_line


def authoring_call_site(escaped: BaseException, project_root: Path) -> str | None:
    """``path:line`` of the course's call that passed an authoring function arguments it could not
    take (``text(m, verbatim=True, **kwargs)`` with ``verbatim`` in ``kwargs``), in a helper the run
    does not step too (``lecture_util.py``); None for any other error. Its message already names the
    function as the course calls it (``text()``: ``traced_process.course_names``)."""
    if not isinstance(escaped, TypeError) or not AUTHORING_CALL.search(str(escaped)):
        return None
    site = None
    for frame, line in traceback.walk_tb(escaped.__traceback__):
        filename = frame.f_code.co_filename
        if not filename.startswith(str(paths.PACKAGE_DIR) + os.sep):
            site = (filename, line)  # the innermost frame outside chalktrace: who called it
    if site is None:
        return None
    relative = paths.project_relpath(site[0], project_root)
    return f"{relative}:{site[1]}" if relative else None


def _trace_text(traced: TracedProcess, trace: Trace) -> str:
    """The trace as JSON text, lone surrogates shown as U+FFFD (and warned about)."""
    steps = traced.recorder.steps
    text, surrogates = replace_surrogates(trace_json(trace, steps))
    if surrogates:  # a last net: the encoder repairs the texts it sees, renderings may hold more
        traced.recorder.warn_once(f"{traced.shown}: {surrogates} lone surrogate(s) in lecture text shown as U+FFFD")
        text, _ = replace_surrogates(trace_json(trace, steps))  # trace["warnings"] is that same list
    return text
