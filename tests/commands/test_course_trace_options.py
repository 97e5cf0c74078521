"""Course-level trace options: ``[tool.chalktrace]`` preview_elements, max_steps, max_output_chars, flops
and seed are the defaults of ``chalktrace run`` (and so of build and check); a trace records them, and
check re-traces with what the committed trace records."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from helpers.projects import make_project

# a 100-element array whose preview the preview_elements setting cuts, a random draw the seed decides,
# a print that max_output_chars cuts, and a loop long enough for a step cap
LECTURE = """
import random

import numpy as np


def main():
    values = np.arange(100)  # @inspect values
    draw = random.random()  # @inspect draw
    print("x" * 50)
    for i in range(30):
        total = i
"""


def chalktrace(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tracer", *args], cwd=root, capture_output=True, text=True)


def course(tmp_path: Path, settings: str = "") -> Path:
    root = make_project(tmp_path, {"a.py": LECTURE})
    (root / "pyproject.toml").write_text(f"[project]\nname = 'scratch'\n\n[tool.chalktrace]\n{settings}")
    return root


def trace(root: Path) -> dict:
    return json.loads((root / "site" / "traces" / "a.json").read_text())


def kept(trace: dict) -> int:
    """How many of the array's values its preview kept (the elided middle shown as one "…")."""
    preview = next(step["env"]["values"] for step in trace["steps"] if "values" in step["env"])
    return sum(1 for value in preview["values"] if value != "…")


def test_the_course_settings_are_runs_defaults_and_the_trace_records_them(tmp_path):
    root = course(
        tmp_path, "preview_elements = 16\npreview_rows = 3\nmax_steps = 12\nmax_output_chars = 10\nflops = false\nseed = 7\n"
    )
    done = chalktrace(root, "run", "lectures/a.py", "-q")
    assert done.returncode == 0, done.stderr
    made = trace(root)
    assert made["options"] == {"preview_elements": 16, "max_steps": 12, "max_output_chars": 10, "flops": False, "preview_rows": 3}
    assert made["environment"]["seed"] == 7
    assert made["truncated"]["max_steps"] == 12
    assert kept(made) == 16

    # an option on the command line wins over the course's setting
    done = chalktrace(
        root, "run", "lectures/a.py", "-q", "--preview-elements", "32", "--seed", "3", "--flops", "--preview-rows", "5"
    )
    assert done.returncode == 0, done.stderr
    made = trace(root)
    assert (made["options"]["preview_elements"], made["options"]["flops"], made["environment"]["seed"]) == (32, True, 3)
    assert made["options"]["preview_rows"] == 5
    assert made["options"]["max_steps"] == 12


def test_without_settings_the_built_in_defaults_are_recorded(tmp_path):
    root = course(tmp_path)
    assert chalktrace(root, "run", "lectures/a.py", "-q").returncode == 0
    made = trace(root)
    assert made["options"] == {
        "preview_elements": 400,
        "max_steps": 100_000,
        "max_output_chars": 100_000,
        "flops": True,
        "preview_rows": 8,
    }
    assert made["environment"]["seed"] == 0


def test_check_re_traces_with_the_options_the_committed_trace_was_made_with(tmp_path):
    root = course(tmp_path)
    assert chalktrace(root, "run", "lectures/a.py", "-q", "--preview-elements", "64", "--seed", "5").returncode == 0
    assert kept(trace(root)) == 64
    done = chalktrace(root, "check")
    assert done.returncode == 0, done.stderr
    assert "every committed trace fresh and valid, no value drifted" in done.stderr


def test_a_course_setting_the_trace_was_made_without_makes_it_stale(tmp_path):
    root = course(tmp_path, "preview_elements = 16\n")
    assert chalktrace(root, "run", "lectures/a.py", "-q").returncode == 0
    assert chalktrace(root, "check").returncode == 0
    (root / "pyproject.toml").write_text("[project]\nname = 'scratch'\n\n[tool.chalktrace]\npreview_elements = 32\n")
    done = chalktrace(root, "check")
    assert done.returncode != 0
    assert "site/traces/a.json: stale ([tool.chalktrace] preview_elements: 16 in the trace, 32 in pyproject.toml)" in done.stderr
    assert chalktrace(root, "build", "--no-site", "-q").returncode == 0
    assert trace(root)["options"]["preview_elements"] == 32

    # the rows a card shows before its fold are recorded too: a changed setting re-traces
    (root / "pyproject.toml").write_text(
        "[project]\nname = 'scratch'\n\n[tool.chalktrace]\npreview_elements = 32\npreview_rows = 4\n"
    )
    done = chalktrace(root, "check")
    assert "site/traces/a.json: stale ([tool.chalktrace] preview_rows: 8 in the trace, 4 in pyproject.toml)" in done.stderr
    assert chalktrace(root, "build", "--no-site", "-q").returncode == 0
    assert trace(root)["options"]["preview_rows"] == 4
    assert chalktrace(root, "check").returncode == 0


def test_a_bad_setting_is_one_line_naming_the_file_and_key_and_keeps_the_trace(tmp_path):
    root = course(tmp_path)
    assert chalktrace(root, "run", "lectures/a.py", "-q").returncode == 0
    before = (root / "site" / "traces" / "a.json").read_bytes()
    for setting, expected in [
        (
            "preview_elements = -1",
            "pyproject.toml: [tool.chalktrace] preview_elements must be a whole number of at least 1, got -1",
        ),
        ("max_steps = '10'", "pyproject.toml: [tool.chalktrace] max_steps must be a whole number of at least 1, got '10'"),
        ("seed = 1.5", "pyproject.toml: [tool.chalktrace] seed must be a whole number of at least 0, got 1.5"),
        ("flops = 'no'", "pyproject.toml: [tool.chalktrace] flops must be true or false, got 'no'"),
    ]:
        (root / "pyproject.toml").write_text(f"[project]\nname = 'scratch'\n\n[tool.chalktrace]\n{setting}\n")
        done = chalktrace(root, "run", "lectures/a.py", "-q")
        assert done.returncode == 2, done.stderr
        assert done.stderr.strip().splitlines() == [f"chalktrace: {expected}"]
        assert (root / "site" / "traces" / "a.json").read_bytes() == before
