"""The ranks of a distributed trace as plain records for read mode and step mode.

``rank_lines(trace)`` folds every rank's steps into one ``RankLine`` per executed line of the main
file: each rank's values of the last run (name -> rank -> (step, value)), its stdout, stderr and errors,
the renderings of the lowest rank that rendered (prose is the same on every rank), and the
collectives called there, one ``CollectiveRow`` per collective (all ranks' figures side by side).

``rank_timelines(trace)`` gives step mode one linear timeline per rank: the launching process's
steps with that rank's stream spliced in where the launch happened (a torchrun trace is the
rank's stream alone), stacks prefixed by the launching line, storage ids made distinct per rank.
``switch_targets`` pairs each step with the matching step of every other rank (the same launching
step, or the same number of collectives done and the nearest same line), and ``timeline_x``
places steps on an x axis where the n-th collective of every rank sits at the same x;
``aligned_steps`` does the same counting in steps (for the memory chart's one line per rank).
``step_counts`` counts the steps a reader steps through; ``trace_step_to_viewer`` maps the trace's own step numbers to step mode's (for links to a step).
This module must not produce markup or touch files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from tracer.contract.trace_access import step_frame
from tracer.contract.trace_format import ErrorInfo, Frame, Rendering, Step, Trace


@dataclass
class CollectiveRow:
    """One collective (a launch's ``seq``-th) as every rank that called it saw it."""

    launch: int
    seq: int
    op: str
    dtype: str | None
    shape: list[int] | None
    nbytes: int
    algorithm: str
    backend: str | None
    per_rank: dict[int, dict[str, Any]] = field(default_factory=dict)  # rank -> the rank's record


@dataclass
class RankLine:
    line: int
    launch: int
    runs: dict[int, int] = field(default_factory=dict)  # rank -> runs of the line
    last: dict[int, int] = field(default_factory=dict)  # rank -> its stream's step of the line's last run
    env: dict[str, dict[int, tuple[int, dict[str, Any]]]] = field(default_factory=dict)
    stdout: dict[int, str] = field(default_factory=dict)
    stderr: dict[int, str] = field(default_factory=dict)  # rank -> what it wrote to sys.stderr (warnings too)
    errors: list[tuple[int, int, ErrorInfo]] = field(default_factory=list)  # (rank, step, error)
    renderings: list[tuple[int, Rendering]] = field(default_factory=list)
    collectives: dict[tuple[int, int], CollectiveRow] = field(default_factory=dict)
    _rendering_rank: int | None = None


def launches(trace: Trace) -> list[dict[str, Any]]:
    ranks: Mapping[str, Any] = trace.get("ranks") or {}
    return list(ranks.get("launches") or [])


def rank_lines(trace: Trace) -> dict[int, RankLine]:
    """One record per main-file line that rank code ran (see the module docstring)."""
    main = trace["lecture"]["path"]
    lines: dict[int, RankLine] = {}
    for number, launch in enumerate(launches(trace)):
        for stream in launch["streams"]:
            rank = stream["rank"]
            for index, step in enumerate(stream["steps"]):
                frame = step_frame(step)
                own = frame["path"] == main
                if not own:
                    outer = next((f for f in reversed(step["stack"]) if f["path"] == main), None)
                    if outer is None:
                        continue
                    frame = outer
                record = lines.setdefault(frame["line"], RankLine(frame["line"], number))
                if own and not step.get("call"):
                    record.runs[rank] = record.runs.get(rank, 0) + 1
                    record.last[rank] = index
                    for name, value in step["env"].items():
                        record.env.setdefault(name, {})[rank] = (index, value)
                    if step.get("stdout"):
                        record.stdout[rank] = record.stdout.get(rank, "") + step["stdout"]
                    if step.get("stderr"):
                        record.stderr[rank] = record.stderr.get(rank, "") + step["stderr"]
                    for call in step.get("collectives", ()):
                        row = record.collectives.get((number, call["seq"]))
                        if row is None:
                            row = record.collectives[(number, call["seq"])] = CollectiveRow(
                                number,
                                call["seq"],
                                call["op"],
                                call.get("dtype"),
                                call.get("shape"),
                                call["nbytes"],
                                call["algorithm"],
                                call.get("backend"),
                            )
                        row.per_rank[rank] = call
                if step["renderings"] and record._rendering_rank in (None, rank):
                    record._rendering_rank = rank
                    record.renderings.extend((index, r) for r in step["renderings"])
                if step.get("error"):
                    record.errors.append((rank, index, step["error"]))
    for record in lines.values():
        record.env = {name: dict(sorted(by_rank.items())) for name, by_rank in record.env.items()}
    return lines


def all_collectives(trace: Trace) -> list[CollectiveRow]:
    """Every collective of every launch, in call order, with each rank's record."""
    rows: dict[tuple[int, int], CollectiveRow] = {}
    for record in rank_lines(trace).values():
        rows.update(record.collectives)
    return [rows[key] for key in sorted(rows)]


# -- step mode --------------------------------------------------------------------------------------


@dataclass
class Timeline:
    rank: int
    steps: list[Step]
    origin: list[tuple[int, int, int]]  # per step: (launch or -1 for the launching process, index, collectives done)


def _rename_storage(value: Any, suffix: str) -> Any:
    if isinstance(value, dict):
        out = {key: _rename_storage(item, suffix) for key, item in value.items()}
        if out.get("type") == "tensor" and isinstance(out.get("storage_id"), str):
            out["storage_id"] = out["storage_id"] + suffix
        return out
    if isinstance(value, list):
        return [_rename_storage(item, suffix) for item in value]
    return value


def _rank_step(step: Step, prefix: list[Frame], rank: int) -> Step:
    out = step.copy()
    out["stack"] = prefix + step["stack"]
    if step["env"]:
        out["env"] = _rename_storage(step["env"], f"·r{rank}")
    return out


def world_ranks(trace: Trace) -> list[int]:
    found: set[int] = set()
    for launch in launches(trace):
        found.update(s["rank"] for s in launch["streams"])
    return sorted(found)


def rank_timelines(trace: Trace) -> list[Timeline]:
    """One timeline per rank (see the module docstring)."""
    parent = trace["steps"]
    all_launches = launches(trace)
    torchrun = any(launch["step"] is None for launch in all_launches)
    timelines = []
    for rank in world_ranks(trace):
        steps: list[Step] = []
        origin: list[tuple[int, int, int]] = []
        done = 0
        at = {launch["step"]: number for number, launch in enumerate(all_launches) if launch["step"] is not None}
        for number, launch in enumerate(all_launches):
            if launch["step"] is None:
                stream = next((s for s in launch["streams"] if s["rank"] == rank), None)
                for index, step in enumerate(stream["steps"] if stream else []):
                    done += len(step.get("collectives", ()))
                    steps.append(_rank_step(step, [], rank))
                    origin.append((number, index, done))
        if not torchrun:
            for index, step in enumerate(parent):
                if index in at:
                    number = at[index]
                    launch = all_launches[number]
                    stream = next((s for s in launch["streams"] if s["rank"] == rank), None)
                    calling: Step = {**step, "env": {}, "renderings": [], "stdout": "", "call": True}
                    calling.pop("error", None)
                    calling.pop("stderr", None)
                    calling.pop("compute", None)
                    steps.append(calling)
                    origin.append((-1, index, done))
                    prefix = [f.copy() for f in step["stack"]]
                    for k, rank_step in enumerate(stream["steps"] if stream else []):
                        done += len(rank_step.get("collectives", ()))
                        steps.append(_rank_step(rank_step, prefix, rank))
                        origin.append((number, k, done))
                steps.append(step)
                origin.append((-1, index, done))
        timelines.append(Timeline(rank, steps, origin))
    return timelines


def switch_targets(timelines: list[Timeline], offsets: list[int]) -> list[list[int]]:
    """For each step of the concatenated timelines, the matching global step index in every rank."""
    lookup = []  # per timeline: (launch, done) -> [local indices]; (-1, parent index) -> local index
    for timeline in timelines:
        table: dict[tuple[int, int], list[int]] = {}
        for local, (launch, index, done) in enumerate(timeline.origin):
            key = (-1, index) if launch < 0 else (launch, done)
            table.setdefault(key, []).append(local)
        lookup.append(table)
    targets: list[list[int]] = []
    for source, timeline in enumerate(timelines):
        for local, (launch, index, done) in enumerate(timeline.origin):
            key = (-1, index) if launch < 0 else (launch, done)
            line = timeline.steps[local]["stack"][-1]["line"]
            row = []
            for other, other_timeline in enumerate(timelines):
                if other == source:
                    row.append(offsets[source] + local)
                    continue
                candidates = lookup[other].get(key)
                if not candidates and launch >= 0:  # that rank stopped earlier: its last step there
                    candidates = [k for k, o in enumerate(other_timeline.origin) if o[0] == launch][-1:]
                if not candidates:
                    row.append(offsets[other] + min(local, len(other_timeline.steps) - 1))
                    continue
                same_line = [k for k in candidates if other_timeline.steps[k]["stack"][-1]["line"] == line]
                pool = same_line or candidates
                ratio = (local - lookup[source][key][0]) if key in lookup[source] else 0
                pick = min(pool, key=lambda k: abs((k - candidates[0]) - ratio))
                row.append(offsets[other] + pick)
            targets.append(row)
    return targets


def timeline_x(timeline: Timeline) -> list[float]:
    """x of each step: collectives done so far, plus the step's place among steps with that count,
    so that every rank's n-th collective sits at x = n."""
    counts: dict[int, int] = {}
    for _launch, _index, done in timeline.origin:
        counts[done] = counts.get(done, 0) + 1
    seen: dict[int, int] = {}
    xs = []
    for _launch, _index, done in timeline.origin:
        position = seen.get(done, 0)
        seen[done] = position + 1
        xs.append(round(done + position / max(1, counts[done]), 4))
    return xs


def aligned_steps(trace: Trace, timelines: list[Timeline]) -> list[list[int]]:
    """x of each step of each timeline, counted in steps, such that the ranks stay in step: every rank's
    n-th collective, and each step of the launching process, sits at the same x on every timeline.
    Between two such points a rank's steps advance x by one each; the rank with the most steps there
    sets the room, and the others wait at their last step (memory charts, one line per rank)."""
    all_launches = launches(trace)
    keys: list[list[tuple[int, int, int]]] = []  # per timeline, per step: its run's place in the common order
    for timeline in timelines:
        seen: set[int] = set()
        row = []
        for launch, index, done in timeline.origin:
            if launch < 0:  # a launching-process step: a launch's line shows twice (its call, then done)
                row.append((index, 2 if index in seen else 0, 0))
                seen.add(index)
            else:
                at = all_launches[launch]["step"]
                row.append((launch if at is None else at, 1, done))
        keys.append(row)
    room: dict[tuple[int, int, int], int] = {}
    for row in keys:
        runs: dict[tuple[int, int, int], int] = {}
        for key in row:
            runs[key] = runs.get(key, 0) + 1
        for key, count in runs.items():
            room[key] = max(room.get(key, 0), count)
    start, x = {}, 0
    for key in sorted(room):
        start[key] = x
        x += room[key]
    out = []
    for row in keys:
        xs, previous, position = [], None, 0
        for key in row:
            position = position + 1 if key == previous else 0
            previous = key
            xs.append(start[key] + position)
        out.append(xs)
    return out


def parent_to_timeline(timeline: Timeline) -> dict[int, int]:
    """Launching-process step index -> its index in ``timeline`` (the completed step, not the call copy)."""
    mapping: dict[int, int] = {}
    for local, (launch, index, _done) in enumerate(timeline.origin):
        if launch < 0:
            mapping[index] = local
    return mapping


def trace_step_to_viewer(trace: Trace) -> dict[int, int] | None:
    """The trace's own step index -> the same step's index in step mode, or None when they are the same
    (a trace without ranks). Step mode lays the ranks' timelines end to end: a spawned launch's parent
    steps sit in every rank's timeline after that rank's stream was spliced in, and links go to the
    first timeline's copy; a torchrun trace's own steps are those of its lowest rank that wrote a shard."""
    timelines = rank_timelines(trace)
    if not timelines:
        return None
    if any(launch["step"] is None for launch in launches(trace)):
        streams = launches(trace)[0]["streams"]
        base = next((s["rank"] for s in streams if s["steps"]), None)
        offset = 0
        for timeline in timelines:
            if timeline.rank == base:
                return {k: offset + k for k in range(len(trace["steps"]))}
            offset += len(timeline.steps)
        return None
    return parent_to_timeline(timelines[0])


def step_counts(trace: Trace) -> dict[str, Any] | None:
    """How many steps a reader steps through a distributed trace (None for one process's): step mode
    follows one rank at a time, through the launching process's steps (``own``, when ``launched``)
    and that rank's own (``each``: "96", or "90–96" for unequal ranks, ``most`` the larger) on
    ``ranks`` ranks. The page words it ("40 steps + 4 ranks × 96"; a torchrun trace has no launching
    process: "4 ranks × 96 steps") in the course's language."""
    ranks = world_ranks(trace)
    if not ranks:
        return None
    per_rank = {rank: 0 for rank in ranks}
    for launch in launches(trace):
        for stream in launch["streams"]:
            per_rank[stream["rank"]] += len(stream["steps"])
    low, high = min(per_rank.values()), max(per_rank.values())
    return {
        "own": len(trace["steps"]),
        "ranks": len(ranks),
        "each": f"{low}" if low == high else f"{low}–{high}",
        "most": high,
        "launched": not any(launch["step"] is None for launch in launches(trace)),
    }
