"""Trace fixture lectures once per test session with the real tracer (a subprocess per lecture), and
make a kept GPU run of one (``as_gpu_run``)."""

from __future__ import annotations

import atexit
import json
import shutil
import subprocess
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LECTURES = REPO / "tests" / "lectures"


def line_of(name: str, fragment: str) -> int:
    """The line of ``tests/lectures/NAME.py`` holding ``fragment`` (exactly one line must)."""
    lines = (LECTURES / f"{name}.py").read_text(encoding="utf-8").splitlines()
    (line,) = [i for i, text in enumerate(lines, 1) if fragment in text]
    return line


@lru_cache(maxsize=1)
def traces_dir() -> Path:
    """One temporary directory per test process for the traces, removed when the process ends."""
    out = Path(tempfile.mkdtemp(prefix="chalktrace-test-traces-"))
    atexit.register(shutil.rmtree, out, ignore_errors=True)
    return out


@lru_cache(maxsize=None)
def trace_path(name: str) -> Path:
    """Path of the trace of ``tests/lectures/NAME.py``, made by ``python -m tracer run``."""
    out = traces_dir() / f"{name}.json"
    subprocess.run(
        [sys.executable, "-m", "tracer", "run", f"tests/lectures/{name}.py", "-o", str(out), "-q"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if not out.is_file():
        raise RuntimeError(f"tracing tests/lectures/{name}.py produced no trace")
    return out


def traced(name: str) -> dict:
    """The trace as readers get it (load_trace: frames expanded into each step's stack), not validated."""
    from tracer.contract.trace_reading import load_trace

    return load_trace(trace_path(name), validate=False)  # type: ignore[return-value]


def trace_all(*names: str) -> None:
    """Trace several lectures in parallel (each tracer run is mostly torch import time)."""
    todo = [n for n in names if not (traces_dir() / f"{n}.json").is_file()]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "tracer", "run", f"tests/lectures/{n}.py", "-o", str(traces_dir() / f"{n}.json"), "-q"],
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for n in todo
    ]
    for proc in procs:
        proc.wait(timeout=120)


def as_gpu_run(trace: dict, source_path: str) -> dict:
    """The same trace as if recorded on a GPU from an earlier revision (one line of the source different)."""
    trace = json.loads(json.dumps(trace))
    trace["environment"].update(
        device="cuda", gpu_name="NVIDIA H100 80GB HBM3", gpu_total_memory_nbytes=85_017_493_504, memory_source="cuda_allocated"
    )
    lines = trace["files"][source_path].splitlines(keepends=True)
    lines[0] = "# an earlier revision\n"
    trace["files"][source_path] = "".join(lines)
    return trace
