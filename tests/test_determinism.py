"""Traces are deterministic by default: a fixed PYTHONHASHSEED (recorded in the header), and seeding
before the lecture is imported, so that the lecture's own seeding wins (tracer/cli.py,
tracer/capture/traced_process.py, tracer/capture/runner.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

ORDER_LECTURE = """\
import random

import numpy as np

np.random.seed(1234)
random.seed(99)
np.random.rand()


def main():
    words = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"}
    order = list(words)  # @inspect order
    counts = {}
    for word in words:
        counts[word] = len(word)
    keys = list(counts)  # @inspect keys
    print(sorted(words) == order, hash("alpha") % 1000)
    after = np.random.rand()  # @inspect after
    r = random.random()  # @inspect r
"""


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root = tmp_path_factory.mktemp("determinism")
    (root / "pyproject.toml").write_text("[project]\nname = 'scratch'\n", encoding="utf-8")
    (root / "lectures").mkdir()
    (root / "lectures" / "order.py").write_text(ORDER_LECTURE, encoding="utf-8")
    return root


def trace_twice(root: Path) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"}  # as a user's shell has it
    texts = []
    for run in (1, 2):
        out = root / f"run{run}.json"
        done = subprocess.run(
            [sys.executable, "-m", "tracer", "run", "lectures/order.py", "-o", str(out), "-q"],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        texts.append(out.read_text(encoding="utf-8"))
    return texts


def test_set_and_dict_order_lectures_give_the_same_trace_twice(course):
    first, second = trace_twice(course)
    assert first == second
    trace = json.loads(first)
    assert trace["environment"]["hash_seed"] == 0
    values = {name: value for step in trace["steps"] for name, value in step["env"].items()}
    assert values["order"]["type"] == "list" and values["keys"]["type"] == "list"


def test_the_lectures_own_seeding_wins_as_when_run_by_python(course):
    trace = json.loads(trace_twice(course)[0])
    values = {name: value for step in trace["steps"] for name, value in step["env"].items()}
    plain = subprocess.run(
        [
            sys.executable,
            "-c",
            textwrap.dedent("""\
        import random, numpy as np
        np.random.seed(1234); random.seed(99); np.random.rand()
        print(repr(np.random.rand()), repr(random.random()))"""),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    after, r = (float(x) for x in plain.stdout.split())
    assert (values["after"]["value"], values["r"]["value"]) == (after, r)


def test_a_callers_own_hash_seed_is_kept_and_recorded(course):
    out = course / "seeded.json"
    env = dict(os.environ, PYTHONHASHSEED="7")
    subprocess.run(
        [sys.executable, "-m", "tracer", "run", "lectures/order.py", "-o", str(out), "-q"],
        cwd=course,
        env=env,
        check=True,
        capture_output=True,
        timeout=300,
    )
    assert json.loads(out.read_text(encoding="utf-8"))["environment"]["hash_seed"] == 7


def test_seeding_before_the_import_seeds_numpy_when_the_lecture_loads_it(tmp_path):
    # in a fresh interpreter where numpy is not loaded yet: the import hook seeds it as it loads
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'scratch'\n", encoding="utf-8")
    lecture = tmp_path / "draws.py"
    lecture.write_text(
        "import numpy as np\n\nfirst = float(np.random.rand())\n\n\ndef main():\n    x = first  # @inspect x\n", encoding="utf-8"
    )
    script = (
        "import json, sys\nfrom tracer.capture.runner import run_lecture\n"
        f"r = run_lecture({str(lecture)!r}, write=False, seed=3)\n"
        "t = json.loads(r.trace_text)\nprint(t['steps'][-1]['env']['x']['value'])\n"
    )
    values = {
        subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=300).stdout.strip()
        for _ in range(2)
    }
    import numpy as np

    assert values == {repr(float(np.random.RandomState(3).rand()))}
