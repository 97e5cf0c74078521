"""``# @animate`` lines as the site shows them: one rendering at a time in step mode, all at once in read mode.

The recorder marks the renderings of an ``@animate`` line (``animate: true``). ``expand_animations``
turns the step holding N such renderings into N consecutive steps of the same line, each with one
rendering and the part it is (``animation_part``: ``(k, N)``); the last keeps the step's values,
output and everything else. Every site consumer then reads the same step numbers: step mode steps
through the parts, and ``viewer_data`` shows parts 1..k together on part k, so the renderings
build up; read mode (``line_records``) collects each rendering once and counts the line as one
run. Applied once, when the plugin loads a trace; distributed traces are left as they are. This
module must not produce markup.
"""

from __future__ import annotations

from typing import Any, cast

from tracer.contract.trace_format import Step, Trace

PART_KEY = "animate_part"  # on expanded steps only, never in a trace file: [k, N]


def animation_part(step: Step) -> tuple[int, int] | None:
    """``(k, N)`` for the k-th of the N steps an ``@animate`` line was laid out as, else None."""
    part = cast(dict[str, Any], step).get(PART_KEY)
    return (part[0], part[1]) if part else None


def is_partial(step: Step) -> bool:
    """A part before the last: it shows a rendering, but the line's run completes on the last part."""
    part = animation_part(step)
    return part is not None and part[0] < part[1]


def expand_animations(trace: Trace) -> Trace:
    """``trace`` with each step of two or more ``@animate`` renderings laid out as one step per rendering."""
    if trace.get("ranks") or not any(
        len(s["renderings"]) > 1 and all(r.get("animate") for r in s["renderings"]) for s in trace["steps"]
    ):
        return trace
    steps: list[Step] = []
    for step in trace["steps"]:
        renderings = step["renderings"]
        if len(renderings) < 2 or not all(r.get("animate") for r in renderings):
            steps.append(step)
            continue
        count = len(renderings)
        for k, rendering in enumerate(renderings[:-1], start=1):
            plain = cast(dict[str, Any], step)
            part: dict[str, Any] = {key: plain[key] for key in ("frame", "stack") if key in plain}
            part.update(env={}, renderings=[rendering], stdout="", memory=step["memory"])
            part[PART_KEY] = [k, count]
            steps.append(cast(Step, part))
        steps.append(cast(Step, {**step, "renderings": [renderings[-1]], PART_KEY: [count, count]}))
    return {**trace, "steps": steps}
