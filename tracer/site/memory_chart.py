"""Geometry of the memory timeline: memory in use at each step, as points for a small SVG chart.

``memory_chart(trace)`` downsamples the per-step ``memory.nbytes`` to at most a few hundred points
(keeping each bucket's largest value, so peaks survive), scales them into a fixed plot box, and
marks where each ``##`` section starts. The template ``site/templates/memory_chart.html.j2`` draws
it; every point links to its step (``#step=N``). This module must not produce markup.
"""

from __future__ import annotations

from typing import Any

from tracer.site.page_model import section_headings
from tracer.site.rank_model import trace_step_to_viewer
from tracer.trace_format import Environment, Trace, memory_nbytes
from tracer.site.units import human_bytes

WIDTH = 720
HEIGHT = 140
PAD_LEFT = 64  # room for the y-axis labels
PAD_TOP = 18  # room for section labels
PAD_BOTTOM = 18
MAX_POINTS = 300
MAX_LINKS = 120  # clickable points (6 px circles): about one per 6 px of the plot, one element group each
LABEL_CHAR_PX = 5.2  # average width of a 9px section label character


def memory_label(environment: Environment) -> str:
    """What the numbers measure, from the trace's environment."""
    if environment.get("memory_source") == "cuda_allocated":
        return "GPU memory allocated"
    return "CPU memory of recorded tensors"


def fit_label(title: str, room_px: float, char_px: float = LABEL_CHAR_PX) -> str:
    """``title`` cut to fit ``room_px`` (with "…"), or "" when not even a few letters fit."""
    chars = int(room_px // char_px) - 1
    if len(title) <= chars:
        return title
    return title[: chars - 1].rstrip() + "…" if chars >= 4 else ""


def downsample(values: list[int], max_points: int = MAX_POINTS) -> list[int]:
    """Step indices to plot: all of them when few, else the largest value's step in each bucket."""
    n = len(values)
    if n <= max_points:
        return list(range(n))
    picked = []
    for bucket in range(max_points):
        lo, hi = bucket * n // max_points, (bucket + 1) * n // max_points
        picked.append(max(range(lo, hi), key=lambda k: values[k]))
    return picked


def memory_chart(trace: Trace, max_points: int = MAX_POINTS) -> dict[str, Any] | None:
    """Plain data for the timeline, or None when no step holds any memory."""
    values = memory_nbytes(trace)
    if not values or max(values) == 0:
        return None  # nothing to chart: the lecture held no recorded tensor memory
    peak = max(values)
    plot_width = WIDTH - PAD_LEFT - 8
    plot_height = HEIGHT - PAD_TOP - PAD_BOTTOM
    last = max(len(values) - 1, 1)

    def x_of(step: int) -> float:
        return round(PAD_LEFT + plot_width * step / last, 1)

    def y_of(nbytes: int) -> float:
        return round(PAD_TOP + plot_height * (1 - (nbytes / peak if peak else 0)), 1)

    # links open the viewer's step: a distributed trace's step mode numbers steps its own way
    viewer_step = (trace_step_to_viewer(trace) if trace.get("ranks") else None) or {}

    def point(k: int) -> dict[str, Any]:
        step = viewer_step.get(k, k)
        return {"step": step, "x": x_of(k), "y": y_of(values[k]), "label": f"step {step}: {human_bytes(values[k])}"}

    points = [point(k) for k in downsample(values, max_points)]
    sections: list[dict[str, Any]] = [{"step": viewer_step.get(k, k), "x": x_of(k), "title": title}
                                      for k, title in section_headings(trace)]
    for section, following in zip(sections, sections[1:] + [None]):
        room = (following["x"] if following else WIDTH) - section["x"]
        section["label"] = fit_label(section["title"], room)
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "label": memory_label(trace["environment"]),
        "points": points,
        "links": [point(k) for k in downsample(values, min(max_points, MAX_LINKS))],
        "polyline": " ".join(f"{p['x']},{p['y']}" for p in points),
        "sections": sections,
        "peak": human_bytes(peak),
        "peak_y": PAD_TOP,
        "zero_y": PAD_TOP + plot_height,
        "left": PAD_LEFT,
        "right": WIDTH - 8,
        "steps": len(values),
    }
