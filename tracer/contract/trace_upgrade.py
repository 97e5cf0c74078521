"""The version 1 upgrade: a version 1 trace (parsed JSON) rewritten, in place, as the current version.

Version 1 stored each step's whole stack; version 2 names one position of a ``frames`` table, and
writes float32/float16 elements as their shortest decimals. It must not read files or validate.
"""

from __future__ import annotations

from typing import Any

from tracer.contract.float_text import shorten_values
from tracer.contract.trace_format import SCHEMA_VERSION, FramePosition, TraceError


def _stack_problem(stack: Any) -> str | None:
    if not isinstance(stack, list) or not stack:
        return "expected a non-empty list of frames"
    for k, frame in enumerate(stack):
        if not (
            isinstance(frame, dict)
            and isinstance(frame.get("path"), str)
            and type(frame.get("line")) is int
            and isinstance(frame.get("function"), str)
        ):
            return f"{k}: expected a frame {{path, line, function}}"
    return None


def _stacks_to_frames(steps: Any, where: str) -> list[FramePosition]:
    """Version 1 steps (each with its whole ``stack``) rewritten in place to name positions of a
    ``frames`` table, which is returned: the same numbering the writer gives (first seen first)."""
    frames: list[FramePosition] = []
    index: dict[tuple[Any, ...], int] = {}
    if not isinstance(steps, list):
        return frames
    for n, step in enumerate(steps):
        if not isinstance(step, dict) or "stack" not in step:
            continue  # the schema names what is missing
        problem = _stack_problem(step["stack"])
        if problem:
            raise TraceError(f"at {where}steps/{n}/stack/{problem}")
        parent: int | None = None
        for frame in step.pop("stack"):
            key = (frame["path"], frame["line"], frame["function"], parent)
            found = index.get(key)
            if found is None:
                found = index[key] = len(frames)
                frames.append({"path": frame["path"], "line": frame["line"], "function": frame["function"], "parent": parent})
            parent = found
        step["frame"] = parent
    return frames


def upgrade(data: dict[str, Any]) -> dict[str, Any]:
    """A version 1 trace (parsed JSON) as version 2, in place: its stacks become frame tables, and
    its float32/float16 elements their shortest decimals (``float_text``)."""
    if data.get("schema_version") != 1:
        return data
    shorten_values(data.get("steps"))
    shorten_values(data.get("ranks"))
    data["frames"] = _stacks_to_frames(data.get("steps"), "")
    ranks = data.get("ranks")
    launches = ranks.get("launches") if isinstance(ranks, dict) else None
    for i, launch in enumerate(launches if isinstance(launches, list) else []):
        streams = launch.get("streams") if isinstance(launch, dict) else None
        for j, stream in enumerate(streams if isinstance(streams, list) else []):
            if isinstance(stream, dict) and stream.get("steps"):
                stream["frames"] = _stacks_to_frames(stream["steps"], f"ranks/launches/{i}/streams/{j}/")
    data["schema_version"] = SCHEMA_VERSION
    return data
