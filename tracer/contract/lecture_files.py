"""Where a lecture file may be traced from, and what each file under ``lectures/`` is.

A lecture is published at a URL made of its file name and writes one trace named after it, so a
file whose place or name cannot give it both is refused by ``run`` (one line, naming the file),
and discovery lists it as skipped with the reason instead of leaving it unmentioned:

* a link to a file outside the course (its steps would name a path outside the project);
* a file in a subfolder of ``lectures/`` (only ``lectures/*.py`` are published; two subfolders may
  hold the same name, and both would write ``site/traces/NAME.json``);
* a name that cannot be a URL path segment (``my lecture.py``, ``señal.py``), or that the site
  reserves (``index``, ``README``: MkDocs serves those as the folder itself);
* a trace file that already belongs to another lecture.

This module only reads paths and trace headers; it must not run lectures or render anything.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from tracer.contract import course_layout, paths

URL_NAME = re.compile(r"[A-Za-z0-9_.-]+")  # what a lecture's page URL (lectures/NAME/) may hold
_SKIPPED_FOLDERS = ("__pycache__",)


def url_safe(stem: str) -> str:
    """``stem`` as a name a URL can hold: accents dropped, anything else an underscore."""
    plain = unicodedata.normalize("NFKD", stem).encode("ascii", "ignore").decode("ascii")
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", plain).strip("_.") or "lecture"
    return safe + "_lecture" if safe.lower() in _RESERVED else safe


_RESERVED = {name.lower() for name in paths.RESERVED_LECTURE_NAMES}


def lecture_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a lecture page (its URL ``lectures/NAME/``, its files beside it), or
    None. Dots may not begin or end it: ``..`` and ``.`` are path steps, not names."""
    if name.lower() in _RESERVED:
        return (
            f"the name {name!r} is reserved by the site (its page would not be at "
            f"{paths.lecture_url(name)}); reserved names: {', '.join(paths.RESERVED_LECTURE_NAMES)}"
        )
    if URL_NAME.fullmatch(name) and not name.startswith(".") and not name.endswith("."):
        return None
    return f"the name {name!r} cannot be part of a page URL"


def name_problem(path: Path) -> str | None:
    """Why ``path``'s name cannot name a lecture page, and how to rename it, or None."""
    problem = lecture_name_problem(path.stem)
    if problem is None:
        return None
    how = "rename the file" if path.stem.lower() in _RESERVED else "rename the file with letters, digits, _ . -"
    return f"{problem}; {how} (e.g. {url_safe(path.stem)}.py)"


def outside_target(path: Path, project_root: Path) -> Path | None:
    """Where ``path`` leads when it is (or passes through) a link to a file outside the course, else None."""
    target = path.resolve()
    return None if target.is_relative_to(project_root.resolve()) else target


def course_path(path: Path, project_root: Path) -> str:
    """``path`` as the course names it: relative to the root, a link shown where it is, not where it leads."""
    try:
        return path.absolute().relative_to(project_root.absolute()).as_posix()
    except ValueError:
        return paths.shown_path(path, project_root)


def in_lecture_subfolder(path: Path, project_root: Path) -> bool:
    """Whether ``path`` lies in a subfolder of the course's ``lectures/`` (not directly in it); never in
    an edtrace course, whose lectures are at its root."""
    layout = course_layout.quiet_layout_of(project_root)
    if layout.edtrace:
        return False
    lectures = layout.lectures_dir.absolute()
    absolute = path.absolute()
    return absolute.is_relative_to(lectures) and absolute.parent != lectures


def subfolder_files(lectures_dir: Path) -> list[Path]:
    """The ``.py`` files in subfolders of ``lectures_dir`` (not traced as lectures), sorted."""
    found = []
    for path in lectures_dir.rglob("*.py"):
        parts = path.relative_to(lectures_dir).parts
        if len(parts) > 1 and not any(p.startswith(".") or p in _SKIPPED_FOLDERS for p in parts[:-1]):
            found.append(path)
    return sorted(found)


SUBFOLDER_REASON = (
    "in a subfolder of lectures/: only lectures/*.py are published (move it up to publish it; "
    "files in subfolders can be imported as helpers)"
)


def owner_of_trace(trace: Path, lecture_rel: str, project_root: Path) -> str | None:
    """The project-relative path of another, still existing lecture that ``trace`` records, or None."""
    from tracer.contract.trace_reading import read_header

    header = read_header(trace) if trace.exists() else None
    recorded = ((header or {}).get("lecture") or {}).get("path") if isinstance((header or {}).get("lecture"), dict) else None
    if not isinstance(recorded, str) or recorded == lecture_rel:
        return None
    return recorded if (project_root / recorded).is_file() else None


def place_problem(given: Path, project_root: Path, shown: str, *, default_output: bool) -> str | None:
    """Why ``run`` must not trace the lecture at ``given`` (as the user named it), as one line, or None.

    ``default_output``: the trace goes to the course's ``site/traces/NAME.json`` (no ``-o``)."""
    target = outside_target(given, project_root)
    if target is not None:
        return f"{shown}: a link to {target}, outside the course ({project_root}); copy the lecture into the course to trace it"
    problem = name_problem(given)
    if problem:
        return f"{shown}: {problem}"
    if not default_output:
        return None
    if in_lecture_subfolder(given, project_root):
        return (
            f"{shown}: in a subfolder of lectures/: only lectures/*.py are published; move it up, "
            "or pass -o to trace it elsewhere"
        )
    trace = course_layout.trace_path(project_root, given)
    owner = owner_of_trace(trace, shown, project_root)
    if owner is not None:
        return (
            f"{shown}: its trace {paths.shown_path(trace, project_root)} is the trace of {owner}; "
            "two lectures cannot share a trace: rename one, or pass -o"
        )
    return None
