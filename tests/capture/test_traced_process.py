"""What owns a traced process (tracer/capture/traced_process.py): what it changes, it puts back."""

from __future__ import annotations

import multiprocessing.process
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tracer.capture.runner import run_lecture

LECTURES = Path(__file__).parents[1] / "lectures"


@pytest.mark.parametrize("max_steps", [100_000, 3], ids=["whole run", "step cap"])
def test_coverage_keeps_recording_after_chalktrace_stops(tmp_path, max_steps):
    # chalktrace traces with sys.settrace, as coverage (or a debugger) does: it must put the tracer it
    # found back when it stops (at the end, or at the step cap), not switch tracing off.
    driver = tmp_path / "driver.py"
    driver.write_text(
        textwrap.dedent(f"""\
        from tracer.capture.runner import run_lecture


        def after():
            seen = "after chalktrace"
            return seen


        def main():
            run_lecture({str(LECTURES / "many_steps.py")!r}, write=False, max_steps={max_steps})
            marker = after()
            return marker


        main()
        """),
        encoding="utf-8",
    )
    data = tmp_path / ".coverage"
    subprocess.run(
        [sys.executable, "-m", "coverage", "run", f"--data-file={data}", str(driver)],
        check=True,
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    import coverage

    covered = coverage.CoverageData(basename=str(data))
    covered.read()
    lines = set(covered.lines(str(driver)) or ())
    assert {5, 6, 11, 12} <= lines  # after()'s body, and main()'s lines after run_lecture returned


def test_process_state_is_as_before_after_a_run(tmp_path):
    start, exit_, stdout, stderr, trace = (
        multiprocessing.process.BaseProcess.start,
        os._exit,
        sys.stdout,
        sys.stderr,
        sys.gettrace(),
    )
    seen = []
    run_lecture(LECTURES / "uses_helper.py", write=False, on_process=seen.append)
    assert (multiprocessing.process.BaseProcess.start, os._exit, sys.stdout, sys.stderr, sys.gettrace()) == (
        start,
        exit_,
        stdout,
        stderr,
        trace,
    )
    traced = seen[0]
    assert traced.recorder.steps and traced.abort() is None  # no ranks: nothing to abort
