"""The package as users get it: its wheel built from this checkout, installed into a fresh environment.

Only builds and installs; what a test then runs in the environment is the test's."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from helpers.processes import run

REPO = Path(__file__).resolve().parents[2]


def build_wheel(tmp_path: Path, env: dict[str, str]) -> Path:
    """``tmp_path/dist/chalktrace-*.whl``, built from a copy of the package's sources alone."""
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    shutil.copytree(REPO / "tracer", source / "tracer", ignore=shutil.ignore_patterns("__pycache__"))
    run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "--no-build-isolation",
        "--quiet",
        "-w",
        tmp_path / "dist",
        source,
        cwd=tmp_path,
        env=env,
    )
    (wheel,) = (tmp_path / "dist").glob("chalktrace-*.whl")
    return wheel


def install_wheel(wheel: Path, venv: Path, env: dict[str, str], extras: str = "") -> Path:
    """A fresh environment at ``venv`` with ``chalktrace[EXTRAS]`` from ``wheel`` and its dependencies,
    as the guide says: ``pip install -c constraints.txt "chalktrace[EXTRAS] @ file://…whl"``.
    Returns the environment's ``bin`` folder."""
    run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=venv.parent, env=env)
    run(
        sys.executable,
        "-m",
        "pip",
        "--python",
        venv / "bin" / "python",
        "install",
        "--quiet",
        "-c",
        REPO / "constraints.txt",
        f"chalktrace{f'[{extras}]' if extras else ''} @ {wheel.as_uri()}",
        cwd=venv.parent,
        env=env,
        timeout=1800,
    )  # torch itself: minutes on a loaded machine
    return venv / "bin"
