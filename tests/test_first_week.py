"""A new lecturer's first week, end to end, as the README and the course template tell it.

1. build the wheel and install it into a fresh virtual environment (torch from constraints.txt);
2. ``chalktrace init`` a course and write a lecture;
3. ``chalktrace serve`` it, open the page in Chromium (its Content-Security-Policy on), save an edit
   and see the page reload with the new value;
4. ``chalktrace build``;
5. CI: a second virtual environment at another path installs chalktrace from the course's
   ``requirements.txt`` and ``constraints.txt`` as its ``.ci/run`` does; ``chalktrace check`` on a clone
   of the course at another path finds the traces made in the first fresh, and no value drifted, although
   the lecture shows paths of the environment (a library's file, a standard-library file); the site it
   builds shows the tensor's card;
6. break the lecture and see ``check`` fail, naming ``file:line``.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from helpers.network import free_port, wait_until_served
from helpers.processes import clean_env, run
from helpers.reloading_page import wait_for
from helpers.wheels import build_wheel, install_wheel

REPO = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.wheel


def lecture(draft: int, broken: bool = False) -> str:
    mistake = "    total = w_q + 1\n" if broken else ""
    return (
        f'"""Week one."""\n\nimport json\n\nimport torch\n\nimport tracer\nfrom tracer import text\n\n\n'
        f'def main():\n    text("# Week one, draft {draft}")\n'
        f"    w_k = torch.arange(6).reshape(2, 3) * {draft}  # @inspect w_k\n"
        f"    total = int(w_k.sum())  # @inspect total\n"
        f"{mistake}"
        f"    library = tracer.__file__  # @inspect library\n"
        f"    stdlib = json.__file__  # @inspect stdlib\n"
    )


def test_a_new_lecturer_s_first_week(tmp_path, browser):
    env = clean_env()
    # 1. the wheel, into a fresh environment, torch as the repository pins it
    wheel = build_wheel(tmp_path, env)
    (tmp_path / "laptop").mkdir()
    venv = tmp_path / "laptop" / ".venv"
    install_wheel(wheel, venv, env, "torch")
    chalktrace = venv / "bin" / "chalktrace"

    # 2. a course and its first lecture
    course = tmp_path / "laptop" / "course"
    run(chalktrace, "init", course, "--title", "Week one", "-q", cwd=tmp_path, env=env)
    # What CI installs: never this machine's wheel path (a clean runner has none); chalktrace from a
    # wheel file has no VCS URL to pin, so the index from this version on; torch's CPU build.
    (line,) = [r for r in (course / "requirements.txt").read_text(encoding="utf-8").splitlines() if r and r[0] != "#"]
    pinned = Requirement(line)
    assert (pinned.name, pinned.extras, pinned.url) == ("chalktrace", {"torch"}, None)
    assert str(pinned.specifier).startswith(">=") and "file://" not in "".join(p.read_text() for p in course.rglob("*.txt"))
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in (course / "constraints.txt").read_text(encoding="utf-8")
    first = course / "lectures" / "first.py"
    first.write_text(lecture(1), encoding="utf-8")

    # 3. serve, open the page, save an edit, see the page reload with the new value
    port = free_port()
    server = subprocess.Popen(
        [chalktrace, "serve", "-a", f"127.0.0.1:{port}"],
        cwd=course,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}/lectures/first/"
    try:
        wait_until_served(url, server, 300)
        context = browser.new_context(viewport={"width": 1280, "height": 720})
        page = context.new_page()
        page.goto(url)
        wait_for(page, "document.body && document.body.innerText.includes('Week one, draft 1')", 30)
        total = "document.querySelector(\".lt-card[data-name='total']\")?.innerText"
        wait_for(page, f"{total}.includes('15')", 30)  # 0+1+…+5
        first.write_text(lecture(2), encoding="utf-8")
        wait_for(page, "document.body && document.body.innerText.includes('Week one, draft 2')", 300)
        wait_for(page, f"{total}.includes('30')", 30)  # read through any second reload of the same save
        context.close()
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(30)

    # 4. build
    built = run(chalktrace, "build", cwd=course, env=env)
    assert "site built in build/site/" in built.stderr
    trace_text = (course / "site" / "traces" / "first.json").read_text(encoding="utf-8")
    assert "<site-packages>/tracer/__init__.py" in trace_text and "<stdlib>/json/__init__.py" in trace_text
    assert str(tmp_path) not in trace_text
    # the documented install ([torch] brings numpy): the tensor's card shows its values, and no
    # warning box reaches students (build would have failed on one)
    assert "cannot encode" not in built.stderr and "warning box" not in built.stderr
    page = (course / "build" / "site" / "lectures" / "first" / "index.html").read_text(encoding="utf-8")
    assert 'data-name="w_k"' in page and "lt-kind-tensor" in page and "Trace warning" not in page
    card = re.sub(r"<[^>]+>", " ", page[page.index('data-name="w_k"') :][:20000])
    assert re.search(r"\b0\s+2\s+4\s+6\s+8\s+10\b", card), card[:600]  # draft 2: arange(6) * 2

    # 5. CI: a clone at another path, an environment at another path, chalktrace installed from the
    # course's own requirements.txt and constraints.txt exactly as its .ci/run does. Offline stand-ins
    # for the package index: this wheel is the index's release (--find-links), and the dependencies,
    # torch included, are the laptop's, already installed once (a .pth file).
    clone = tmp_path / "ci" / "checkout"
    shutil.copytree(course, clone, ignore=shutil.ignore_patterns("build"))
    ci_install = ".venv/bin/pip install -c constraints.txt -r requirements.txt"
    assert ci_install in (clone / ".ci" / "run").read_text(encoding="utf-8")
    other = tmp_path / "ci" / "env" / "py"
    run(sys.executable, "-m", "venv", "--without-pip", other, cwd=tmp_path, env=env)
    purelib = run(
        other / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=tmp_path, env=env
    ).stdout.strip()
    first_purelib = run(
        venv / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=tmp_path, env=env
    ).stdout.strip()
    dependencies = tmp_path / "ci" / "dependencies"  # the laptop's packages but chalktrace, linked
    dependencies.mkdir()
    for entry in Path(first_purelib).iterdir():
        if entry.name != "tracer" and not entry.name.startswith("chalktrace"):
            (dependencies / entry.name).symlink_to(entry)
    (Path(purelib) / "zz_dependencies.pth").write_text(f"{dependencies}\n")
    assert Path(purelib) != Path(first_purelib) != Path(sysconfig.get_paths()["purelib"])
    run(
        sys.executable,
        "-m",
        "pip",
        "--python",
        other / "bin" / "python",
        "install",
        "--quiet",
        "--no-index",
        "--find-links",
        tmp_path / "dist",
        *ci_install.split()[2:],
        cwd=clone,
        env=env,
    )
    assert (Path(purelib) / "tracer" / "__init__.py").is_file()  # chalktrace itself came from requirements.txt
    checked = run(other / "bin" / "chalktrace", "check", cwd=clone, env=env, check=False)
    assert checked.returncode == 0, checked.stderr
    assert "no value drifted" in checked.stderr
    # what CI publishes shows the tensor's card with its values
    run(other / "bin" / "python", "-m", "mkdocs", "build", "--strict", cwd=clone, env=env)
    published = (clone / "build" / "site" / "lectures" / "first" / "index.html").read_text(encoding="utf-8")
    card = re.sub(r"<[^>]+>", " ", published[published.index('data-name="w_k"') :][:20000])
    assert re.search(r"\b0\s+2\s+4\s+6\s+8\s+10\b", card), card[:600]

    # 6. a broken lecture fails check, naming file and line
    (clone / "lectures" / "first.py").write_text(lecture(2, broken=True), encoding="utf-8")
    failed = run(other / "bin" / "chalktrace", "check", cwd=clone, env=env, check=False)
    assert failed.returncode == 3
    assert "lectures/first.py:15: lecture raised NameError: name 'w_q' is not defined. Did you mean: 'w_k'?" in failed.stderr, (
        failed.stderr
    )
