"""Desynchronised ranks: compare every rank's sequence of collectives and name where they disagree.

Each rank announces every collective before it enters the backend's call (a *sequence entry*: its
number ``n`` among the rank's collectives over the whole group, op, dtype, shape, bytes, root and
call site) and, when its function ends, how it ended (returned, or raised what where). The ranks
*disagree* on collective #n when one rank waits in #n that another will never call: the other
ended without calling it, or its #n is a different op, size or root. ``diagnose`` finds the first
such #n from what the ranks announced so far (``RankState`` per rank) and phrases it, e.g.
``desync.py:15: rank 0 of 2 waits in all_reduce #2; rank 1 never called it (its last collective:
all_reduce #1 at desync.py:13, then it returned)``. A rank that has not yet reached #n and is still
running proves nothing: no diagnosis until it ends or announces a different #n. Point-to-point
calls and subgroup collectives carry ``n`` None and are not compared. When the rank that never
called #n raised, its exception is the cause and the sentence leads with it, in the form of any
failed rank (``path:line: rank R of N: Type: message``).

Pure functions over plain records: this module must not read files, touch processes or import torch
(the launcher, ``ranks``, gathers the states; ``shards`` does for torchrun shard directories).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

# ops whose payload must have the same dtype and shape on every rank (others: only the op is compared)
SIZED = (
    "all_reduce",
    "broadcast",
    "reduce",
    "all_gather",
    "all_gather_into_tensor",
    "all_gather_single",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "reduce_scatter_single",
    "gather",
    "scatter",
)
ROOTED = ("broadcast", "reduce", "gather", "scatter")


@dataclass
class RankState:
    """What the launcher knows of one rank: its announced entries, its end, where it stands."""

    rank: int
    entries: list[dict[str, Any]] = field(default_factory=list)
    ended: dict[str, Any] | None = None  # the rank's own word: {"how": "returned"|"raised", ...}
    gone: str | None = None  # the process is gone without a word: "exited with code 1", "was killed by signal 9"
    where: str | None = None  # "path:line" from its heartbeat

    @property
    def finished(self) -> bool:
        return self.ended is not None or self.gone is not None

    def numbered(self) -> dict[int, dict[str, Any]]:
        return {e["n"]: e for e in self.entries if e.get("n") is not None}


def parse_lines(text: str) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """(entries, end) from the JSON lines a rank appended; a torn last line is left for the next read."""
    entries: list[dict[str, Any]] = []
    end = None
    for line in text.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if not isinstance(item, dict):
            continue
        if "end" in item:
            end = item["end"]
        elif "op" in item:  # (the line saying which rank joined is for the reader of the file)
            entries.append(item)
    return entries, end


def signature(entry: dict[str, Any]) -> tuple[Any, ...]:
    op = entry["op"]
    sized = (entry.get("dtype"), tuple(entry.get("shape") or ())) if op in SIZED else ()
    rooted = (entry.get("root"),) if op in ROOTED else ()
    return (op, *sized, *rooted)


def describe(entry: dict[str, Any]) -> str:
    """``all_reduce`` plus, for sized ops, ``of float32 (4,)``; plus ``from root 1`` for rooted ones."""
    text = entry["op"]
    if entry["op"] in SIZED and entry.get("dtype") is not None:
        shape = entry.get("shape") or []
        text += f" of {entry['dtype']} (" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"
    if entry["op"] in ROOTED and entry.get("root") is not None:
        text += f" with root {entry['root']}"
    return text


def site(entry: dict[str, Any] | None) -> str:
    return f"{entry['path']}:{entry['line']}" if entry else "?"


def _ranks(ranks: list[int]) -> str:
    return ("ranks " if len(ranks) > 1 else "rank ") + ", ".join(map(str, ranks))


def _ending(state: RankState) -> str:
    if state.ended is not None:
        if state.ended.get("how") == "raised":
            where = f" at {state.ended['path']}:{state.ended['line']}" if state.ended.get("path") else ""
            return f"it raised {state.ended.get('error', 'an exception')}{where}"
        return "it returned"
    return f"it {state.gone}" if state.gone else "it ended"


def _never_called(states: list[RankState]) -> list[str]:
    """One clause per story: ranks whose last collective and ending read the same share one."""
    stories: dict[tuple[str, str], list[int]] = {}
    for state in states:
        last = state.numbered()
        entry = last[max(last)] if last else None
        before = f"{entry['op']} #{entry['n']} at {site(entry)}" if entry else ""
        stories.setdefault((before, _ending(state)), []).append(state.rank)
    clauses = []
    for (before, ending), ranks in stories.items():
        many = len(ranks) > 1
        if before:
            before = f"{'their' if many else 'its'} last collective: {before}"
        else:
            before = f"{'they' if many else 'it'} called no collective"
        if many:
            ending = ending.replace("it returned", "they returned").replace("it raised", "each raised")
        clauses.append(f"{_ranks(ranks)} never called it ({before}, then {ending})")
    return clauses


def diagnose(states: list[RankState], world_size: int) -> dict[str, Any] | None:
    """The first collective the ranks disagree on, as a ``trace_format.Desync`` record, or None."""
    states = sorted(states, key=lambda s: s.rank)
    numbered = {s.rank: s.numbered() for s in states}
    highest = max((max(entries, default=0) for entries in numbered.values()), default=0)
    for n in range(1, highest + 1):
        have = {s.rank: numbered[s.rank][n] for s in states if n in numbered[s.rank]}
        lacking = [s for s in states if n not in numbered[s.rank]]
        groups: dict[tuple[Any, ...], list[int]] = {}
        for rank, entry in have.items():
            groups.setdefault(signature(entry), []).append(rank)
        if len(groups) > 1:
            # the largest group waits (ties: the one holding the lowest rank); the others called another #n
            waiting = max(groups.values(), key=lambda ranks: (len(ranks), -ranks[0]))
            odd = [rank for rank in have if rank not in waiting]
            return _record(states, world_size, n, have, waiting, odd, [])
        if have and any(s.finished for s in lacking):  # one rank that ended is enough: #n needs every rank
            return _record(states, world_size, n, have, sorted(have), [], lacking)
        if lacking:
            return None  # the ranks without #n are still running: they may yet call it
    return None


def _record(
    states: list[RankState],
    world_size: int,
    n: int,
    have: dict[int, dict[str, Any]],
    waiting: list[int],
    odd: list[int],
    lacking: list[RankState],
) -> dict[str, Any]:
    entry = have[waiting[0]]
    by_rank = {state.rank: state for state in states}
    # a rank is waiting in #n while #n is its last call and it has not ended; a backend may also let
    # mismatched calls pass (gloo, sizes): then the ranks "called" #n and went on
    still = all(max(by_rank[rank].numbered()) == n and not by_rank[rank].finished for rank in waiting)
    verb = ("wait in" if len(waiting) > 1 else "waits in") if still or not odd else "called"
    detail = describe(entry)[len(entry["op"]) :] if odd else ""  # " of float32 (4,)" when sizes are the point
    lead = f"{site(entry)}: {_ranks(waiting)} of {world_size} {verb} {entry['op']} #{n}{detail}"
    clauses = [f"rank {rank}'s #{n} is {describe(have[rank])} at {site(have[rank])}" for rank in odd]
    clauses += _never_called([state for state in lacking if state.finished])
    running = [state.rank for state in lacking if not state.finished]
    if running:
        clauses.append(f"{_ranks(running)} had not called it yet")
    message = "; ".join([lead, *clauses])
    raised = next((s for s in lacking if s.ended is not None and s.ended.get("how") == "raised"), None)
    if raised is not None:  # the rank's own exception is the cause: lead with it, as for any failed rank
        error = raised.ended or {}
        where = f"{error['path']}:{error.get('line')}" if error.get("path") else "?"
        message = (
            f"{where}: rank {raised.rank} of {world_size}: "
            f"{error.get('error', 'Error')} ({_ranks(waiting)} {verb} {entry['op']} #{n} at "
            f"{site(entry)}, which rank {raised.rank} never called)"
        )
    ranks = []
    for state in states:
        last: dict[str, Any] | None
        if state.rank in waiting:
            status, last = ("waiting" if verb != "called" else "called"), have[state.rank]
        elif state.rank in odd:
            status, last = "different", have[state.rank]
        else:
            entries = state.numbered()
            status, last = "never called", entries[max(entries)] if entries else None
        ranks.append({"rank": state.rank, "state": status, "last": last, "ended": state.ended, "where": state.where})
    return {"message": message, "n": n, "ranks": ranks}
