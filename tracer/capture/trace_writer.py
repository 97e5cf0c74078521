"""Turn the recorder's step tuples into trace JSON text, fast.

Steps are written one per line (readable diffs of committed traces). Each call-stack position (a
line in a function, with its caller's position) is written once to the ``frames`` table and a step
names its position by index, so a trace grows with its steps, not with their stack depth. The frame
and memory fragments repeat from step to step, so their JSON is built once and cached; only steps
that carry values, renderings or output go through ``json.dumps``. This module must not run lectures or
decide what a step contains: it only formats what the recorder collected.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Mapping

from tracer.capture.identity import identity
from tracer.capture.recorder import CALL, RecordedStep
from tracer.contract import collector

_dumps = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode


def dumps(value: Any) -> str:
    """Compact JSON; NaN/Inf that slipped through become strings rather than invalid JSON."""
    try:
        return _dumps(value)
    except ValueError:
        return _dumps(_finite(value))


def _finite(value: Any) -> Any:
    if isinstance(value, float) and value != value or value in (float("inf"), float("-inf")):
        return "nan" if value != value else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


_NO_CALLER = -1  # a prefix not seen yet (None means "no traced caller")


class StepWriter:
    """Formats the recorder's steps (``recorder.RecordedStep``: plain tuples in its field order)."""

    def __init__(self) -> None:
        self.frames: list[str] = []  # the JSON of each position of the ``frames`` table, by index
        self._positions: dict[tuple[str, int, str, int | None], int] = {}
        self._callers: dict[int, int | None] = {}  # identity(prefix) -> its innermost position
        self._prefixes: dict[tuple[Any, ...], int | None] = {(): None}  # prefix -> its innermost position
        self._heads: dict[tuple[int, int, int], str] = {}
        self._memory: dict[tuple[int, int], str] = {}
        self._plain: dict[tuple[int, int, int, int, bool], str] = {}

    def _plain_step(self, prefix: tuple[Any, ...], key: tuple[str, str], line: int, memory: tuple[int, int], plain: bool) -> str:
        return (
            self._head(prefix, key, line)
            + _EMPTY
            + '"memory":{"nbytes":%d,"peak_nbytes":%d}' % memory
            + ("}" if plain else ',"call":true}')
        )

    def _position(self, path: str, line: int, function: str, parent: int | None) -> int:
        """The index of a position in the ``frames`` table, added (callers first) when new."""
        key = (path, line, function, parent)
        found = self._positions.get(key)
        if found is None:
            found = self._positions[key] = len(self.frames)
            self.frames.append(
                '{"path":%s,"line":%d,"function":%s,"parent":%s}'
                % (_dumps(path), line, _dumps(function), "null" if parent is None else parent)
            )
        return found

    def _caller(self, prefix: tuple[Any, ...]) -> int | None:
        """The position of the innermost of ``prefix`` (the step's traced callers), None when empty."""
        # Steps keep their prefix tuples alive, so identities are stable while writing.
        found = self._callers.get(identity(prefix), _NO_CALLER)
        if found != _NO_CALLER:
            return found
        known = len(prefix)  # the longest start of the prefix already placed (usually all but one)
        while known and prefix[:known] not in self._prefixes:
            known -= 1
        found = self._prefixes[prefix[:known]]
        for depth in range(known, len(prefix)):
            path, line, function = prefix[depth]
            found = self._prefixes[prefix[: depth + 1]] = self._position(path, line, function, found)
        self._callers[identity(prefix)] = found
        return found

    def _head(self, prefix: tuple[Any, ...], key: tuple[str, str], line: int) -> str:
        return '{"frame":%d,' % self._position(key[0], line, key[1], self._caller(prefix))

    def step(self, step: RecordedStep) -> str:
        prefix, key, line, extras, memory = step  # RecordedStep's fields, unpacked by position (no attribute lookups)
        if extras is None or extras is CALL:
            # Plain steps repeat exactly (a loop body, the same memory figure): format each once.
            plain_key = (identity(prefix), identity(key), line, identity(memory), extras is None)
            text = self._plain.get(plain_key)
            if text is None:
                text = self._plain[plain_key] = self._plain_step(prefix, key, line, memory, extras is None)
            return text
        cache_key = (identity(prefix), identity(key), line)
        head = self._heads.get(cache_key)
        if head is None:
            head = self._heads[cache_key] = self._head(prefix, key, line)
        mem = self._memory.get(memory)
        if mem is None:
            mem = self._memory[memory] = '"memory":{"nbytes":%d,"peak_nbytes":%d}' % memory
        env = extras.get("env")
        renderings = extras.get("renderings")
        stdout = extras.get("stdout")
        text = (
            head
            + ('"env":' + dumps(env) if env else '"env":{}')
            + (',"renderings":' + dumps(renderings) if renderings else ',"renderings":[]')
            + (',"stdout":' + dumps(stdout) if stdout else ',"stdout":""')
            + ","
            + mem
        )
        for name, value in extras.items():
            if name not in _PLACED:
                text += "," + _dumps(name) + ":" + dumps(value)
        return text + "}"


_EMPTY = '"env":{},"renderings":[],"stdout":"",'
_PLACED = frozenset({"env", "renderings", "stdout", "unwind"})


def trace_json(header: Mapping[str, Any], steps: Iterable[RecordedStep]) -> str:
    """The whole trace: ``header`` fields, then ``"frames"`` and ``"steps"``, one per line."""
    writer = StepWriter()
    steps = list(steps)  # the writer caches by object id: every step must stay alive until written
    # Formatting allocates only strings, which cannot form cycles: pausing the collector here
    # saves it from rescanning the (large) step list again and again.
    with collector.paused():
        body = ",\n".join(map(writer.step, steps))
    ranks = header.get("ranks")
    header = {key: value for key, value in header.items() if key not in ("ranks", "steps", "frames")}
    head = dumps(header)[:-1] + (',\n"ranks":' + ranks_json(ranks) if ranks is not None else "")
    head += ',\n"frames":[\n' + ",\n".join(writer.frames) + "\n]" if writer.frames else ',\n"frames":[]'
    return head + (',\n"steps":[\n' + body + "\n]}\n" if body else ',"steps":[]}\n')


def ranks_json(ranks: dict[str, Any]) -> str:
    """The ``ranks`` field with each rank's steps one per line, like the trace's own steps."""
    launches = []
    for launch in ranks["launches"]:
        streams = []
        for stream in launch["streams"]:
            head = dumps({key: value for key, value in stream.items() if key not in ("steps", "frames")})[:-1]
            if stream.get("frames"):
                head += ',"frames":[\n' + ",\n".join(map(dumps, stream["frames"])) + "\n]"
            body = ",\n".join(map(dumps, stream["steps"]))
            streams.append(head + (',"steps":[\n' + body + "\n]}" if body else ',"steps":[]}'))
        head = dumps({key: value for key, value in launch.items() if key != "streams"})[:-1]
        launches.append(head + ',"streams":[\n' + ",\n".join(streams) + "\n]}")
    head = dumps({key: value for key, value in ranks.items() if key != "launches"})[:-1]
    return head + ',"launches":[\n' + ",\n".join(launches) + "\n]}"
