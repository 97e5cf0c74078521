"""Typed access to a loaded trace: what every consumer reads instead of walking raw dicts its own way.

It must not read files or change the trace.
"""

from __future__ import annotations

from typing import Iterator

from tracer.contract.trace_format import Frame, FramePosition, Rendering, Step, Trace


def step_frame(step: Step) -> Frame:
    """The frame a step is about: the innermost one, whose line was executed (a loaded step)."""
    return step["stack"][-1]


def stream_last_frame(frames: list[FramePosition], steps: list[Step]) -> Frame | None:
    """The frame of the last of ``steps`` (read from the ``frames`` table; steps need no ``stack``)."""
    if not steps:
        return None
    position = frames[steps[-1]["frame"]]
    return {"path": position["path"], "line": position["line"], "function": position["function"]}


def iter_renderings(trace: Trace) -> Iterator[tuple[int, Rendering]]:
    """(step index, rendering) for every rendering in the trace, in order."""
    for index, step in enumerate(trace["steps"]):
        for rendering in step["renderings"]:
            yield index, rendering


def local_images(trace: Trace) -> list[str]:
    """Project-relative paths of the local images and videos the lecture shows (URLs left out;
    cached copies of remote ones in), first use first: the site publishes these files."""
    found: dict[str, None] = {}
    for _index, rendering in iter_renderings(trace):
        if rendering.get("type") in ("image", "video") and not rendering.get("external"):
            found.setdefault(rendering["data"])
    return list(found)


def source_text(trace: Trace, path: str) -> str:
    """The recorded source of ``path`` ("" for a file without steps)."""
    return trace["files"].get(path, "")


def hidden_lines(trace: Trace, path: str) -> set[int]:
    return set(trace.get("hidden_lines", {}).get(path, ()))


def memory_nbytes(trace: Trace) -> list[int]:
    """Memory in use after each step (bytes)."""
    return [step["memory"]["nbytes"] for step in trace["steps"]]
