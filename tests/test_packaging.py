"""An installed wheel (not editable) is all a course needs: ``lectrace init`` makes a repository
holding only mkdocs.yml, lectures/, site/docs and site/traces; the installed ``lectrace`` traces its
lecture and builds the site with the templates and assets shipped inside the package.

The wheel is built from a copy of pyproject.toml, README.md and tracer/ (so a file left out of the
package data fails here), installed into a fresh virtual environment that borrows only the
dependencies (torch, mkdocs, ...) from the development environment through a .pth file.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def run(*command: str | Path, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, f"{command}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


@pytest.mark.wheel
def test_a_wheel_installed_elsewhere_builds_a_course_site(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["NO_MKDOCS_2_WARNING"] = "1"
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    shutil.copytree(REPO / "tracer", source / "tracer", ignore=shutil.ignore_patterns("__pycache__"))
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet", "-w", tmp_path / "dist",
        source, cwd=tmp_path, env=env)
    (wheel,) = (tmp_path / "dist").glob("lectrace-*.whl")

    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path, env=env)
    python = venv / "bin" / "python"
    run(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--quiet", wheel, cwd=tmp_path, env=env)
    site_packages = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])",
                             cwd=tmp_path, env=env).stdout.strip())
    # Dependencies come from the development environment; its editable lectrace hook is a .pth
    # inside it, which a plain path entry does not run.
    (site_packages / "zz_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    where = run(python, "-c", "import tracer, tracer.site.mkdocs_plugin as p; print(tracer.__file__); print(p.__file__)",
                cwd=tmp_path, env=env).stdout.split()
    assert all(Path(w).is_relative_to(site_packages) for w in where), where

    course = tmp_path / "course"
    run(venv / "bin" / "lectrace", "init", course, "-q", cwd=tmp_path, env=env)
    assert not (course / "tracer").exists()
    run(venv / "bin" / "lectrace", "build", "-q", cwd=course, env=env)
    run(venv / "bin" / "lectrace", "check", "-q", cwd=course, env=env)  # the README's test command

    page = (course / "build" / "site" / "lectures" / "hello" / "index.html").read_text(encoding="utf-8")
    assert "Hello" in page and "mean" in page and "lt-" in page  # the package's templates drew it
    assert (course / "build" / "site" / "lectures" / "hello" / "data.js").is_file()
    shipped = site_packages / "tracer" / "site" / "assets" / "viewer.js"
    assert (course / "build" / "site" / "assets" / "lectrace" / "viewer.js").read_bytes() == shipped.read_bytes()
    assert (course / "site" / "traces" / "hello.json").is_file()
