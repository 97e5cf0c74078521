"""The course a command runs in: the project root, and a one-line refusal when there is no course here.

This module must not trace or build anything.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tracer.contract import paths


def course_root(command: str, *, site: bool) -> Path | None:
    """The course the command runs in, or None after printing why there is none here."""
    root = paths.find_project_root(Path.cwd())
    if not (root / paths.LECTURES_DIR).is_dir():
        print(
            f"chalktrace {command}: not in a course: no {paths.LECTURES_DIR}/ folder in {root} "
            "(run it in a course's folder; `chalktrace init DIR` makes one)",
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
