"""bench/build_stages.py through the long-lecture bench (``--stages``): a real run and three real builds
of a small loop, and each build's time split into value cards rendered, cards cut, and the rest."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ITERATIONS = 40  # three values inspected per iteration
STAGES_LINE = re.compile(
    r"this tree, (one process|processes as chosen): build (?P<build>[\d.]+) s: "
    r"render (?P<render>[\d.]+) s \((?P<per_value>[\d,]+) µs a value, (?P<values>[\d,]+) values\), "
    r"cut (?P<cut>[\d.]+) s \((?P<per_card>[\d,]+) µs a card, (?P<cards>[\d,]+) cards\), the rest (?P<rest>-?[\d.]+) s"
)


def test_the_long_lecture_bench_splits_each_build_into_its_stages():
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "bench_long_lecture.py"),
            "--iterations",
            str(ITERATIONS),
            "--no-browser",
            "--stages",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "this tree: 205 steps" in done.stdout
    found = [match.groupdict() for match in STAGES_LINE.finditer(done.stdout)]
    assert [line.split(":")[0] for line in done.stdout.splitlines() if ", one process" in line or "as chosen" in line] == [
        "this tree, one process",
        "this tree, processes as chosen",
    ]
    assert len(found) == 2, done.stdout
    for stages in found:
        # every inspected value was rendered once, and each distinct card cut once
        assert int(stages["values"].replace(",", "")) == 3 * ITERATIONS
        assert 0 < int(stages["cards"].replace(",", "")) <= 3 * ITERATIONS
        assert int(stages["per_value"].replace(",", "")) > 0 and int(stages["per_card"].replace(",", "")) > 0
        assert float(stages["rest"]) >= 0 and float(stages["build"]) >= float(stages["render"]) + float(stages["cut"])
