"""An installed wheel (not editable) is all a course needs, and publishing needs no torch: ``chalktrace init`` makes a repository
holding only mkdocs.yml, lectures/, site/docs and site/traces; the installed ``chalktrace`` traces its
lecture and builds the site with the templates and assets shipped inside the package.

The wheel is built from a copy of pyproject.toml, README.md and tracer/ (so a file left out of the
package data fails here), installed into a fresh virtual environment that borrows only the
dependencies (torch, mkdocs, ...) from the development environment through a .pth file; for the
site-only test, pip installs the wheel's own dependencies into a fresh environment, where torch is absent.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from helpers.processes import clean_env, run
from helpers.wheels import build_wheel, install_wheel

REPO = Path(__file__).resolve().parent.parent


def test_package_metadata_pins_nothing_and_keeps_torch_in_an_extra():
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = project["dependencies"] + [r for extra in project["optional-dependencies"].values() for r in extra]
    assert all(">=" in r and "==" not in r and "<" not in r for r in requirements), requirements
    names = {r.split(">")[0].split("[")[0] for r in project["dependencies"]}
    assert not names & {"torch", "einops", "jaxtyping", "numpy"}
    # numpy too: torch wheels do not bring it, and a tensor's values are encoded through it
    assert {r.split(">")[0] for r in project["optional-dependencies"]["torch"]} == {"torch", "numpy", "einops", "jaxtyping"}
    # numpy lectures need numpy: the course-setup guide's table sends them to this extra
    assert [r.split(">")[0] for r in project["optional-dependencies"]["numpy"]] == ["numpy"]
    assert "`chalktrace[numpy]`" in (REPO / "site" / "docs" / "guide" / "course-setup.md").read_text(encoding="utf-8")
    # The exact torch lives in the development constraints, which tasks.py installs with.
    assert "torch==" in (REPO / "constraints.txt").read_text() and "-c" in (REPO / "tasks.py").read_text()


@pytest.mark.wheel
def test_a_venv_without_torch_builds_a_course_site_from_its_committed_traces(tmp_path):
    """A publishing job installs the plain wheel (its real dependencies, resolved by pip: no torch) and
    builds the site from traces that a torch environment committed; it also traces a pure-Python lecture."""
    env = clean_env()
    wheel = build_wheel(tmp_path, env)
    course = tmp_path / "course"
    run(sys.executable, "-m", "tracer", "init", course, "-q", cwd=tmp_path, env=env)
    shutil.copy(REPO / "tests" / "lectures" / "tensor_views.py", course / "lectures" / "tensor_views.py")
    run(sys.executable, "-m", "tracer", "build", "--no-site", "-q", cwd=course, env=env)  # the torch side commits traces
    committed = {p.name: p.read_bytes() for p in (course / "site" / "traces").glob("*.json")}
    assert sorted(committed) == ["hello.json", "tensor_views.json"]

    venv = tmp_path / "site-venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path, env=env)
    python = venv / "bin" / "python"
    run(sys.executable, "-m", "pip", "--python", python, "install", "--quiet", wheel, cwd=tmp_path, env=env)
    for module in ("torch", "einops", "jaxtyping", "numpy"):
        missing = subprocess.run([python, "-c", f"import {module}"], capture_output=True, text=True, env=env)
        assert missing.returncode == 1 and f"No module named '{module}'" in missing.stderr

    done = run(venv / "bin" / "chalktrace", "build", cwd=course, env=env)
    assert "all 2 traces fresh; nothing to re-trace" in done.stderr
    assert {p.name: p.read_bytes() for p in (course / "site" / "traces").glob("*.json")} == committed
    page = (course / "build" / "site" / "lectures" / "tensor_views" / "index.html").read_text(encoding="utf-8")
    assert "float64" in page and "lt-" in page  # the tensor card, drawn without torch
    assert "Hello" in (course / "build" / "site" / "lectures" / "hello" / "index.html").read_text(encoding="utf-8")
    # The tracer runs pure-Python lectures without torch too.
    run(venv / "bin" / "chalktrace", "run", "lectures/hello.py", "-o", tmp_path / "hello.json", "-q", cwd=course, env=env)
    assert json.loads((tmp_path / "hello.json").read_text())["environment"]["torch"] is None


@pytest.mark.wheel
def test_a_wheel_installed_elsewhere_builds_a_course_site(tmp_path):
    env = clean_env()
    wheel = build_wheel(tmp_path, env)

    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path, env=env)
    python = venv / "bin" / "python"
    run(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--quiet", wheel, cwd=tmp_path, env=env)
    site_packages = Path(
        run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=tmp_path, env=env).stdout.strip()
    )
    # Dependencies come from the development environment; its editable chalktrace hook is a .pth
    # inside it, which a plain path entry does not run.
    (site_packages / "zz_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    where = run(
        python,
        "-c",
        "import tracer, tracer.site.mkdocs_plugin as p; print(tracer.__file__); print(p.__file__)",
        cwd=tmp_path,
        env=env,
    ).stdout.split()
    assert all(Path(w).is_relative_to(site_packages) for w in where), where

    course = tmp_path / "course"
    run(venv / "bin" / "chalktrace", "init", course, "-q", cwd=tmp_path, env=env)
    assert not (course / "tracer").exists()
    run(venv / "bin" / "chalktrace", "build", "-q", cwd=course, env=env)
    run(venv / "bin" / "chalktrace", "check", "-q", cwd=course, env=env)  # the README's test command

    page = (course / "build" / "site" / "lectures" / "hello" / "index.html").read_text(encoding="utf-8")
    assert "Hello" in page and "mean" in page and "lt-" in page  # the package's templates drew it
    assert (course / "build" / "site" / "lectures" / "hello" / "data.js").is_file()
    # the viewer's scripts ship in the package and reach the page joined, unchanged, in their order
    published = (course / "build" / "site" / "assets" / "chalktrace" / "viewer.js").read_text(encoding="utf-8")
    shipped = site_packages / "tracer" / "site" / "assets"
    where = [
        published.index(shipped.joinpath(name).read_text(encoding="utf-8"))
        for name in ("read.js", "viewer-core.js", "viewer-keyboard.js", "viewer-sync.js", "ranks.js")
    ]
    assert where == sorted(where)
    assert 'src="../../assets/chalktrace/viewer.js"' in page and "viewer-core.js" not in page
    assert (course / "site" / "traces" / "hello.json").is_file()


# What each extra is for, and a lecture that uses it: installing the wheel with only that extra must
# encode its values (a tensor's values go through numpy, which torch wheels do not bring).
EXTRA_LECTURES = {
    "torch": (
        "import torch\n\n\ndef main():\n"
        "    w = torch.arange(6.0).reshape(2, 3)  # @inspect w\n"
        "    loss = (w * 2).sum()  # @inspect loss\n",
        {"w": ("tensor", [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]), "loss": ("tensor", 30.0)},
    ),
    "numpy": (
        "import numpy as np\n\n\ndef main():\n    a = np.arange(4) * 2  # @inspect a\n",
        {"a": ("ndarray", [0, 2, 4, 6])},
    ),
}


# Extras for a command rather than for lectures' values: the command each one makes work.
EXTRA_COMMANDS = {"export": "export"}


def test_every_extra_but_the_developers_has_a_lecture_or_a_command_that_uses_it():
    import tomllib

    extras = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert set(extras) - {"test"} == set(EXTRA_LECTURES) | set(EXTRA_COMMANDS)
    assert not set(EXTRA_LECTURES) & set(EXTRA_COMMANDS)


@pytest.mark.wheel
@pytest.mark.skipif(not Path("/usr/bin/chromium").is_file(), reason="needs Debian's chromium")
def test_the_wheel_with_the_export_extra_prints_a_pdf(tmp_path):
    """``chalktrace[export]`` alone, into a fresh environment: ``chalktrace export --pdf`` prints a
    course's lecture with a system Chromium (nothing else installed for it)."""
    from pypdf import PdfReader

    env = clean_env()
    bin_dir = install_wheel(build_wheel(tmp_path, env), tmp_path / "venv", env, "export")
    course = tmp_path / "course"
    run(bin_dir / "chalktrace", "init", course, "-q", cwd=tmp_path, env=env)
    pdf = tmp_path / "hello.pdf"
    run(bin_dir / "chalktrace", EXTRA_COMMANDS["export"], "hello", "--pdf", "-o", pdf, cwd=course, env=env, timeout=600)
    text = "".join(page.extract_text() for page in PdfReader(pdf).pages)
    assert "Hello" in text and "mean" in text


@pytest.mark.wheel
@pytest.mark.parametrize("extra", sorted(EXTRA_LECTURES))
def test_the_wheel_with_one_extra_encodes_that_extra_s_values(tmp_path, extra):
    """``pip install -c constraints.txt "chalktrace[EXTRA] @ file://...whl"`` into a fresh environment, as the
    guide says, with nothing borrowed: the lecture's values are encoded, with no warning."""
    env = clean_env()
    bin_dir = install_wheel(build_wheel(tmp_path, env), tmp_path / "venv", env, extra)
    course = tmp_path / "course"
    run(bin_dir / "chalktrace", "init", course, "-q", cwd=tmp_path, env=env)
    source, expected = EXTRA_LECTURES[extra]
    (course / "lectures" / "uses_extra.py").write_text(source, encoding="utf-8")
    done = run(bin_dir / "chalktrace", "run", "lectures/uses_extra.py", "-o", tmp_path / "t.json", cwd=course, env=env)
    assert "warning" not in done.stderr and "cannot encode" not in done.stderr, done.stderr
    trace = json.loads((tmp_path / "t.json").read_text(encoding="utf-8"))
    assert trace["warnings"] == []
    values = {name: value for step in trace["steps"] for name, value in step.get("env", {}).items()}
    assert {name: (values[name]["type"], values[name]["values"]) for name in expected} == expected
