"""Freshness that cannot be fooled (``chalktrace run``/``build`` end to end): a run cut short by
Ctrl-C is never fresh, on ``run`` or on ``build``, and editing a data file the lecture reads or a
root-level module it imports makes its trace stale."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers.processes import ctrl_c_as_a_terminal_gives_it

HELD = """\
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the course root (this string is the lecture's source)


def main():
    (ROOT / "started").write_text("yes")
    n = 0
    while (ROOT / "hold").exists():
        n += 1
        time.sleep(0.01)
    done = n >= 0  # @inspect done
"""

READER = """\
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the course root (this string is the lecture's source)
sys.path.insert(0, str(ROOT))
import course_utils  # noqa: E402


def main():
    numbers = (ROOT / "data" / "numbers.csv").read_text()
    total = sum(int(x) for x in numbers.split(",")) * course_utils.SCALE  # @inspect total
"""


def course(root: Path, lectures: dict[str, str]) -> Path:
    (root / "pyproject.toml").write_text("[project]\nname = 'scratch'\n", encoding="utf-8")
    (root / "lectures").mkdir()
    for name, source in lectures.items():
        (root / "lectures" / f"{name}.py").write_text(source, encoding="utf-8")
    return root


def chalktrace(root: Path, *args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tracer", *args], cwd=root, capture_output=True, text=True, timeout=600, **kwargs
    )


def wait_for(path: Path, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


def build_retraces(root: Path) -> bool:
    done = chalktrace(root, "build", "--no-site", "-j", "1")
    assert done.returncode == 0, done.stderr
    return "re-tracing 1 of 1" in done.stderr


def interrupt(command: list[str], root: Path) -> subprocess.Popen:
    """Start ``command``, wait for the lecture to start, then press Ctrl-C (SIGINT to its process group)."""
    (root / "hold").write_text("")
    proc = subprocess.Popen(
        command,
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=ctrl_c_as_a_terminal_gives_it,
    )
    wait_for(root / "started")
    os.killpg(proc.pid, signal.SIGINT)
    proc.communicate(timeout=300)
    (root / "hold").unlink()
    return proc


def test_a_trace_cut_short_by_ctrl_c_on_run_is_never_fresh(tmp_path):
    root = course(tmp_path, {"held": HELD})
    proc = interrupt([sys.executable, "-m", "tracer", "run", "lectures/held.py", "-q"], root)
    assert proc.returncode == 130
    trace = json.loads((root / "site" / "traces" / "held.json").read_text(encoding="utf-8"))
    assert trace["status"] == "interrupted"
    assert build_retraces(root)  # the next build does not publish half a lecture
    assert json.loads((root / "site" / "traces" / "held.json").read_text(encoding="utf-8"))["status"] == "ok"
    assert not build_retraces(root)


def test_a_build_cut_short_by_ctrl_c_leaves_nothing_fresh_behind(tmp_path):
    root = course(tmp_path, {"held": HELD})
    proc = interrupt([sys.executable, "-m", "tracer", "build", "--no-site", "-j", "1"], root)
    assert proc.returncode != 0
    written = root / "site" / "traces" / "held.json"
    assert not written.exists() or json.loads(written.read_text(encoding="utf-8"))["status"] == "interrupted"
    assert build_retraces(root)


@pytest.mark.parametrize("edit", ["data/numbers.csv", "course_utils.py"])
def test_editing_a_file_the_lecture_read_makes_its_trace_stale(tmp_path, edit):
    root = course(tmp_path, {"reader": READER})
    (root / "data").mkdir()
    (root / "data" / "numbers.csv").write_text("1,2,3", encoding="utf-8")
    (root / "course_utils.py").write_text("SCALE = 10\n", encoding="utf-8")
    assert build_retraces(root)
    assert not build_retraces(root)  # fresh
    (root / edit).write_text("1,2,4" if edit.endswith(".csv") else "SCALE = 100\n", encoding="utf-8")
    assert build_retraces(root)
    values = [
        step["env"]["total"]["value"]
        for step in json.loads((root / "site" / "traces" / "reader.json").read_text(encoding="utf-8"))["steps"]
        if "total" in step["env"]
    ]
    assert values == ([70] if edit.endswith(".csv") else [600])
