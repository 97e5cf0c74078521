"""A trace made in one checkout is fresh in another at a different absolute path and home folder."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from helpers.projects import make_project

LECTURE = """
import os
from pathlib import Path


def main():
    here = os.getcwd()  # @inspect here
    home = str(Path.home())  # @inspect home
    both = f"{here}/lectures/where.py and {here}"  # @inspect both
    places = [here, home, here]  # @inspect places
    print("running in", here, "home", home, "file", Path(__file__).resolve())
"""


def chalktrace(root: Path, home: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tracer", *argv],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "HOME": str(home), "NO_MKDOCS_2_WARNING": "1"},
    )


def test_a_trace_made_in_one_checkout_checks_fresh_in_another(tmp_path):
    home_a, home_b = tmp_path / "ann", tmp_path / "bob"
    first = make_project(home_a / "course", {"where.py": LECTURE})
    done = chalktrace(first, home_a, "run", "lectures/where.py", "-q")
    assert done.returncode == 0, done.stderr
    trace_text = (first / "site" / "traces" / "where.json").read_text(encoding="utf-8")
    for private in (str(tmp_path), "ann"):
        assert private not in trace_text, private
    trace = json.loads(trace_text)
    env = {name: value for step in trace["steps"] for name, value in step["env"].items()}
    assert env["here"]["value"] == "." and env["home"]["value"] == "<home>"
    assert env["both"]["value"] == "lectures/where.py and ."
    assert [item["value"] for item in env["places"]["items"]] == [".", "<home>", "."]
    printed = "".join(step["stdout"] for step in trace["steps"])
    assert printed == "running in . home <home> file lectures/where.py\n"

    second = home_b / "elsewhere" / "checkout"
    shutil.copytree(first, second)
    done = chalktrace(second, home_b, "check", "-q")
    assert done.returncode == 0, done.stderr + done.stdout
