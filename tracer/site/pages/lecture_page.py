"""What a lecture page says around its document: where it was traced, its steps, status, errors,
desynchronised ranks and memory timeline, as the values ``lecture.html.j2`` fills in.

The plugin adds the document itself, the warning boxes and the kept GPU run's note. This module must
not read files or render the document (``read_page`` does).
"""

from __future__ import annotations

from typing import Any

import jinja2

from tracer.contract.trace_format import Environment, Trace
from tracer.site.cards.render import HtmlRenderer
from tracer.site.cards.templates import strings_of
from tracer.site.cards.units import human_bytes
from tracer.site.model.rank_model import step_counts
from tracer.site.pages.memory_chart import memory_chart
from tracer.site.pages.rank_cards import RankCards


def environment_text(environment: Environment) -> str:
    """One line saying where a trace was recorded: device/GPU, Python, torch."""
    if environment.get("device") == "cuda":
        device = "GPU " + (environment.get("gpu_name") or "(unknown)")
        if total := environment.get("gpu_total_memory_nbytes"):
            device += f" ({human_bytes(total)})"
    else:
        device = "CPU"
    parts = [device, f"Python {environment.get('python', '?')}"]
    if environment.get("torch"):
        parts.append(f"torch {environment['torch']}")
    return " · ".join(parts)


def ran_on_text(trace: Trace) -> str:
    """Where a runner traced it, beside the GPU line: ``traced on gpu-node-04, Slurm job 812345`` (empty when traced here)."""
    ran_on = trace.get("ran_on")
    if not ran_on:
        return ""
    job = f", Slurm job {ran_on['slurm_job_id']}" if ran_on.get("slurm_job_id") else ""
    return f"traced on {ran_on['host']}{job}"


def lecture_page_parts(trace: Trace, renderer: HtmlRenderer, env: jinja2.Environment, source_url: str) -> dict[str, Any]:
    """The values of ``lecture.html.j2`` that come from the trace alone."""
    return {
        "source_path": trace["lecture"]["path"],
        "source_url": source_url,
        "environment_text": environment_text(trace["environment"]),
        "ran_on_text": ran_on_text(trace),
        "runner": trace["ran_on"]["runner"] if "ran_on" in trace else "",
        # the steps a reader steps through, which the page words in the course's language (page_parts' steps_count)
        "step_count": len(trace["steps"]),
        "rank_steps": step_counts(trace),
        "status_error": trace["status"] != "ok",
        "status": trace["status"],
        "trace_error": renderer.error(trace["error"]) if trace.get("error") else "",
        "desync_cards": RankCards(trace, env).desync() if trace.get("ranks") else [],
        "memory": memory_chart(trace, words=strings_of(env)),
    }
