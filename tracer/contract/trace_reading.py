"""Reading trace files: :func:`load_trace` (read, upgrade, validate, expand) and :func:`read_header`.

Every read is bounded before any reader walks the data: a file over ``MAX_TRACE_NBYTES`` is not
parsed, and JSON nested deeper than ``MAX_TRACE_DEPTH`` is refused. Every problem is a
``TraceError`` whose text is one line naming the file. It must not write files.

The trace writer puts the header (every top-level field but ``ranks``, ``frames`` and ``steps``) on
the file's first line, and nothing else there; :func:`read_header` reads only that line, so its cost
is the header's, not the trace's (a 200,000-step trace's header is a few kilobytes of its 20 MB).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from tracer.contract import collector
from tracer.contract.trace_format import READABLE_VERSIONS, Frame, FramePosition, Step, Trace, TraceError
from tracer.contract.trace_upgrade import upgrade
from tracer.contract.trace_validation import validation_error

# A trace file larger than this is refused before it is parsed (reading it would take the build's
# memory and time). A 100,000-step lecture with values on every step stays well below it.
MAX_TRACE_NBYTES = 256 * 1024 * 1024
# JSON nesting deeper than this is refused: the deepest valid trace (a 64-dimensional tensor preview
# inside an inspected container) stays below it, and readers that walk values recursively stay far
# from Python's recursion limit.
MAX_TRACE_DEPTH = 100


def nesting_problem(data: Any, limit: int = MAX_TRACE_DEPTH) -> str | None:
    """Where ``data`` (parsed JSON) nests deeper than ``limit`` levels, as "at PATH", or None.

    Iterative and linear in the data's size, so a hostile trace cannot make it (or the readers
    after it, which recurse into values) run out of stack. The data is first taken a level at a
    time, without paths (a 10,000-step trace in 30 ms, where the walk that names the path takes 80);
    the path is looked for only when it is too deep."""
    level, depth = [data], 1
    while level:
        if depth > limit:
            break
        level = [
            child
            for node in level
            for child in (node.values() if type(node) is dict else node)
            if type(child) is dict or type(child) is list
        ]
        depth += 1
    else:
        return None
    todo: list[tuple[Any, int, str]] = [(data, 1, "")]
    pop, push = todo.pop, todo.append
    while todo:
        node, depth, where = pop()
        if depth > limit:
            return f"at {where.strip('/') or '(top level)'}"
        children = node.items() if isinstance(node, dict) else enumerate(node)
        for key, child in children:
            if isinstance(child, (dict, list)):
                # Name only the first levels of the path: enough to find the step and the value.
                push((child, depth + 1, f"{where}/{key}" if depth <= 4 else where))
    return None


def _parse(path: Path) -> Any:
    """The JSON in ``path``, refused before parsing when too large and after it when nested too deep."""
    try:
        nbytes = path.stat().st_size
    except FileNotFoundError:
        raise TraceError(f"{path}: no such trace file") from None
    except OSError as exc:
        raise TraceError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if nbytes > MAX_TRACE_NBYTES:
        raise TraceError(f"{path}: {nbytes:,} bytes, over the {MAX_TRACE_NBYTES:,}-byte limit for a trace; not read")
    try:
        with collector.paused():  # parsing makes no cycles: the collector's passes would find nothing
            data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TraceError(f"{path}: no such trace file") from None
    except RecursionError:
        raise TraceError(f"{path}: nested deeper than the {MAX_TRACE_DEPTH}-level limit for a trace; not read") from None
    except OSError as exc:
        raise TraceError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except (UnicodeDecodeError, ValueError) as exc:  # ValueError: also ints past Python's digit limit
        raise TraceError(f"{path}: not valid JSON ({exc})") from None
    if isinstance(data, (dict, list)):
        deep = nesting_problem(data)
        if deep:
            raise TraceError(f"{path}: nested deeper than the {MAX_TRACE_DEPTH}-level limit for a trace {deep}; not read")
    return data


def _expand(frames: list[FramePosition], steps: list[Step], where: str) -> None:
    stacks: list[list[Frame]] = []
    for k, position in enumerate(frames):
        parent = position["parent"]
        if parent is None:
            stacks.append([{"path": position["path"], "line": position["line"], "function": position["function"]}])
        elif type(parent) is int and 0 <= parent < k:
            stacks.append(
                stacks[parent] + [{"path": position["path"], "line": position["line"], "function": position["function"]}]
            )
        else:  # a caller listed after its callee could form a cycle
            raise TraceError(f"at {where}frames/{k}/parent: {parent!r} is not the index of an earlier frame")
    count = len(stacks)
    for n, step in enumerate(steps):
        at = step["frame"]
        if not 0 <= at < count:
            raise TraceError(f"at {where}steps/{n}/frame: {at} is not an index of frames ({count} frames)")
        step["stack"] = stacks[at]


def expand_stacks(trace: Trace) -> Trace:
    """Give every step (the trace's and each rank stream's) its ``stack``, from the frame tables.

    Steps at one position share one list (memory grows with the distinct positions, and is never
    written back). Raises TraceError (without a file name) when a step or a caller names no frame."""
    _expand(trace.get("frames") or [], trace["steps"], "")
    for i, launch in enumerate((trace.get("ranks") or {}).get("launches") or []):  # type: ignore[call-overload]
        for j, stream in enumerate(launch["streams"]):
            _expand(stream.get("frames") or [], stream["steps"], f"ranks/launches/{i}/streams/{j}/")
    return trace


def load_trace(path: str | os.PathLike[str], *, validate: bool = True) -> Trace:
    """Read, (by default) validate and expand a trace; raise TraceError naming the file on any problem.

    Bounded before any reader walks it: a file over MAX_TRACE_NBYTES is not parsed, and JSON nested
    deeper than MAX_TRACE_DEPTH is refused. A version 1 trace is upgraded to the current version."""
    path = Path(path)
    data = _parse(path)
    if not isinstance(data, dict):
        raise TraceError(f"{path}: not a trace (top level is {type(data).__name__}, expected an object)")
    version = data.get("schema_version")
    if version not in READABLE_VERSIONS:
        raise TraceError(
            f"{path}: schema_version {version!r}, this chalktrace reads {', '.join(map(str, READABLE_VERSIONS))}; re-trace it"
        )
    try:
        upgrade(data)
    except TraceError as exc:
        raise TraceError(f"{path}: invalid trace {exc}") from None
    if validate:
        problem = validation_error(data)
        if problem:
            raise TraceError(f"{path}: invalid trace {problem}")
    try:
        return expand_stacks(data)  # type: ignore[arg-type]
    except TraceError as exc:
        raise TraceError(f"{path}: invalid trace {exc}") from None
    except (KeyError, TypeError, AttributeError) as exc:  # not validated: not the shape of a trace
        raise TraceError(f"{path}: invalid trace ({type(exc).__name__}: {exc})") from None


# The header line is at most this long; a longer first line is read the slow way (the whole file).
MAX_HEADER_NBYTES = 64 * 1024 * 1024
# What follows the header line in a file the trace writer wrote: the first field it leaves out.
_AFTER_HEADER = re.compile(rb'\s*"(ranks|frames|steps)":')
# path -> ((inode, size, mtime), header): a command asks about one trace several times (the CUDA
# guard, the run's before and after); a replaced file (a new inode, size or time) is read again.
_headers: dict[str, tuple[tuple[int, int, int], dict[str, Any]]] = {}


def read_header(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """A trace's top-level fields without validating it (``ranks``, ``frames`` and ``steps`` may be
    left out), or None when it is missing, unreadable, or past the size and depth limits
    (:func:`load_trace` says which).

    For freshness checks (``tracer.commands.freshness``), which must cope with old or broken traces.
    Reads the header line alone when the file has the writer's layout, else the whole file."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    stamp = (status.st_ino, status.st_size, status.st_mtime_ns)
    key = os.fspath(path)
    cached = _headers.get(key)
    if cached is not None and cached[0] == stamp:
        return json.loads(json.dumps(cached[1]))  # a copy: callers may change what they get
    header = _header_line(Path(path))
    if header is None:
        try:
            data = _parse(Path(path))
        except TraceError:
            return None
        if not isinstance(data, dict):
            return None
        header = data
    else:
        if len(_headers) > 64:
            _headers.clear()
        _headers[key] = (stamp, header)
        header = json.loads(json.dumps(header))
    return header


def _header_line(path: Path) -> dict[str, Any] | None:
    """The header from the first line of a trace in the writer's layout, or None (another layout,
    or a problem the whole-file read names)."""
    try:
        with open(path, "rb") as stream:
            line = stream.readline(MAX_HEADER_NBYTES)
            rest = stream.read(32)
    except OSError:
        return None
    if not line.startswith(b"{") or not line.endswith(b",\n") or not _AFTER_HEADER.match(rest):
        return None
    try:
        header = json.loads(line[:-2] + b"}")
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(header, dict) or nesting_problem(header):
        return None
    return header
