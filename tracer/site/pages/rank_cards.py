"""HTML for what the ranks did on one line: values side by side, collective cards, rank errors.

``RankCards(trace, env)`` renders a ``rank_model.RankLine`` for read mode: the scalars (and short
inline sequences) a line inspected become one compact table (a row per name, a column per rank);
other values (tensors above all) become per-rank cards side by side, each made by the same
``HtmlRenderer`` as any card, over that rank's own steps; each collective gets a card with every
rank's bytes sent and received, its wall time split into waiting for the last rank and transfer,
its bus bandwidth, and the call's algbw/busbw against the link's peak where known; what ranks printed shows per rank, stderr
apart from stdout. a launch whose ranks disagreed on a collective gets a card with every rank's last collective
and the line it stood on, side by side (``desync``). ``collective_card`` also serves step mode (one
rank's view of one call). Plain HTML and CSS: nothing here needs JavaScript. This module must not
decide what a line holds (``rank_model``) or read files.
"""

from __future__ import annotations

from typing import Any

import jinja2
from markupsafe import Markup

from tracer.site.cards.render import HtmlRenderer

from tracer.site.cards.templates import template_macros
from tracer.site.cards.value_families import value_view
from tracer.site.model.rank_model import CollectiveRow, RankLine, launches
from tracer.site.cards.units import human_bytes, human_bytes_per_s, human_seconds, shape_text
from tracer.contract.trace_format import Trace, Value


# How a card names a torch.distributed backend (torch's own names are lower case).
BACKEND_NAMES = {"nccl": "NCCL", "gloo": "gloo", "mpi": "MPI", "ucc": "UCC"}


def _shape(shape: list[int] | None) -> str:
    return shape_text(shape) if shape is not None else ""


def _percent(share: float | None) -> str | None:
    if share is None:
        return None
    return f"{100 * share:.1f}%" if share < 0.1 else f"{100 * share:.0f}%"


def collective_view(row: CollectiveRow, world_size: int | None = None, link: dict[str, Any] | None = None) -> dict[str, Any]:
    """A collective card's data: every rank's bytes, wait and transfer time, algbw/busbw; for the call,
    the slowest rank's busbw (the call is done when its slowest rank is) and its share of the link's peak."""
    ranks = []
    slowest = max((r["seconds"] for r in row.per_rank.values()), default=0.0)
    for rank, record in sorted(row.per_rank.items()):
        wait, transfer = record.get("wait_seconds"), record.get("transfer_seconds")
        ranks.append(
            {
                "rank": rank,
                "sent": human_bytes(record["sent_nbytes"]),
                "received": human_bytes(record["received_nbytes"]),
                "seconds": human_seconds(record["seconds"]),
                "wait": human_seconds(wait) if wait is not None else "",
                "transfer": human_seconds(transfer) if transfer is not None else "",
                "busbw": human_bytes_per_s(record["busbw"]) if "busbw" in record else "",
                "wait_percent": round(100 * wait / slowest) if slowest and wait is not None else 0,
                "transfer_percent": round(100 * (transfer if transfer is not None else record["seconds"]) / slowest)
                if slowest
                else 0,
                "root": record.get("root", record.get("peer")),
            }
        )
    sent = sum(r["sent_nbytes"] for r in row.per_rank.values())
    first = next(iter(row.per_rank.values()), {})
    measured = [r for r in row.per_rank.values() if "busbw" in r]
    bandwidth = None
    if measured:
        worst = min(measured, key=lambda r: r["busbw"])
        share = worst.get("peak_share")
        bandwidth = {
            "algbw": human_bytes_per_s(worst["algbw"]),
            "busbw": human_bytes_per_s(worst["busbw"]),
            "share": _percent(share),
            "link": (link or {}).get("label"),
            "peak": human_bytes_per_s(worst["peak"]) if worst.get("peak") else None,
        }
    return {
        "op": row.op,
        "seq": row.seq,
        "dtype": row.dtype,
        "shape": _shape(row.shape),
        "nbytes": human_bytes(row.nbytes),
        "algorithm": row.algorithm,
        "backend": row.backend or "",
        "backend_name": BACKEND_NAMES.get(row.backend or "", row.backend or ""),
        "group_size": first.get("group_size", world_size),
        "reduce_op": first.get("reduce_op"),
        "root": first.get("root"),
        "total_sent": human_bytes(sent),
        "ranks": ranks,
        "bandwidth": bandwidth,
        "split": any("wait_seconds" in r for r in row.per_rank.values()),
        "missing": sorted(set(range(world_size or 0)) - set(row.per_rank)) if world_size else [],
    }


def _entry_text(entry: dict[str, Any] | None) -> str:
    if entry is None:
        return "no collective"
    sized = f" {entry['dtype']} {_shape(entry.get('shape'))}" if entry.get("dtype") else ""
    return f"{entry['op']} #{entry['n']}{sized}"


def _ended_text(ended: dict[str, Any] | None) -> str:
    if ended is None:
        return "still running (stopped by the launcher)"
    if ended.get("how") == "raised":
        return f"raised {ended.get('error', '')}" + (f" at {ended['path']}:{ended['line']}" if ended.get("path") else "")
    return "returned"


def desync_view(trace: Trace) -> list[dict[str, Any]]:
    """Per launch whose ranks disagreed: the sentence, and per rank its state, its last collective
    (the one it waits in, or its last before it ended), and the line it stood on, with that line's code."""
    files = trace.get("files") or {}
    out = []
    for number, launch in enumerate(launches(trace)):
        desync = launch.get("desync")
        if not desync:
            continue
        ranks = []
        for record in desync["ranks"]:
            last = record.get("last")
            where = record.get("where") or (f"{last['path']}:{last['line']}" if last else None)
            code = ""
            if where and ":" in where:
                path, _, line = where.rpartition(":")
                lines = files.get(path, "").splitlines()
                if line.isdigit() and 0 < int(line) <= len(lines):
                    code = lines[int(line) - 1].strip()
            ranks.append(
                {
                    "rank": record["rank"],
                    "state": record["state"],
                    "last": _entry_text(last),
                    "called_at": f"{last['path']}:{last['line']}" if last else "",
                    "ended": _ended_text(record.get("ended")),
                    "where": where or "?",
                    "code": code,
                }
            )
        out.append(
            {"launch": number, "message": desync["message"], "n": desync["n"], "ranks": ranks, "world_size": launch["world_size"]}
        )
    return out


class RankCards:
    def __init__(self, trace: Trace, env: jinja2.Environment, heatmaps: dict[str, bytes] | None = None) -> None:
        self.trace = trace
        self._heatmaps = heatmaps  # the lecture renderer's (HtmlRenderer.heatmaps), shared by every rank's
        self.macros = template_macros(env, "ranks.html.j2")
        self._renderers: dict[tuple[int, int], HtmlRenderer] = {}
        self._env = env
        self._streams = {
            (number, stream["rank"]): stream for number, launch in enumerate(launches(trace)) for stream in launch["streams"]
        }
        self._world = {number: launch["world_size"] for number, launch in enumerate(launches(trace))}
        self._links = {number: launch.get("link") for number, launch in enumerate(launches(trace))}

    def renderer(self, launch: int, rank: int) -> HtmlRenderer:
        """A card renderer over one rank's own steps (its storage ids, its lines)."""
        key = (launch, rank)
        if key not in self._renderers:
            stream = self._streams[key]
            self._renderers[key] = HtmlRenderer({**self.trace, "steps": stream["steps"]}, self._env, self._heatmaps)
        return self._renderers[key]

    def line(self, line: RankLine) -> list[Markup]:
        """The cards of one line: a scalar table, per-rank value cards, collectives, output, errors."""
        out: list[Markup] = []
        scalars: list[tuple[str, dict[int, tuple[int, Value]], dict[int, dict[str, Any]]]] = []
        others: list[tuple[str, dict[int, tuple[int, Value]], dict[int, dict[str, Any]]]] = []
        for name, by_rank in line.env.items():
            views = {rank: value_view(value) for rank, (_step, value) in by_rank.items()}
            simple = all(v["kind"] == "scalar" or (v["kind"] == "sequence" and v["inline"]) for v in views.values())
            (scalars if simple else others).append((name, by_rank, views))
        ranks = sorted({rank for _name, by_rank, _views in scalars for rank in by_rank})
        if scalars:
            rows = [{"name": name, "cells": [views.get(rank) for rank in ranks]} for name, _by_rank, views in scalars]
            out.append(Markup(self.macros.scalar_table(ranks, rows)))
        for name, by_rank, _views in others:
            cards = [
                {"rank": rank, "card": self.renderer(line.launch, rank).value(name, value, step_index=step)}
                for rank, (step, value) in by_rank.items()
            ]
            out.append(Markup(self.macros.rank_cards(name, cards)))
        for key in sorted(line.collectives):
            out.append(self.collective(line.collectives[key]))
        if line.stdout:
            out.append(Markup(self.macros.rank_stdout(sorted(line.stdout.items()))))
        if line.stderr:  # apart from stdout, as the launcher's is
            out.append(Markup(self.macros.rank_stderr(sorted(line.stderr.items()))))
        for rank, _step, error in line.errors:
            out.append(Markup(self.macros.rank_error(rank, self.renderer(line.launch, rank).error(error))))
        return out

    def desync(self) -> list[Markup]:
        """The desynchronised launches' cards: every rank's last collective side by side."""
        return [Markup(self.macros.desync_card(view)) for view in desync_view(self.trace)]

    def collective(self, row: CollectiveRow, rank: int | None = None) -> Markup:
        view = collective_view(row, self._world.get(row.launch), self._links.get(row.launch))
        return Markup(self.macros.collective_card(view, rank))
