"""Error-only traces that ``chalktrace serve`` publishes for a lecture saved with a syntax error.

A lecture Python cannot parse writes no trace, so the open page would keep the last trace's code,
with nothing at the failing line. While serving, ``DraftTraces.publish`` parses the saved source (it
runs nothing) and writes a trace of one step, at the failing line, carrying the ``SyntaxError``:
the served site renders that lecture from it (the plugin reads this folder only when
``paths.DRAFT_TRACES_ENV`` names it, as ``chalktrace serve`` does for its ``mkdocs serve``), so the
page reloads into the viewer's error view at that line, the broken source around it. The folder is
the course's work folder, never the traces folder: the committed trace stays as it was, and a fix
(or a save that undoes the error) withdraws the draft. This module must not trace or render.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import platform
import shutil
from pathlib import Path

from tracer.contract.files import write_atomic
from tracer.contract.paths import shown_path
from tracer.contract.trace_format import SCHEMA_VERSION, ErrorInfo, Trace, TraceError
from tracer.contract.trace_reading import load_trace


def syntax_error_trace(lecture: Path, project_root: Path, committed: Path | None = None) -> Trace | None:
    """The error-only trace of ``lecture`` as saved, or None when it parses (or cannot be read).

    ``committed`` (the lecture's last trace, if any) lends its title and environment, so the draft
    page reads as the same lecture."""
    try:
        raw = lecture.read_bytes()
        source = importlib.util.decode_source(raw)
        compile(raw, str(lecture), "exec", dont_inherit=True)
        return None
    except SyntaxError as exc:
        error = exc
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    path = shown_path(lecture, project_root)
    line = max(1, min(error.lineno or 1, len(source.splitlines()) or 1))
    info: ErrorInfo = {
        "type": type(error).__name__,  # IndentationError and TabError are SyntaxErrors too
        "message": error.msg,
        "traceback": [{"path": path, "line": line, "function": "<module>"}],
    }
    previous: Trace | None = None
    if committed is not None and committed.is_file():
        try:
            previous = load_trace(committed, validate=False)
        except TraceError:
            previous = None
    title = previous["lecture"]["title"] if previous else lecture.stem
    return {
        "schema_version": SCHEMA_VERSION,
        "lecture": {"name": lecture.stem, "path": path, "title": title},
        "sources": {path: hashlib.sha256(raw).hexdigest()},
        "files": {path: source},
        "hidden_lines": {},
        # nothing ran: the last trace's environment, or only what a trace must say (a lecture not yet traced)
        "environment": previous["environment"]
        if previous
        else {"python": platform.python_version(), "torch": None, "device": "cpu", "seed": 0},
        "status": "error",
        "error": info,
        "truncated": None,
        "warnings": [],
        "frames": [{"path": path, "line": line, "function": "<module>", "parent": None}],
        "steps": [
            {
                "frame": 0,
                "env": {},
                "renderings": [],
                "stdout": "",
                "memory": {"nbytes": 0, "peak_nbytes": 0},
                "error": info,
            }
        ],
    }


class DraftTraces:
    """The folder of drafts: emptied when serving starts and when it stops (no draft outlives serve)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.clear()
        directory.mkdir(parents=True, exist_ok=True)  # watched by the server from the start

    def clear(self) -> None:
        shutil.rmtree(self.directory, ignore_errors=True)

    def publish(self, lecture: Path, project_root: Path, committed: Path) -> bool:
        """Write ``lecture``'s draft if it has a syntax error (rewritten only when it changed, since
        each write rebuilds the served site); True when there is one."""
        trace = syntax_error_trace(lecture, project_root, committed)
        if trace is None:
            self.withdraw(lecture)
            return False
        path = self.directory / f"{lecture.stem}.json"
        text = json.dumps(trace, sort_keys=True) + "\n"
        try:
            unchanged = path.read_text(encoding="utf-8") == text
        except OSError:
            unchanged = False
        if not unchanged:
            self.directory.mkdir(parents=True, exist_ok=True)
            write_atomic(path, text)
        return True

    def withdraw(self, lecture: Path) -> None:
        (self.directory / f"{lecture.stem}.json").unlink(missing_ok=True)

    def keep_only(self, lectures: list[Path]) -> None:
        """Withdraw the draft of each lecture not among ``lectures`` (deleted or renamed meanwhile)."""
        names = {lecture.stem for lecture in lectures}
        for draft in self.directory.glob("*.json"):
            if draft.stem not in names:
                draft.unlink(missing_ok=True)
