#!/usr/bin/env python3
"""Developer tasks with nothing but Python 3.11+ and pip: ``python3 tasks.py site`` / ``python3 tasks.py test``.

Each task first makes sure the local virtual environment ``.venv`` exists and has the project
installed with its ``torch`` and ``test`` extras under ``constraints.txt`` (the exact torch this
repository's traces are made with; re-installed when pyproject.toml or constraints.txt changes),
then runs inside it:

* ``site``: trace the lectures whose sources changed and build the site into build/site/.
* ``test``: ``chalktrace check`` (every lecture runs, every committed trace is fresh and valid),
  ``ruff check`` and ``ruff format --check`` (lint and layout; settings in pyproject.toml), ``mypy`` (the ``tracer`` package type-checks; settings in pyproject.toml), the pytest suite,
  and ``mkdocs build --strict``.
* ``serve``: the authoring loop (``chalktrace serve``).
* ``bench``: the tracer and viewer benchmarks.
* ``docs``: write the guide's module tables (``site/docs/guide/extending.md``) from the modules' docstrings.

This file uses only the standard library; it must not import the project.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
PYTHON = VENV / "bin" / "python"
STAMP = VENV / ".chalktrace-installed"
CONSTRAINTS = ROOT / "constraints.txt"
# What the development environment installs: pip adds `-c constraints.txt` to any constraint file
# pip's own configuration names (this machine's keeps torch to the builds on its disk).
INSTALL = ("-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-c", "constraints.txt", "-e", ".[torch,test]")


# Material for MkDocs prints a multi-line banner about its successor on every build.
os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")


def sh(*command: str | os.PathLike[str]) -> None:
    print("+", " ".join(str(c) for c in command), flush=True)
    done = subprocess.run([str(c) for c in command], cwd=ROOT)
    if done.returncode:
        sys.exit(done.returncode)


def ensure_venv() -> None:
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + CONSTRAINTS.read_bytes()).hexdigest()
    if STAMP.exists() and STAMP.read_text().strip() == wanted and PYTHON.exists():
        return
    if not PYTHON.exists():
        print(f"+ creating {VENV.name}/", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    sh(PYTHON, *INSTALL)
    STAMP.write_text(wanted + "\n")


def task_site() -> None:
    sh(PYTHON, "-m", "tracer", "build")


def task_test() -> None:
    sh(PYTHON, "-m", "tracer", "check")
    sh(PYTHON, "-m", "ruff", "check", "--quiet", ".")
    sh(PYTHON, "-m", "ruff", "format", "--check", "--quiet", ".")
    sh(PYTHON, "-m", "mypy")
    sh(PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider")
    sh(PYTHON, "-m", "mkdocs", "build", "--strict", "--quiet")


def task_serve() -> None:
    sh(PYTHON, "-m", "tracer", "serve")


def task_docs() -> None:
    # the guide's module tables, from each module's docstring (tests/test_docs.py checks them)
    sh(PYTHON, "tests/helpers/module_table.py")


def task_bench() -> None:
    sh(PYTHON, "bench/bench_tracer.py")
    if (ROOT / "bench" / "bench_viewer.py").exists():
        sh(PYTHON, "bench/bench_viewer.py")


TASKS = {"site": task_site, "test": task_test, "serve": task_serve, "bench": task_bench, "docs": task_docs}


def main() -> None:
    if len(sys.argv) != 2 or sys.argv[1] not in TASKS:
        print(f"usage: python3 tasks.py {{{'|'.join(TASKS)}}}", file=sys.stderr)
        sys.exit(2)
    ensure_venv()
    TASKS[sys.argv[1]]()


if __name__ == "__main__":
    main()
