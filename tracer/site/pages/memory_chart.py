"""Geometry of the memory timeline: memory in use at each step, as points for a small SVG chart.

``memory_chart(trace)`` downsamples the per-step ``memory.nbytes`` to at most a few hundred points
per line (keeping each bucket's largest value, so peaks survive), scales them into a fixed plot box,
and marks where each ``##`` section starts. The template ``site/templates/memory_chart.html.j2``
draws it; every clickable point (at most ``MAX_LINKS`` in all) links to its step (``#step=N``).

A distributed trace gets one line per rank: the rank's timeline as step mode follows it
(``rank_model.rank_timelines``: the launching process's steps, with the rank's own spliced in where
the launch happened), laid on a common x axis where the ranks stay in step
(``rank_model.aligned_steps``: every rank's n-th collective at the same x). Ranks whose memory is
the same at every step share one line ("ranks 0–3"), so a replicated tensor reads as one line and a
sharded one as several. Points link to that rank's step in step mode (the timelines are laid end to
end there) and their labels count steps within the rank, as step mode's counter does.
This module must not produce markup.
"""

from __future__ import annotations

from typing import Any

from tracer.site.model.page_model import section_headings
from tracer.site.model.rank_model import aligned_steps, rank_timelines
from tracer.contract.trace_access import memory_nbytes
from tracer.contract.trace_format import Environment, Trace
from tracer.site.cards.units import human_bytes
from tracer.site.cards.text_alternatives import memory_text
from tracer.site.cards.interface_strings import Catalogue, load

WIDTH = 720
HEIGHT = 140
PAD_LEFT = 64  # room for the y-axis labels
PAD_TOP = 18  # room for section labels
PAD_BOTTOM = 18
MAX_POINTS = 300  # drawn points per line
MAX_LINKS = 120  # clickable points (6 px circles), all lines together: about one per 6 px of the plot
LABEL_CHAR_PX = 5.2  # average width of a 9px section label character
COLOURS = 8  # distinct line colours (site.css: .lt-memory-c0 … c7), reused beyond


def memory_label(environment: Environment, words: Catalogue | None = None) -> str:
    """What the numbers measure, from the trace's environment."""
    w = words or load()
    if environment.get("memory_source") == "cuda_allocated":
        return w.text("memory.label_gpu")
    return w.text("memory.label_cpu")


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


def _corners(points: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The points a polyline needs: a point inside a flat run (the same height as both neighbours)
    draws nothing of its own."""
    return [
        p
        for k, p in enumerate(points)
        if k == 0 or k == len(points) - 1 or not (points[k - 1]["y"] == p["y"] == points[k + 1]["y"])
    ]


def table_rows(links: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The chart's table: its linked points, consecutive ones of a line with the same memory as one
    row (``first``: its first point, linked; ``last_counter``: the step number it ends at)."""
    rows: list[dict[str, Any]] = []
    for p in links:
        if rows and rows[-1]["first"]["line"] == p["line"] and rows[-1]["first"]["nbytes_text"] == p["nbytes_text"]:
            rows[-1]["last_counter"] = p["counter"]
        else:
            rows.append({"first": p, "last_counter": None})
    return rows


def ranks_name(ranks: list[int]) -> str:
    """ "rank 2", "ranks 0–3", "ranks 0, 2"."""
    if len(ranks) == 1:
        return f"rank {ranks[0]}"
    if ranks == list(range(ranks[0], ranks[-1] + 1)):
        return f"ranks {ranks[0]}–{ranks[-1]}"
    return "ranks " + ", ".join(str(r) for r in ranks)


def _series(trace: Trace) -> tuple[list[dict[str, Any]], list[tuple[int, int, str]]]:
    """The lines to draw, each {ranks, values, xs, steps (step mode's index per step), counter (the
    step number its labels show)}, and the sections as (x, step, title)."""
    values = memory_nbytes(trace)
    sections = [(k, k, title) for k, title in section_headings(trace)]
    if not trace.get("ranks"):
        steps = list(range(len(values)))
        return [{"ranks": [], "values": values, "xs": steps, "steps": steps, "counter": steps}], sections
    timelines = rank_timelines(trace)
    if not timelines:
        steps = list(range(len(values)))
        return [{"ranks": [], "values": values, "xs": steps, "steps": steps, "counter": steps}], sections
    lines: dict[tuple[tuple[int, ...], tuple[int, ...]], dict[str, Any]] = {}
    offset = 0
    for timeline, xs in zip(timelines, aligned_steps(trace, timelines)):
        rank_values = [step["memory"]["nbytes"] for step in timeline.steps]
        key = (tuple(rank_values), tuple(xs))
        if key in lines:  # the same memory at every step as a rank already drawn: one line for both
            lines[key]["ranks"].append(timeline.rank)
        else:
            local = list(range(len(rank_values)))
            lines[key] = {
                "ranks": [timeline.rank],
                "values": rank_values,
                "xs": xs,
                "steps": [offset + k for k in local],
                "counter": local,
            }
        offset += len(timeline.steps)
    first = timelines[0]
    first_xs = next(iter(lines.values()))["xs"]  # rank 0's line comes first
    sections = [(first_xs[k], k, title) for k, title in section_headings({**trace, "steps": first.steps})]
    return list(lines.values()), sections


def memory_chart(trace: Trace, max_points: int = MAX_POINTS, words: Catalogue | None = None) -> dict[str, Any] | None:
    """Plain data for the timeline, or None when no step holds any memory."""
    w = words or load()
    series, section_marks = _series(trace)
    peak = max((max(s["values"], default=0) for s in series), default=0)
    if peak == 0:
        return None  # nothing to chart: the lecture held no recorded tensor memory
    plot_width = WIDTH - PAD_LEFT - 8
    plot_height = HEIGHT - PAD_TOP - PAD_BOTTOM
    last = max(max((s["xs"][-1] for s in series if s["xs"]), default=0), 1)

    def x_of(x: float) -> float:
        return round(PAD_LEFT + plot_width * x / last, 1)

    def y_of(nbytes: int) -> float:
        return round(PAD_TOP + plot_height * (1 - nbytes / peak), 1)

    links_each = max(1, MAX_LINKS // len(series))
    lines = []
    for number, line in enumerate(series):
        name = ranks_name(line["ranks"]) if line["ranks"] else ""
        values = line["values"]

        def point(k: int, name: str = name, line: dict[str, Any] = line) -> dict[str, Any]:
            nbytes, counter = human_bytes(line["values"][k]), line["counter"][k]
            return {
                "step": line["steps"][k],
                "x": x_of(line["xs"][k]),
                "y": y_of(line["values"][k]),
                "label": w.text("memory.point_ranks", ranks=name, step=counter, nbytes=nbytes)
                if name
                else w.text("memory.point", step=counter, nbytes=nbytes),
                "line": number,
                "counter": line["counter"][k],
                "ranks_name": name,
                "nbytes_text": human_bytes(line["values"][k]),
            }

        points = [point(k) for k in downsample(values, max_points)]
        lines.append(
            {
                "name": name,
                "ranks": line["ranks"],
                "colour": number % COLOURS,
                "peak": human_bytes(max(values, default=0)),
                "points": points,
                "links": [point(k) for k in downsample(values, min(max_points, links_each))],
                "polyline": " ".join(f"{p['x']},{p['y']}" for p in _corners(points)),
            }
        )
    sections: list[dict[str, Any]] = [{"step": step, "x": x_of(x), "title": title} for x, step, title in section_marks]
    for section, following in zip(sections, sections[1:] + [None]):
        room = (following["x"] if following else WIDTH) - section["x"]
        section["label"] = fit_label(section["title"], room)
    ranked = bool(series[0]["ranks"])
    top = max(series, key=lambda s: max(s["values"], default=0))
    top_k = max(range(len(top["values"])), key=top["values"].__getitem__)
    label = (
        w.text("memory.label_per_rank", label=memory_label(trace["environment"], w))
        if ranked
        else memory_label(trace["environment"], w)
    )
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "label": label,
        "description": memory_text(
            label,
            human_bytes(peak),
            top["counter"][top_k],
            human_bytes(series[0]["values"][0]),
            human_bytes(series[0]["values"][-1]),
            max(len(s["values"]) for s in series),
            len(series),
            w,
        ),
        "lines": lines,
        "ranked": ranked,
        "points": [p for line in lines for p in line["points"]],
        "links": [p for line in lines for p in line["links"]],
        "table": table_rows([p for line in lines for p in line["links"]]),
        "sections": sections,
        "peak": human_bytes(peak),
        "peak_y": PAD_TOP,
        "zero_y": PAD_TOP + plot_height,
        "left": PAD_LEFT,
        "right": WIDTH - 8,
        "steps": max(len(s["values"]) for s in series),
    }
