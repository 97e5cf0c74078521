"""Where a course keeps its lectures and traces: chalktrace's layout, or an edtrace course's own.

A chalktrace course holds ``lectures/NAME.py`` and commits ``site/traces/NAME.json``. A course
written for edtrace keeps its lectures at the repository root (``lecture_01.py`` beside
``lecture_util.py``, ``references.py``, ``execute.py``), its images in ``images/`` and its traces in
``var/traces/``, a folder edtrace makes before a lecture runs and that lectures write into. Such a
course is used where it is, with no file moved: :func:`layout_of` tells the two apart from what is
there, in this order:

1. ``chalktrace.toml`` at the root (``chalktrace init --here`` writes it) says so::

       layout = "edtrace"       # lectures at the root; "chalktrace": lectures/
       traces = "var/traces"    # where traces are kept (default: var/traces, site/traces for chalktrace)
       lenient = true           # edtrace's leniency (default: true for the edtrace layout)

2. a ``lectures/`` folder: chalktrace's layout;
3. a ``pyproject.toml`` that depends on edtrace, or root-level ``*.py`` files beside
   ``lecture_util.py`` or ``execute.py``: the edtrace layout.

In the edtrace layout a lecture is a root-level ``*.py`` file that binds ``main`` (helpers such as
``lecture_util.py`` do not); ``var/`` is made before a lecture runs, nothing under it is an input of a
trace's freshness, and what chalktrace builds goes there too (``var/site/``), since edtrace courses
ignore ``var/`` in git. A lenient course has ``@inspect`` of a name that does not exist, and images
without alt text, reported as warnings, as edtrace does, instead of failing ``check``.

This module only reads files; it must import nothing beyond the standard library and ``paths``.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tracer.contract import paths

CONFIG_FILE = "chalktrace.toml"
CHALKTRACE, EDTRACE = "chalktrace", "edtrace"
EDTRACE_TRACES_DIR = "var/traces"
SCRATCH_DIR = "var"  # edtrace makes it before a lecture runs; lectures write into it
EDTRACE_HELPERS = ("lecture_util.py", "execute.py", "execute_util.py")
# Root-level files that are never lectures, even when they define main().
NOT_LECTURES = frozenset({"execute.py", "execute_util.py", "setup.py", "conftest.py", "noxfile.py", "tasks.py"})
_DEFINES_MAIN = re.compile(r"^(?:async\s+)?def\s+main\s*\(", re.M)
_REQUIREMENT_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_KEYS = frozenset({"layout", "traces", "lenient", "alt_text"})


class LayoutError(ValueError):
    """``chalktrace.toml`` cannot be used; str() names the file and the reason."""


@dataclass(frozen=True)
class CourseLayout:
    root: Path
    kind: str  # CHALKTRACE or EDTRACE
    lectures_dir: Path  # the folder whose *.py files are the lectures
    traces_dir: Path
    lenient: bool  # edtrace's leniency: missing names and missing alt text are warnings
    found_by: str  # why this layout, in a few words (messages say it)
    config: Path | None = None  # chalktrace.toml, when the course has one
    alt_text: dict[str, str] | None = None  # image path or URL -> alt text, from chalktrace.toml [alt_text]

    @property
    def edtrace(self) -> bool:
        return self.kind == EDTRACE

    @property
    def scratch_dir(self) -> Path | None:
        """``var/`` of an edtrace course (made before a lecture runs; never an input), else None."""
        return self.root / SCRATCH_DIR if self.edtrace else None

    @property
    def mkdocs_config(self) -> Path | None:
        """The course's own ``mkdocs.yml``, or None: an edtrace course without one gets a generated site."""
        own = self.root / "mkdocs.yml"
        return own if own.is_file() else None

    @property
    def work_dir(self) -> Path:
        """Where chalktrace keeps what it builds (never committed): ``build/``, ``var/chalktrace/`` for edtrace."""
        return self.root / (f"{SCRATCH_DIR}/chalktrace" if self.edtrace else "build")

    @property
    def site_dir(self) -> Path:
        """Where ``build`` writes the site when chalktrace generates the MkDocs configuration."""
        return self.root / (f"{SCRATCH_DIR}/site" if self.edtrace else paths.BUILD_DIR)

    def trace_path(self, lecture: Path) -> Path:
        """Where the committed trace of ``lecture`` lives."""
        return self.traces_dir / f"{lecture.stem}.json"

    def gpu_run_path(self, name: str) -> Path:
        """Where the kept GPU run of lecture ``name`` lives (see ``paths.GPU_RUNS_SUBDIR``)."""
        return self.traces_dir / paths.GPU_RUNS_SUBDIR / f"{name}.json"

    def is_lecture_file(self, path: Path) -> bool:
        """Whether ``path`` can be a lecture by its place and name (not whether it binds main)."""
        if path.suffix != ".py" or path.parent.absolute() != self.lectures_dir.absolute():
            return False
        return not (self.edtrace and path.name in NOT_LECTURES)


def _config(root: Path) -> dict[str, Any] | None:
    path = root / CONFIG_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise LayoutError(f"{CONFIG_FILE}: cannot be read ({exc.strerror or exc})") from None
    try:
        settings = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LayoutError(f"{CONFIG_FILE}: {exc}") from None
    unknown = sorted(set(settings) - _KEYS)
    if unknown:
        raise LayoutError(f"{CONFIG_FILE}: unknown setting(s) {', '.join(unknown)} (known: {', '.join(sorted(_KEYS))})")
    if settings.get("layout", EDTRACE) not in (CHALKTRACE, EDTRACE):
        raise LayoutError(f"{CONFIG_FILE}: layout must be {CHALKTRACE!r} or {EDTRACE!r}, not {settings['layout']!r}")
    if not isinstance(settings.get("traces", ""), str) or Path(str(settings.get("traces", ""))).is_absolute():
        raise LayoutError(f"{CONFIG_FILE}: traces must be a folder relative to the course root, e.g. {EDTRACE_TRACES_DIR!r}")
    if not isinstance(settings.get("lenient", True), bool):
        raise LayoutError(f"{CONFIG_FILE}: lenient must be true or false")
    alt = settings.get("alt_text", {})
    if not isinstance(alt, dict) or not all(isinstance(v, str) for v in alt.values()):
        raise LayoutError(f'{CONFIG_FILE}: [alt_text] maps image paths or URLs to text: "images/x.png" = "what it shows"')
    return settings


def _requirement_names(value: Any) -> list[str]:
    """The distribution names in a list of requirement strings (or in nested tables of them)."""
    if isinstance(value, str):
        found = _REQUIREMENT_NAME.match(value)
        return [found.group(1)] if found else []
    if isinstance(value, list):
        return [name for item in value for name in _requirement_names(item)]
    if isinstance(value, dict):
        return [name for item in value.values() for name in _requirement_names(item)]
    return []


def depends_on_edtrace(root: Path) -> bool:
    """Whether the course's ``pyproject.toml`` names edtrace among its dependencies (any table of them)."""
    try:
        project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return False
    tool = project.get("tool", {})
    names = _requirement_names(project.get("project", {}).get("dependencies", []))
    names += _requirement_names(project.get("project", {}).get("optional-dependencies", {}))
    names += _requirement_names(project.get("dependency-groups", {}))
    names += list(tool.get("uv", {}).get("sources", {})) + list(tool.get("poetry", {}).get("dependencies", {}))
    return any(re.sub(r"[-_.]+", "-", name).lower() == "edtrace" for name in names)


def _root_lectures(root: Path) -> bool:
    for path in root.glob("*.py"):
        if path.name in NOT_LECTURES:
            continue
        try:
            if _DEFINES_MAIN.search(path.read_text(encoding="utf-8", errors="replace")):
                return True
        except OSError:
            continue
    return False


def layout_of(root: Path) -> CourseLayout:
    """The layout of the course at ``root`` (LayoutError when its ``chalktrace.toml`` cannot be used)."""
    settings = _config(root)
    if settings is not None:
        kind = settings.get("layout", EDTRACE)
        default_traces = EDTRACE_TRACES_DIR if kind == EDTRACE else paths.TRACES_DIR
        alt = settings.get("alt_text") or None
        return CourseLayout(
            root=root,
            kind=kind,
            lectures_dir=root if kind == EDTRACE else root / paths.LECTURES_DIR,
            traces_dir=root / settings.get("traces", default_traces),
            lenient=settings.get("lenient", kind == EDTRACE),
            found_by=CONFIG_FILE,
            config=root / CONFIG_FILE,
            alt_text=dict(alt) if alt else None,
        )
    if not (root / paths.LECTURES_DIR).is_dir():
        helper = next((name for name in EDTRACE_HELPERS if (root / name).is_file()), None)
        why = "pyproject.toml depends on edtrace" if depends_on_edtrace(root) else None
        if why is None and helper is not None and _root_lectures(root):
            why = f"lectures at the root beside {helper}"
        if why is not None:
            return CourseLayout(root, EDTRACE, root, root / EDTRACE_TRACES_DIR, lenient=True, found_by=why)
    return CourseLayout(root, CHALKTRACE, root / paths.LECTURES_DIR, root / paths.TRACES_DIR, lenient=False, found_by="")


def quiet_layout_of(root: Path) -> CourseLayout:
    """:func:`layout_of`, with an unusable ``chalktrace.toml`` read as chalktrace's layout (the
    commands report the file's problem once, at their start)."""
    try:
        return layout_of(root)
    except LayoutError:
        return CourseLayout(root, CHALKTRACE, root / paths.LECTURES_DIR, root / paths.TRACES_DIR, lenient=False, found_by="")


def trace_path(project_root: Path, lecture: Path) -> Path:
    """Where the committed trace of ``lecture`` lives, in its course's layout."""
    return quiet_layout_of(project_root).trace_path(lecture)


def gpu_run_path(project_root: Path, name: str) -> Path:
    """Where the kept GPU run of lecture ``name`` lives, in its course's layout."""
    return quiet_layout_of(project_root).gpu_run_path(name)
