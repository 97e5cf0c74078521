"""Shards (one traced rank each) and their merge into one lecture trace.

A shard is a trace of one rank (same format, validated by the same schema) with a ``shard`` field:
``rank``, ``spawn_index``, ``launch``, ``world_size``, ``backend``, ``status`` and ``joined``.
Merging turns the shards of one launch into a *launch* record of the trace's ``ranks`` field
(see ``trace_format.RanksInfo``): one stream per rank, sorted by rank, each holding its steps; the
lecture files, sources and hidden lines of every rank join the trace's own. A rank that left no
shard (killed, ``os._exit``) becomes a stream without steps that says where it was last seen (its
``rank-R.where`` heartbeat file; ``remove_status_files`` clears those after a successful merge).

Each stream keeps the collectives its rank announced (``sequence``, from the rank's ``.seq`` file) and
how it ended; a launch whose ranks disagreed gets a ``desync`` record (``desync.diagnose``).
``merge_directory`` builds a whole trace from shards written by torchrun-style ranks (possibly on
several nodes, into one shared directory): the lowest rank's steps become the trace's ``steps`` so
readers unaware of ranks still see the lecture. This module must not run lectures or import torch.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tracer.capture.ranks.desync import diagnose
from tracer.capture.ranks.desync_watch import Member, rank_states

RANKS_FORMAT = 1
FAILED = ("error", "exited", "lost")


class ShardError(Exception):
    """Shards that cannot be merged; str() is one line naming the file and the reason."""


def read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):  # RecursionError: nested too deep to parse
        return None
    return data if isinstance(data, dict) else None


def stream_from_shard(shard: dict[str, Any]) -> dict[str, Any]:
    info = shard["shard"]
    stream: dict[str, Any] = {
        "rank": info["rank"],
        "spawn_index": info.get("spawn_index", info["rank"]),
        "status": info["status"],
        "joined": bool(info.get("joined")),
        "exitcode": info.get("exitcode"),
    }
    if info.get("link"):
        stream["link"] = info["link"]  # make_launch lifts it to the launch
    if shard.get("error"):
        stream["error"] = shard["error"]
    if shard.get("warnings"):
        stream["warnings"] = shard["warnings"]
    if shard.get("truncated"):
        stream["truncated"] = shard["truncated"]
    if shard.get("steps"):
        stream["frames"] = shard.get("frames", [])  # the positions its steps name
    stream["steps"] = shard.get("steps", [])
    return stream


def lost_stream(index: int, exitcode: int | None, where: dict[str, Any] | None) -> dict[str, Any]:
    """A rank that wrote no shard: how it ended and the last line its heartbeat reported."""
    where = where or {}
    position = where.get("where")
    frame = None
    if position and ":" in position:
        path, _, line = position.rpartition(":")
        frame = {"path": path, "line": int(line), "function": "?"}
    if exitcode is not None and exitcode < 0:
        status, message = "stopped", f"killed by signal {-exitcode}"
    elif exitcode:
        status, message = "exited", f"exited with code {exitcode}"
    else:
        status, message = "lost", "ended without writing its trace"
    if position:
        message += f" (last seen at {position})"
    rank = where.get("rank")
    stream: dict[str, Any] = {
        "rank": index if rank is None else rank,
        "spawn_index": index,
        "status": status,
        "joined": bool(where.get("joined")),
        "exitcode": exitcode,
        "error": {
            "type": status.capitalize() if status != "lost" else "Lost",
            "message": message,
            "traceback": [frame] if frame else [],
        },
        "steps": [],
    }
    if where.get("waiting_in"):
        stream["waiting_in"] = where["waiting_in"]
    return stream


def absorb_files(header: dict[str, Any], shard: dict[str, Any]) -> None:
    """The files, sources, hidden lines and stepped-into helpers a rank used become part of the
    lecture trace."""
    for key in ("sources", "files", "hidden_lines"):
        merged = dict(header.get(key) or {})
        for path, value in (shard.get(key) or {}).items():
            merged.setdefault(path, value)
        header[key] = dict(sorted(merged.items()))
    if "stepped_helpers" in shard:
        header["stepped_helpers"] = sorted(set(header.get("stepped_helpers") or ()) | set(shard["stepped_helpers"]))


def make_launch(streams: list[dict[str, Any]], *, step: int | None, how: str) -> dict[str, Any]:
    """A launch record of ``streams``; their collectives get the wait/transfer split and bandwidth
    (``collectives.add_bandwidth``), against the link's peak where the ranks knew their link."""
    from tracer.capture.ranks.collectives import add_bandwidth

    streams = sorted(streams, key=lambda s: (s["rank"], s["spawn_index"]))
    backend = next((s.get("backend") for s in streams if s.get("backend")), None)
    links = [s.pop("link", None) for s in streams]
    link = next((x for x in links if x), None)
    add_bandwidth(streams, link["bytes_per_s"] if link else None)
    launch = {"step": step, "how": how, "world_size": len(streams), "backend": backend, "streams": streams}
    if link:
        launch["link"] = link
    return launch


def add_sequences(launch: dict[str, Any], states: list[Any]) -> None:
    """Each stream gets the collectives its rank announced (``sequence``) and how it ended (``ended``),
    from the ranks' ``desync.RankState``s."""
    by_rank = {state.rank: state for state in states}
    for stream in launch["streams"]:
        state = by_rank.get(stream["rank"])
        if state is None:
            continue
        stream["sequence"] = state.entries
        if state.ended is not None:
            stream["ended"] = state.ended


def add_launch(header: dict[str, Any], launch: dict[str, Any]) -> None:
    ranks = header.setdefault("ranks", {"format": RANKS_FORMAT, "world_size": 0, "launches": []})
    ranks["launches"].append(launch)
    ranks["world_size"] = max(ranks["world_size"], launch["world_size"])


def root_cause(launch: dict[str, Any], spawn_index: int | None = None) -> dict[str, Any] | None:
    """The stream that failed first: the one the launcher named, else the first failed one."""
    failed = [s for s in launch["streams"] if s["status"] in FAILED]
    if spawn_index is not None:
        named = [s for s in launch["streams"] if s["spawn_index"] == spawn_index and s["status"] in FAILED + ("stopped",)]
        if named:
            return named[0]
    return failed[0] if failed else None


def failure_line(stream: dict[str, Any], world_size: int) -> str:
    """``path:line: rank R of N: Type: message`` (one line) for a failed rank."""
    error = stream.get("error") or {}
    frames = error.get("traceback") or []
    where = f"{frames[-1]['path']}:{frames[-1]['line']}" if frames else "?"
    message = f"{where}: rank {stream['rank']} of {world_size}: {error.get('type', 'Error')}: {error.get('message', '')}"
    return (message.splitlines() or [message])[0]


def shard_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.glob("*.json") if not p.name.startswith("."))


def remove_status_files(directory: Path) -> None:
    """After a successful merge: the ranks' ``.where`` heartbeat files (what they said is in the trace
    now) go, so a shared shard directory holds only shards. A failed merge keeps them for a look."""
    for path in [*directory.glob("rank-*.where"), *directory.glob("rank-*.where.tmp"), *directory.glob("rank-*.seq")]:
        try:
            path.unlink()
        except OSError:
            pass  # another node's merge took it first


def merge_directory(directory: Path) -> tuple[dict[str, Any], str | None]:
    """(trace, failure line or None) from the shards of torchrun-style ranks in ``directory``."""
    paths = shard_files(directory)
    if not paths:
        raise ShardError(f"{directory}: no shards (rank-*.json) to merge")
    shards = []
    for path in paths:
        shard = read_json(path)
        if shard is None or not isinstance(shard.get("shard"), dict):
            raise ShardError(f"{path}: not a chalktrace shard")
        shards.append(shard)
    names = {s["lecture"]["path"] for s in shards}
    if len(names) > 1:
        raise ShardError(f"{directory}: shards of different lectures: {', '.join(sorted(names))}")
    shards.sort(key=lambda s: s["shard"]["rank"])
    ranks = [s["shard"]["rank"] for s in shards]
    if len(set(ranks)) != len(ranks):
        raise ShardError(f"{directory}: two shards for rank {next(r for r in ranks if ranks.count(r) > 1)}")
    world = max((s["shard"].get("world_size") or 0) for s in shards) or len(shards)
    missing = sorted(set(range(world)) - set(ranks))
    base = shards[0]
    trace = {key: value for key, value in base.items() if key not in ("shard", "steps", "ranks", "frames")}
    trace["frames"] = base.get("frames", [])
    trace["steps"] = base.get("steps", [])
    streams = []
    for shard in shards:
        absorb_files(trace, shard)
        stream = stream_from_shard(shard)
        stream["backend"] = shard["shard"].get("backend")
        streams.append(stream)
    for rank in missing:  # its heartbeat file says where it was last seen
        streams.append(lost_stream(rank, None, {**(read_json(directory / f"rank-{rank}.where") or {}), "rank": rank}))
    launch = make_launch(streams, step=None, how="torchrun")
    launch["world_size"] = world
    for stream in launch["streams"]:
        stream.pop("backend", None)
    states, _world = rank_states(
        [Member(rank, directory / f"rank-{rank}.seq", directory / f"rank-{rank}.where", None) for rank in range(world)]
    )
    add_sequences(launch, states)
    desync = diagnose(states, world)
    if desync is not None:
        launch["desync"] = desync
    add_launch(trace, launch)
    cause = root_cause(launch)
    trace["status"] = "error" if cause else "ok"
    line = None
    if desync is not None and cause is not None:
        trace["error"] = {**(cause.get("error") or {"type": "Error", "message": "", "traceback": []}), "rank": cause["rank"]}
        line = desync["message"]  # the ranks' disagreement, not what the backend raised in the ones left waiting
    elif cause is not None:
        trace["error"] = {**(cause.get("error") or {"type": "Error", "message": "", "traceback": []}), "rank": cause["rank"]}
        line = failure_line(cause, world)
    else:
        trace.pop("error", None)
    return trace, line
