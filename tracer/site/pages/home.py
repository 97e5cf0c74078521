"""The home page's list of lectures: each lecture's entry, with its kept GPU run beside it.

``listed_lecture`` is what every entry has (a broken lecture's too); ``lecture_listing`` adds what a
lecture that built shows (its source, steps, device, sections, status). The plugin renders them with
``home.html.j2``. This module must not read files or decide which lectures are listed.
"""

from __future__ import annotations

from typing import Any

from tracer.contract import paths
from tracer.contract.trace_format import Environment, Trace
from tracer.site.model.page_model import section_headings
from tracer.site.model.rank_model import step_counts


def device_text(environment: Environment) -> str:
    if environment.get("device") == "cuda":
        return environment.get("gpu_name") or "GPU"
    return "CPU"


def listed_lecture(title: str, name: str, root: str, *, broken: bool) -> dict[str, Any]:
    """A lecture's entry in the home page's list, as every lecture has it."""
    return {"title": title, "url": root + paths.lecture_url(name), "broken": broken, "sections": [], "gpu_run": None}


def lecture_listing(trace: Trace, name: str, root: str, gpu_run: tuple[str, Trace] | None) -> dict[str, Any]:
    """What the entry of a lecture that built adds: its source, steps, device, sections and status,
    and its kept GPU run (page name and trace) when it has one."""
    entry: dict[str, Any] = {
        "source_url": root + paths.source_url(name),
        "source_path": trace["lecture"]["path"],
        "step_count": len(trace["steps"]),  # worded by the template (page_parts' steps_count)
        "rank_steps": step_counts(trace),
        "device": device_text(trace["environment"]),
        "sections": [title for _step, title in section_headings(trace)],
        "status_error": trace["status"] != "ok",
        "status": trace["status"],
    }
    if gpu_run is not None:
        gpu_name, gpu_trace = gpu_run
        entry["gpu_run"] = {"url": root + paths.lecture_url(gpu_name), "device": device_text(gpu_trace["environment"])}
    return entry
