"""What a lecture's page and its kept GPU run's page say about each other.

A lecture traced on CUDA and later re-traced on a machine without a GPU keeps its CUDA trace as a
GPU run (``site/traces/gpu/NAME.json``, see ``tracer.commands.gpu_runs``); the site publishes it as a second
page, so the GPU memory figures and timings stay readable while the lecture moves on. This module
decides whether a kept run can be published beside a lecture's trace and computes the plain data
the two pages' notes show (the GPU's name, the links, how many source lines differ). It reads
traces only: it must not touch files, and the markup is the templates'.
"""

from __future__ import annotations

import difflib
from typing import Any

from tracer.contract.trace_access import source_text
from tracer.contract.trace_format import Trace


def publishable(current: Trace, gpu_run: Trace) -> str | None:
    """None when ``gpu_run`` can be published beside ``current``, else why not."""
    if (gpu_run.get("environment") or {}).get("device") != "cuda":
        return "not a CUDA trace"
    if (current.get("environment") or {}).get("device") == "cuda":
        return "superseded: the lecture's own trace was made on CUDA"
    if current["lecture"]["path"] != gpu_run["lecture"]["path"]:
        return f"traced from {gpu_run['lecture']['path']}, not {current['lecture']['path']}"
    return None


def changed_lines(before: str, after: str) -> int:
    """Lines that differ between two versions of a file: the larger side of each changed block."""
    matcher = difflib.SequenceMatcher(None, before.splitlines(), after.splitlines(), autojunk=False)
    return sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal")


def gpu_run_note(current: Trace, gpu_run: Trace, *, url: str, on_gpu_run_page: bool) -> dict[str, Any]:
    """The note on either page: ``url`` leads to the other page."""
    path = current["lecture"]["path"]
    lines = changed_lines(source_text(gpu_run, path), source_text(current, path))
    return {
        "on_gpu_run_page": on_gpu_run_page,
        "gpu_name": (gpu_run.get("environment") or {}).get("gpu_name") or "a GPU",
        "url": url,
        "source_path": path,
        "changed_lines": lines,
        "changed_lines_text": f"{lines:,}",  # the template words it in the course's language ("1,200 lines of PATH differ")
    }


def gpu_run_title(title: str, gpu_run: Trace) -> str:
    gpu = (gpu_run.get("environment") or {}).get("gpu_name") or "GPU"
    return f"{title} (run on {gpu})"
