"""Value drift: a fresh run's values against the committed trace's, its sources unchanged.

A difference beyond the fields that vary from run to run (``run_dependent.RUN_DEPENDENT``), and
beyond values computed from clock readings or marked ``# @varies`` (``clock_values``), is drift,
reported by ``check``. This module must not trace lectures; it compares two trace files.
"""

from __future__ import annotations

import os
from pathlib import Path

from tracer.contract.paths import shown_path
from tracer.commands.clock_values import course_clock_values
from tracer.contract.trace_format import TraceError
from tracer.contract.trace_reading import load_trace


MAX_DRIFT_LINES = 20  # per lecture; `chalktrace diff` shows them all


def value_drift(committed: Path, fresh: Path, project_root: Path, lecture: Path) -> tuple[list[str], list[str]]:
    """(drift lines, notes): the values of a fresh run of ``lecture`` (its sources unchanged) against the
    committed trace's, one line per difference that is not run-dependent (``run_dependent.RUN_DEPENDENT``).

    A trace made on another device (a CUDA trace on a machine without a GPU) is not value-checked:
    its memory figures, kernels and dtypes legitimately differ; the note says so."""
    from tracer.commands import trace_diff

    shown = shown_path(committed, project_root)
    try:
        old, new = load_trace(committed, validate=False), load_trace(fresh, validate=False)
    except TraceError as exc:
        return [str(exc).replace(str(project_root) + os.sep, "")], []
    device_old = (old.get("environment") or {}).get("device")
    device_new = (new.get("environment") or {}).get("device")
    if device_old != device_new:
        gpu = (old.get("environment") or {}).get("gpu_name")
        made = f"a CUDA trace ({gpu or 'a GPU'})" if device_old == "cuda" else f"a {device_old} trace"
        here = "this machine has no GPU" if device_new != "cuda" else f"this machine ran it on {device_new}"
        return [], [f"{shown}: values not checked: {made}, and {here}"]
    clocks = course_clock_values(list(new.get("sources") or {}), project_root)
    changes = [
        c
        for c in trace_diff.drift(trace_diff.diff_traces(old, new))
        if not (c.kind == "value" and c.path and c.line and clocks.varies(c.path, c.line, c.name))
    ]
    if not changes:
        return [], []
    lines = [trace_diff.format_change(c, "committed", "now") for c in changes[:MAX_DRIFT_LINES]]
    if len(changes) > MAX_DRIFT_LINES:
        lines.append(f"{shown}: … and {len(changes) - MAX_DRIFT_LINES} more difference(s)")
    lecture_rel = shown_path(lecture, project_root)
    lines.append(
        f"{shown}: {len(changes)} value(s) drifted from the committed trace, its sources unchanged "
        f"(`chalktrace run {lecture_rel} -o NEW.json && chalktrace diff {shown} NEW.json` shows them all); "
        f"re-trace it with `chalktrace run {lecture_rel}` and commit, or find what changed (libraries?)"
    )
    return lines, []
