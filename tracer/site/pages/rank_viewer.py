"""Step-mode data for a distributed trace: one timeline per rank, a key to switch, all ranks at a glance.

``lay_out_ranks(trace, renderer)`` lays the ranks' timelines (``rank_model.rank_timelines``) end to
end as one step list, a trace without ranks that ``viewer_data`` builds as it builds any lecture's,
so every step, card and key works as in any lecture. ``add_rank_data`` then cuts navigation at the
rank boundaries (stepping never leaves the rank being followed), adds a collective card to each step
that called one, and a ``ranks`` entry that ``assets/ranks.js`` reads:
``world_size``, ``segments`` ([rank, first step, last step + 1] per rank), ``switch`` (for each
step, the matching step in every rank), ``x`` (each step's place on the timeline, where every
rank's n-th collective sits at x = n), ``width`` (the largest x) and ``collectives`` (per
collective: x, op, each rank's wall time in it and, where known, the part it waited for the last rank). Plain data; no markup of its own beyond the
cards ``rank_cards`` makes. It must not run lectures or touch files.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tracer.site.cards.render import HtmlRenderer
from tracer.site.pages.rank_cards import RankCards
from tracer.site.model.rank_model import Timeline, all_collectives, rank_timelines, switch_targets, timeline_x
from tracer.contract.trace_format import Step, Trace

NAV_KEYS = ("next", "prev", "over", "back_over", "out")


@dataclass
class RankSteps:
    """The ranks' timelines laid end to end: ``trace`` holds them as its steps (and no ``ranks``),
    ``renderer`` renders that trace, ``offsets`` says where each timeline starts."""

    trace: Trace
    renderer: HtmlRenderer
    timelines: list[Timeline]
    offsets: list[int]


def lay_out_ranks(trace: Trace, renderer: HtmlRenderer) -> RankSteps:
    timelines = rank_timelines(trace)
    offsets: list[int] = []
    steps: list[Step] = []
    for timeline in timelines:
        offsets.append(len(steps))
        steps.extend(timeline.steps)
    joined: Trace = {**trace, "steps": steps}
    joined.pop("ranks", None)
    return RankSteps(joined, HtmlRenderer(joined, renderer.env, renderer.heatmaps), timelines, offsets)


def add_rank_data(data: dict[str, Any], trace: Trace, laid_out: RankSteps, renderer: HtmlRenderer) -> None:
    """Turn the data built from ``laid_out.trace`` into step mode's data of the distributed ``trace``."""
    timelines, offsets = laid_out.timelines, laid_out.offsets

    segments = [[t.rank, offsets[k], offsets[k] + len(t.steps)] for k, t in enumerate(timelines)]
    nav = data["steps"]
    for _rank, start, end in segments:
        for index in range(start, end):
            for key in NAV_KEYS:
                if not start <= nav[key][index] < end:
                    nav[key][index] = -1
            if not start <= nav["parent"][index] < end:
                nav["parent"][index] = -1

    cards = RankCards(trace, renderer.env, renderer.heatmaps)
    rows = {(row.launch, row.seq): row for row in all_collectives(trace)}
    xs: list[float] = []
    for k, timeline in enumerate(timelines):
        xs.extend(timeline_x(timeline))
        for local, step in enumerate(timeline.steps):
            launch = timeline.origin[local][0]
            calls = [rows.get((launch, call["seq"])) for call in step.get("collectives", ())]
            html = "".join(str(cards.collective(row, timeline.rank)) for row in calls if row is not None)
            if html:
                key = str(offsets[k] + local)
                data["compute"][key] = data["compute"].get(key, "") + html

    columns = []
    for number, row in enumerate(sorted(rows.values(), key=lambda r: (r.launch, r.seq)), start=1):
        column: dict[str, Any] = {
            "x": number,
            "op": row.op,
            "seconds": {str(rank): record["seconds"] for rank, record in row.per_rank.items()},
        }
        waits = {str(rank): record["wait_seconds"] for rank, record in row.per_rank.items() if "wait_seconds" in record}
        if waits:
            column["wait"] = waits
        columns.append(column)
    data["ranks"] = {
        "world_size": len(timelines),
        "segments": segments,
        "switch": switch_targets(timelines, offsets),
        "x": xs,
        "width": max(xs, default=0.0) + 1,
        "collectives": columns,
    }
