"""Which lectures there are, and whether each committed trace is still fresh.

Freshness is decided by content hashes: a trace records the sha256 of every lecture file and image
it used (``sources``); it is fresh when each of those files still hashes the same, its schema version
is current and the helper-file setting decides as it did. Lectures are the ``*.py`` files of
``lectures/`` (an edtrace course: of its root) that bind ``main`` at module level. This module must not trace lectures or compare
values (``drift`` does).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from tracer.contract import paths
from tracer.contract.course_layout import CourseLayout
from tracer.contract.trace_settings import changed_settings, course_trace_settings
from tracer.contract.helper_files import SettingsError, changed_decisions
from tracer.contract.lecture_files import SUBFOLDER_REASON, outside_target, subfolder_files
from tracer.contract.source_facts import read_source, source_facts
from tracer.contract.files import sha256_file
from tracer.contract.trace_format import READABLE_VERSIONS, SCHEMA_VERSION
from tracer.contract.trace_reading import read_header


def stale_sources(trace: dict[str, Any], project_root: Path) -> list[str]:
    """Paths recorded in the trace whose current content differs (or that are gone)."""
    changed = []
    for rel, digest in (trace.get("sources") or {}).items():
        file = project_root / rel
        try:
            current = sha256_file(file)
        except OSError:
            changed.append(f"{rel} (missing)")
            continue
        if current != digest:
            changed.append(rel)
    return changed


def _binds_main(tree: ast.Module) -> bool:
    """Whether module-level code binds the name ``main`` (def, async def, assignment, import, star import)."""
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name == "main":
                return True
            continue  # names bound inside are not module-level
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if any(alias.name == "*" or (alias.asname or alias.name.split(".")[0]) == "main" for alias in node.names):
                return True
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id == "main":
            return True
        todo.extend(ast.iter_child_nodes(node))
    return False


def skip_reason(path: Path) -> str | None:
    """Why ``path`` (in the lectures directory) is not traced as a lecture, or None when it is."""
    if path.name.startswith("_"):
        return "helper module (name starts with _)"
    target = outside_target(path, paths.find_project_root(path.parent))
    if target is not None:
        return f"a link to {target}, outside the course (copy the lecture into the course to trace it)"
    try:
        facts = source_facts(read_source(path))
    except (UnicodeDecodeError, OSError, SyntaxError):
        return None  # let the run report the problem with file and line
    if facts.error is not None:
        return None
    if not _binds_main(facts.tree):
        return "no main at module level (define `def main():`)"
    return None


def discover(lectures_dir: Path) -> list[Path]:
    """Lecture files: ``*.py`` that bind ``main`` at module level; names starting with ``_`` are helpers."""
    return sorted(p for p in lectures_dir.glob("*.py") if skip_reason(p) is None)


def skipped(lectures_dir: Path) -> list[tuple[Path, str]]:
    """The ``*.py`` files under ``lectures_dir`` that are not lectures, each with the reason (those in
    subfolders too: every file gets an answer)."""
    return [(p, why) for p in sorted(lectures_dir.glob("*.py")) if (why := skip_reason(p)) is not None] + [
        (p, SUBFOLDER_REASON) for p in subfolder_files(lectures_dir)
    ]


def course_lectures(layout: CourseLayout) -> list[Path]:
    """The lectures of the course in ``layout``: ``lectures/*.py``, or an edtrace course's root-level
    lecture files (its helpers, which bind no ``main``, and ``execute.py`` left out)."""
    return [p for p in discover(layout.lectures_dir) if layout.is_lecture_file(p)]


def course_skipped(layout: CourseLayout) -> list[tuple[Path, str]]:
    """The files :func:`skipped` names for the course; none in an edtrace course, whose root holds
    helpers and tools beside the lectures (and whose subfolders are not lecture folders)."""
    return [] if layout.edtrace else skipped(layout.lectures_dir)


def freshness(lecture: Path, trace_file: Path, project_root: Path) -> str | None:
    """None when ``trace_file`` is a fresh trace of ``lecture``, else why it is not."""
    header = read_header(trace_file)
    if header is None:
        return "missing" if not trace_file.exists() else "unreadable"
    if header.get("schema_version") not in READABLE_VERSIONS:  # an older readable one is upgraded on load
        return f"schema_version {header.get('schema_version')!r}, current is {SCHEMA_VERSION}"
    if header.get("status") == "interrupted":  # cut short (Ctrl-C): half a lecture is never published as fresh
        return "interrupted (the run that made it was cut short)"
    lecture_rel = paths.shown_path(lecture, project_root)
    if lecture_rel not in (header.get("sources") or {}):
        return f"does not record {lecture_rel} among its sources"
    changed = stale_sources(header, project_root)
    if changed:
        return "stale (changed: " + ", ".join(changed) + ")"
    if "stepped_helpers" in header:  # older traces did not record it
        try:
            decisions = changed_decisions(header.get("sources") or {}, lecture_rel, header["stepped_helpers"] or [], project_root)
        except SettingsError as exc:
            return str(exc)
        if decisions:
            return "stale ([tool.chalktrace] trace_helpers: " + ", ".join(decisions) + ")"
    try:
        settings = changed_settings(header, course_trace_settings(project_root))
    except SettingsError as exc:
        return str(exc)
    if settings:
        return "stale ([tool.chalktrace] " + ", ".join(settings) + ")"
    return None
