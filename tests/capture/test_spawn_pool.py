"""A lecture that starts a `spawn` (or `forkserver`) multiprocessing pool finishes under the tracer:
the pool's processes import the lecture under its private module name to unpickle its functions."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from helpers.projects import make_project

LECTURE = """
import dataclasses
import multiprocessing


@dataclasses.dataclass
class Job:
    n: int


def square(job):
    return job.n * job.n


def main():
    with multiprocessing.get_context("{method}").Pool(2) as pool:
        results = pool.map(square, [Job(k) for k in range(4)])  # @inspect results
    print(results)
"""


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_a_lecture_using_a_spawned_pool_finishes_with_its_results(tmp_path, method):
    root = make_project(tmp_path, {"pool.py": textwrap.dedent(LECTURE.format(method=method))})
    done = subprocess.run(
        [sys.executable, "-m", "tracer", "run", "lectures/pool.py", "-q"], cwd=root, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    trace = json.loads((root / "site" / "traces" / "pool.json").read_text(encoding="utf-8"))
    assert trace["status"] == "ok"
    values = [step["env"]["results"] for step in trace["steps"] if "results" in step.get("env", {})]
    assert [item["value"] for item in values[0]["items"]] == [0, 1, 4, 9]
    assert "".join(step.get("stdout", "") for step in trace["steps"]) == "[0, 1, 4, 9]\n"
