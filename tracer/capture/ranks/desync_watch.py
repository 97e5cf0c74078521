"""The files and the thread behind desync diagnosis: ranks announce, the launcher watches.

A rank appends one JSON line per collective to its *sequence file* (``SequenceWriter``: ``.seq``
beside its shard) before it enters the backend's call, a line when it joins the group, and one
when its function ends (returned, or raised what where). Appending a short line and flushing is
all a rank pays per collective; nothing waits on the launcher. The launcher's ``DesyncWatch``
thread reads the sequence files of every running launch a few times a second, with where each
rank stands (its ``.where`` heartbeat) and whether its process is gone (``/proc``: never
``waitpid``, which would reap a child that ``multiprocessing`` still has to join), and asks
``desync.diagnose`` whether the ranks disagree. The first diagnosis of a launch is handed to
``on_desync`` (the launcher stops the ranks and keeps the record), so a desynchronised run ends
within a second instead of at the backend's timeout. ``rank_states`` reads the same files once
more at merge time, when exit codes are known. This module must not decide what a disagreement is
(``desync`` does) or merge shards.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Callable

from tracer.capture.ranks.desync import RankState, diagnose, parse_lines

POLL_SECONDS = 0.1
GRACE_SECONDS = 1.0  # how long a found disagreement waits for ranks still on their way to end


class SequenceWriter:
    """A rank's side: append-only JSON lines (never rewritten, so a reader never sees a torn file)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: IO[str] | None = None

    def _write(self, item: dict[str, Any]) -> None:
        try:
            if self._file is None:
                self._file = open(self.path, "a", encoding="utf-8")
            self._file.write(json.dumps(item, separators=(",", ":")) + "\n")
            self._file.flush()
        except (OSError, ValueError):
            pass  # the launcher then learns less; the lecture runs on

    def joined(self, rank: int, world_size: int) -> None:
        self._write({"joined": {"rank": rank, "world_size": world_size}})

    def announce(self, entry: dict[str, Any]) -> None:
        self._write(entry)

    def end(self, how: str, error: str | None = None, path: str | None = None, line: int | None = None) -> None:
        record: dict[str, Any] = {"how": how}
        if error is not None:
            record["error"] = error
        if path:
            record.update(path=path, line=line)
        self._write({"end": record})
        if self._file is not None:
            self._file.close()
            self._file = None


@dataclass
class Member:
    """One rank process of a launch as the launcher knows it."""

    index: int  # spawn index (the rank until the rank says otherwise)
    sequence: Path
    where: Path
    pid: int | None
    exitcode: int | None = None  # known at merge time only


def _joined(path: Path) -> dict[str, Any] | None:
    try:
        first = path.open(encoding="utf-8").readline()
        item = json.loads(first)
    except (OSError, ValueError):
        return None
    return item.get("joined") if isinstance(item, dict) else None


def gone(member: Member) -> str | None:
    if member.exitcode is not None:
        if member.exitcode < 0:
            return f"was killed by signal {-member.exitcode}"
        return f"exited with code {member.exitcode}"
    if member.pid is None:
        return None
    try:
        state = Path(f"/proc/{member.pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    except (OSError, IndexError):
        return "exited"
    return "exited" if state in ("Z", "X") else None


def rank_states(members: list[Member]) -> tuple[list[RankState], int]:
    """Every member's state from its files, and the world size (from the ranks that joined)."""
    states = []
    world = len(members)
    for member in members:
        try:
            text = member.sequence.read_text(encoding="utf-8")
        except OSError:
            text = ""
        entries, end = parse_lines(text[: text.rfind("\n") + 1])
        joined = _joined(member.sequence)
        if joined:
            world = max(world, int(joined.get("world_size") or 0))
        where = None
        try:
            where = json.loads(member.where.read_text(encoding="utf-8")).get("where")
        except (OSError, ValueError, AttributeError):
            pass
        rank = int(joined["rank"]) if joined and joined.get("rank") is not None else member.index
        states.append(RankState(rank, entries, end, None if end else gone(member), where))
    return states, world


class DesyncWatch:
    """The launcher's thread: ``launches()`` lists (key, members) of the launches still running."""

    def __init__(
        self, launches: Callable[[], list[tuple[int, list[Member]]]], on_desync: Callable[[int, dict[str, Any]], None]
    ) -> None:
        self._launches = launches
        self._on_desync = on_desync
        self._stop = threading.Event()
        self._done: set[int] = set()
        self._seen: dict[int, float] = {}  # launch -> when a disagreement was first seen
        self._thread = threading.Thread(target=self._run, name="chalktrace-desync-watch", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(2)

    def check(self) -> None:
        for key, members in self._launches():
            if key in self._done or not members:
                continue
            states, world = rank_states(members)
            if len(states) < world:
                continue  # not every rank has started
            found = diagnose(states, world)
            if found is not None:
                # ranks still running without #n will not call it either (one that ended never will),
                # but a moment lets them end too, so that the sentence tells each rank's story
                pending = any(not state.finished and found["n"] not in state.numbered() for state in states)
                first = self._seen.setdefault(key, time.monotonic())
                if pending and time.monotonic() - first < GRACE_SECONDS:
                    continue
                self._done.add(key)
                self._on_desync(key, found)
            elif all(state.finished for state in states):
                self._done.add(key)  # every rank ended in agreement (the merge looks once more)

    def _run(self) -> None:
        while not self._stop.wait(POLL_SECONDS):
            try:
                self.check()
            except Exception:  # the watch must never take the lecture down
                pass
