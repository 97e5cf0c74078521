"""Validating a parsed trace against ``trace.schema.json``, in time linear in the trace's size.

:func:`validation_error` names the first violation in one line. It must not read files (that is
``trace_reading``) or change the trace it checks.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from tracer.contract.value_kinds import schema_branches

SCHEMA_PATH = Path(__file__).with_name("trace.schema.json")


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """``trace.schema.json`` with each value kind's required fields added (from ``value_kinds``)."""
    loaded = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    loaded["$defs"]["value"]["allOf"] += schema_branches()
    return loaded


def _distinct_steps(trace: Any) -> tuple[Any, list[int] | None]:
    """``trace`` with each distinct step kept once, and the original index of each kept step.

    A step's validity depends on its content alone, and long traces repeat plain steps (a loop body,
    the same memory figure) tens of thousands of times: validating each distinct one once makes
    validation cost what the trace's variety costs, not its length. The step's ``frame`` (an index,
    range-checked by :func:`expand_stacks`) and its in-memory ``stack`` are left out of the
    comparison, so the steps of a deep recursion, which differ only there, count once.
    """
    steps = trace.get("steps") if isinstance(trace, dict) else None
    if not isinstance(steps, list) or len(steps) < 64:
        return trace, None
    seen: set[str] = set()
    unique: list[Any] = []
    origin: list[int] = []
    for index, step in enumerate(steps):
        try:
            if isinstance(step, dict) and isinstance(step.get("frame"), int) and step["frame"] >= 0:
                key = json.dumps({k: v for k, v in step.items() if k != "frame" and k != "stack"}, sort_keys=True)
            else:
                key = None
        except (TypeError, ValueError):
            key = None  # not JSON data: validate it as it is
        if key is None or key not in seen:
            if key is not None:
                seen.add(key)
            unique.append(step)
            origin.append(index)
    return {**trace, "steps": unique}, origin


def _frames_problem(frames: Any, where: str) -> str | None:
    """The first entry of a ``frames`` table that breaks the schema's ``frame_position``, checked by
    hand: every position is distinct, so the table gains nothing from step deduplication, and a
    deep recursion has thousands of them."""
    if not isinstance(frames, list):
        return None  # the schema says what it should be
    for k, position in enumerate(frames):
        if not isinstance(position, dict):
            return f"at {where}frames/{k}: {position!r:.60} is not of type 'object'"
        for name in ("path", "line", "function", "parent"):
            if name not in position:
                return f"at {where}frames/{k}: {name!r} is a required property"
        path, line, function, parent = position["path"], position["line"], position["function"], position["parent"]
        if not isinstance(path, str) or path.startswith("/") or (len(path) > 2 and path[1:3] == ":\\"):
            return f"at {where}frames/{k}/path: {path!r:.80} is not a project-relative path"
        if type(line) is not int or line < 1:
            return f"at {where}frames/{k}/line: {line!r:.40} is not an integer of at least 1"
        if not isinstance(function, str):
            return f"at {where}frames/{k}/function: {function!r:.40} is not of type 'string'"
        if parent is not None and (type(parent) is not int or not 0 <= parent < k):
            return f"at {where}frames/{k}/parent: {parent!r:.40} is not the index of an earlier frame"
    return None


def _without_frames(trace: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``trace`` with its frame tables (the trace's and each rank stream's) emptied, and the problems
    :func:`_frames_problem` finds in them."""
    problems = [p for p in [_frames_problem(trace.get("frames"), "")] if p]
    trace = {**trace, "frames": []} if isinstance(trace.get("frames"), list) else trace
    ranks = trace.get("ranks")
    if isinstance(ranks, dict) and isinstance(ranks.get("launches"), list):
        launches = []
        for i, launch in enumerate(ranks["launches"]):
            if isinstance(launch, dict) and isinstance(launch.get("streams"), list):
                streams = []
                for j, stream in enumerate(launch["streams"]):
                    if isinstance(stream, dict) and isinstance(stream.get("frames"), list):
                        problem = _frames_problem(stream["frames"], f"ranks/launches/{i}/streams/{j}/")
                        problems += [problem] if problem else []
                        stream = {**stream, "frames": []}
                    streams.append(stream)
                launch = {**launch, "streams": streams}
            launches.append(launch)
        trace["ranks"] = {**ranks, "launches": launches}
    return trace, problems


_FAST: list[Any] = []


def _fast_validator() -> Any:
    """The schema compiled by jsonschema-rs (Rust: a 100,000-step trace in about a second, where the
    Python validator takes a minute), or None where it is not installed."""
    if not _FAST:
        try:
            import jsonschema_rs
        except ImportError:
            _FAST.append(None)
        else:
            _FAST.append(jsonschema_rs.Draft202012Validator(schema()))
    return _FAST[0]


def validation_error(trace: Any) -> str | None:
    """The first schema violation in ``trace`` as one line, or None when it is valid.

    Linear in the trace's size: frame tables are checked by hand, in one pass; the compiled validator
    takes the whole trace (a 10,000-step trace in about 30 ms), and only when it finds a fault (or is
    not installed) does the Python validator take each distinct step once, to word the first one."""
    if isinstance(trace, dict):
        trace, problems = _without_frames(trace)
        if problems:
            return problems[0]
    fast = _fast_validator()
    if fast is not None and fast.is_valid(trace):
        return None  # (jsonschema words the first error when there is one: its messages are the ones users see)
    import jsonschema  # here, not above: importing it takes 0.3 s, and a valid trace never needs it

    trace, origin = _distinct_steps(trace)
    validator = jsonschema.Draft202012Validator(schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(trace))
    if error is None:
        return None
    path = list(error.absolute_path)
    if origin is not None and len(path) > 1 and path[0] == "steps" and isinstance(path[1], int):
        path[1] = origin[path[1]]  # the first step of the original list with that content
    where = "/".join(str(p) for p in path) or "(top level)"
    message = error.message if len(error.message) < 200 else error.message[:197] + "..."
    return f"at {where}: {message}"
