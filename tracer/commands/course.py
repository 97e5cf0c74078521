"""The course a command runs in: its root and layout, and a one-line refusal when there is no course here.

A chalktrace course has ``lectures/``; an edtrace course is used in its own layout
(``contract.course_layout``). This module must not trace or build anything.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tracer.contract import paths
from tracer.contract.course_layout import LayoutError, layout_of


def course_root(command: str, *, site: bool) -> Path | None:
    """The course the command runs in, or None after printing why there is none here."""
    root = paths.find_project_root(Path.cwd())
    try:
        layout = layout_of(root)
    except LayoutError as exc:
        print(f"chalktrace {command}: {root}/{exc}", file=sys.stderr)
        return None
    if layout.edtrace:
        return root  # its site is generated when it has no mkdocs.yml of its own
    if not layout.lectures_dir.is_dir():
        print(
            f"chalktrace {command}: not in a course: no {paths.LECTURES_DIR}/ folder in {root} "
            "(run it in a course's folder; `chalktrace init DIR` makes one; an edtrace course: `chalktrace init --here`)",
            file=sys.stderr,
        )
        return None
    if site and not (root / "mkdocs.yml").is_file():
        print(
            f"chalktrace {command}: not in a course: no mkdocs.yml in {root} (`chalktrace init DIR` makes one; "
            "`build --no-site` only traces)",
            file=sys.stderr,
        )
        return None
    return root
