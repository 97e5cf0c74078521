"""What owns a traced process (tracer/capture/traced_process.py): what it changes, it puts back."""

from __future__ import annotations

import multiprocessing.process
import os
import subprocess
import sys
import textwrap
import types
import threading
import warnings
from pathlib import Path

import pytest

from tracer.capture.ranks.collectives import LIFECYCLE, OPS
from tracer.capture.runner import run_lecture
from tracer.capture.traced_process import TracedProcess, TraceOptions

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


def process_state() -> dict[str, object]:
    """Every piece of process-wide state a traced run changes, as a comparable snapshot."""
    from tracer.capture import audit

    state: dict[str, object] = {
        "BaseProcess.start": multiprocessing.process.BaseProcess.start,
        "os._exit": os._exit,
        "os.write": os.write,
        "sys.stdout": sys.stdout,
        "sys.stderr": sys.stderr,
        "sys.gettrace": sys.gettrace(),
        "threading.gettrace": threading.gettrace(),
        "Thread.start": threading.Thread.start,
        "sys.settrace": sys.settrace,
        "sys.path": list(sys.path),
        "sys.meta_path": list(sys.meta_path),
        "lecture modules": sorted(
            name for name, module in sys.modules.items() if str(LECTURES) in (getattr(module, "__file__", None) or "")
        ),
        "cwd": os.getcwd(),
        "audit listeners": list(audit._listeners),
        "warnings.showwarning": warnings.showwarning,
    }
    try:
        import torch.distributed as dist
    except ImportError:  # no torch: nothing of it to patch
        return state
    state["torch.distributed"] = {name: getattr(dist, name, None) for name in OPS + LIFECYCLE}
    return state


def test_process_state_is_as_before_after_a_run(tmp_path):
    before = process_state()
    seen = []
    run_lecture(LECTURES / "uses_helper.py", write=False, on_process=seen.append)
    assert process_state() == before
    traced = seen[0]
    assert traced.recorder.steps and traced.abort() is None  # no ranks: nothing to abort


def test_a_ranks_distributed_patches_are_undone_where_they_were_made():
    # A rank wraps torch.distributed (and the names a lecture bound with `from torch.distributed
    # import ...`) while it is traced; every one is the original again afterwards.
    dist = pytest.importorskip("torch.distributed")
    from tracer.capture.ranks.collectives import CollectiveLog

    lecture_module = types.ModuleType("lecture")
    lecture_module.all_reduce = dist.all_reduce
    before = process_state()
    log = CollectiveLog(lambda: (0, "lecture.py", 1), t0=0.0, modules=[lecture_module])
    traced = TracedProcess(LECTURES / "uses_helper.py", LECTURES.parent, TraceOptions(capture_fds=False))
    traced.add_process_state(log.installed())  # as a rank's worker hands it over
    outcome = traced.run(lambda: (process_state()["torch.distributed"], lecture_module.all_reduce))
    patched, bound = outcome.value
    assert outcome.escaped is None and patched != before["torch.distributed"] and bound is patched["all_reduce"]
    assert process_state() == before
    assert lecture_module.all_reduce is before["torch.distributed"]["all_reduce"]
