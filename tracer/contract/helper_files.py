"""Which helper modules beside a lecture are stepped into: an opt-in marker or a course setting.

The lecture file itself is always traced. Any other ``.py`` file under the lecture's directory (a
helper such as ``lectures/_util.py``) runs untraced unless it opts in, either with the marker line
``# chalktrace: trace`` among its first ``MARKER_LINES`` lines, or by matching a pattern of the
course's ``pyproject.toml``::

    [tool.chalktrace]
    trace_helpers = ["lectures/_accounting.py", "lectures/helpers/*.py"]

Patterns are project-relative paths with ``fnmatch`` wildcards. An untraced helper costs nothing
per line, and what it renders (``text()``, ``link()``, ...) or prints lands on the traced line that
called it. The recorder asks once per file; a trace records the helpers it stepped into, and
freshness (``tracer.commands.freshness``) asks again, so editing the setting makes the affected traces stale.
Shared by both sides: standard library only; it only reads text and must not touch frames.
"""

from __future__ import annotations

import fnmatch
import re
import tomllib
from collections.abc import Collection, Iterable
from pathlib import Path, PurePosixPath

from tracer.contract.source_facts import read_source

MARKER = "# chalktrace: trace"
MARKER_LINES = 10
_MARKER_LINE = re.compile(r"^#\s*chalktrace:\s*trace\s*$")


class SettingsError(Exception):
    """The course's ``[tool.chalktrace]`` table cannot be used; str() names the file and the reason."""


def has_marker(source: str) -> bool:
    """True when one of the first ``MARKER_LINES`` lines is the marker comment."""
    return any(_MARKER_LINE.match(line.strip()) for line in source.splitlines()[:MARKER_LINES])


def trace_patterns(project_root: Path) -> tuple[str, ...]:
    """``[tool.chalktrace] trace_helpers`` of the project's pyproject.toml (empty when absent)."""
    path = project_root / "pyproject.toml"
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return ()
    try:
        settings = tomllib.loads(text).get("tool", {}).get("chalktrace", {})
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path.name}: not valid TOML ({exc})") from None
    patterns = settings.get("trace_helpers", [])
    if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
        raise SettingsError(f"{path.name}: [tool.chalktrace] trace_helpers must be a list of path patterns")
    return tuple(patterns)


def opted_in(relpath: str, source: str, patterns: tuple[str, ...]) -> bool:
    """Whether a helper file (project-relative ``relpath``, its ``source``) is stepped into."""
    return any(fnmatch.fnmatchcase(relpath, pattern) for pattern in patterns) or has_marker(source)


def changed_decisions(sources: Iterable[str], lecture: str, stepped: Collection[str], project_root: Path) -> list[str]:
    """Helper files among a trace's ``sources`` whose stepped-into decision differs from ``stepped`` now.

    Each entry reads ``PATH now stepped into`` or ``PATH no longer stepped into``. Raises
    :class:`SettingsError` when the course's settings cannot be read; a file that cannot be read is
    left to the content-hash check.
    """
    patterns = trace_patterns(project_root)
    changed = []
    for relpath in sources:
        if relpath == lecture or not relpath.endswith(".py") or PurePosixPath(relpath).parent != PurePosixPath(lecture).parent:
            continue  # helpers are files beside the lecture; other sources (modules it read) are only hashed
        try:
            source = read_source(project_root / relpath)
        except (OSError, UnicodeDecodeError, SyntaxError):
            continue
        now = opted_in(relpath, source, patterns)
        if now != (relpath in stepped):
            changed.append(f"{relpath} {'now' if now else 'no longer'} stepped into")
    return changed
