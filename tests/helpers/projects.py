"""Scratch course projects for tests: a pyproject.toml marker, ``lectures/`` and ``site/traces/`` in a
temporary directory, with small lectures that do not import torch (so worker processes start quickly)."""

from __future__ import annotations

import textwrap
from pathlib import Path

LECTURE_A = """
import _shared


def main():
    total = _shared.add(2, 3)  # @inspect total
    print("total is", total)
"""
SHARED = """
def add(a, b):
    result = a + b  # @inspect result
    return result
"""
LECTURE_B = """
def main():
    words = ["trace", "me"]  # @inspect words
    count = len(words)  # @inspect count
"""


def make_project(root: Path, lectures: dict[str, str] | None = None) -> Path:
    (root / "lectures").mkdir(parents=True)
    (root / "site" / "traces").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'scratch'\n")
    files = lectures if lectures is not None else {"a.py": LECTURE_A, "_shared.py": SHARED, "b.py": LECTURE_B}
    for name, source in files.items():
        (root / "lectures" / name).write_text(textwrap.dedent(source))
    return root
