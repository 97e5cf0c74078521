"""What changed between two traces of a lecture: plain records first (:func:`diff_traces`), text second.

``chalktrace diff A B`` prints them, and ``chalktrace check`` reports a fresh run's differences from the
committed trace as drift with the same lines. Steps are aligned by file, line and occurrence (the
n-th time that line ran); when the two traces recorded different text for a file, lines are first
mapped through a text diff of the two sources, so an edit above a value does not misalign every
step after it. For each pair of aligned steps it compares the recorded values (tensors and arrays:
dtype, shape, stride and the largest difference in the preview; containers item by item), memory,
``@flops`` counts, collectives, renderings and output; steps present in one trace only are listed as
added or removed. Fields the format declares run-dependent (``run_dependent.RUN_DEPENDENT``) are
marked ``run_dependent`` so drift can leave them out. It must not run lectures, read or write files,
or render pages: it takes two loaded traces and returns records and strings.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import asdict, dataclass
from typing import Any, Iterable, Iterator

from tracer.commands.run_dependent import (
    RUN_DEPENDENT_COLLECTIVE,
    RUN_DEPENDENT_COMPUTE,
    is_timing_name,
    memory_is_run_dependent,
    float_rounding,
    same_within_rounding,
    within_float_rounding,
)
from tracer.contract.addresses import mask_addresses
from tracer.contract.trace_format import Step, Trace
from tracer.commands.diff_text import show
from tracer.site.cards import value_families

CHANGED, ADDED, REMOVED = "changed", "added", "removed"
# What a change is about; drift counts every kind but "environment".
KINDS = ("value", "memory", "compute", "collective", "step", "rendering", "output", "error", "status", "warning", "environment")
EDITED_LINE_SIMILARITY = 0.6  # how alike a replaced line and its replacement must be to count as one line, edited
MAX_LINES_PER_VALUE = 12  # a changed container or dict reports at most this many of its items
# Install paths as a trace made before paths were written portably (or by another tool) holds them:
# compared in their portable forms (tracer.capture.portable_paths writes new traces that way).
_SITE_PACKAGES = re.compile(r"(?:[^\s\"'()<>]*/)?lib/python3\.\d+/(?:site|dist)-packages/")
_STDLIB = re.compile(r"(?:[^\s\"'()<>]*/)?lib/python3\.\d+/")


def portable_text(text: str) -> str:
    """``text`` with per-run addresses masked and install paths in their portable forms."""
    text = mask_addresses(text)
    if "lib/python3" in text:
        text = _STDLIB.sub("<stdlib>/", _SITE_PACKAGES.sub("<site-packages>/", text))
    return text


_COLLECTIVE_FIELDS = (
    "op",
    "dtype",
    "shape",
    "nbytes",
    "sent_nbytes",
    "received_nbytes",
    "algorithm",
    "group_size",
    "backend",
    "async_op",
    "root",
    "peer",
    "reduce_op",
    "peak",
)


@dataclass(frozen=True)
class Change:
    """One difference. ``old``/``new`` are trace data (a Value, a number, a text), None when absent."""

    kind: str  # one of KINDS
    status: str  # CHANGED, ADDED or REMOVED
    name: str  # the value (``x``, ``x[1, 2]``, ``x shape``), or what else changed (``memory``, ``stdout``, ...)
    old: Any = None
    new: Any = None
    path: str | None = None  # the lecture file; None for the trace as a whole
    line: int | None = None  # the new trace's line (the old one's for a removed step)
    run: int | None = None  # which run of the line (1-based), when it ran more than once
    rank: int | None = None  # the rank stream, in a distributed trace
    before: bool = False  # ``line`` is the old trace's (a removed step's)
    detail: str = ""
    run_dependent: bool = False


# -- aligning steps --------------------------------------------------------------------------------
def line_map(old_text: str, new_text: str) -> dict[int, int]:
    """New line number -> old line number for lines the edit kept (and lines replaced one for one)."""
    old_lines, new_lines = old_text.splitlines(), new_text.splitlines()
    mapping: dict[int, int] = {}
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                mapping[j1 + k + 1] = i1 + k + 1
        elif tag == "replace":  # an edited line: paired, in order, with the most similar replacement line
            start = j1
            for i in range(i1, i2):
                scored = [
                    (difflib.SequenceMatcher(None, old_lines[i], new_lines[j], autojunk=False).ratio(), j)
                    for j in range(start, j2)
                ]
                best = max(scored, default=(0.0, -1), key=lambda pair: pair[0])
                if best[0] >= EDITED_LINE_SIMILARITY:
                    mapping[best[1] + 1] = i + 1
                    start = best[1] + 1
    return mapping


_Key = tuple[str, int, int]  # (path, line in the old trace's numbering, occurrence)


def _keyed(steps: list[Step], maps: dict[str, dict[int, int]] | None) -> tuple[dict[_Key, int], dict[tuple[str, int], int]]:
    """Each step's alignment key, and how many times each (path, line) ran. A new line without an old
    counterpart gets a negative line, so it matches nothing."""
    keys: dict[_Key, int] = {}
    counts: dict[tuple[str, int], int] = {}
    for index, step in enumerate(steps):
        frame = step["stack"][-1]
        path, line = frame["path"], frame["line"]
        if maps is not None and path in maps:
            line = maps[path].get(line, -line)
        n = counts.get((path, line), 0) + 1
        counts[(path, line)] = n
        keys[(path, line, n)] = index
    return keys, counts


def _align(
    old: list[Step], new: list[Step], old_files: dict[str, str], new_files: dict[str, str]
) -> Iterator[tuple[int | None, int | None, int | None]]:
    """(old index, new index, run number or None) for every step, in the new trace's order, removed ones last."""
    maps = {
        path: line_map(old_files[path], text) for path, text in new_files.items() if path in old_files and old_files[path] != text
    }
    old_keys, old_counts = _keyed(old, None)
    new_keys, new_counts = _keyed(new, maps)
    for key, index in new_keys.items():
        runs = max(new_counts[key[:2]], old_counts.get(key[:2], 0))
        yield old_keys.get(key), index, key[2] if runs > 1 else None
    for key, index in old_keys.items():
        if key not in new_keys:
            yield index, None, key[2] if old_counts[key[:2]] > 1 else None


# -- comparing values ------------------------------------------------------------------------------
def _masked(value: Any) -> Any:
    """``value`` with per-run addresses (``0x7f…``) in its texts masked and install paths portable."""
    if isinstance(value, str):
        return portable_text(value)
    if isinstance(value, dict):
        return {k: _masked(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked(v) for v in value]
    return value


def value_changes(name: str, old: Any, new: Any) -> list[tuple[str, Any, Any, str]]:
    """(name, old, new, detail) for each difference between two recorded Values of ``name``."""
    out: list[tuple[str, Any, Any, str]] = []
    _compare(name, old, new, out)
    return _capped(name, out)


def _capped(name: str, out: list[tuple[str, Any, Any, str]]) -> list[tuple[str, Any, Any, str]]:
    if len(out) > MAX_LINES_PER_VALUE:
        rest = len(out) - MAX_LINES_PER_VALUE
        out = out[:MAX_LINES_PER_VALUE] + [(name, None, None, f"and {rest} more difference(s) in {name}")]
    return out


def _compare(name: str, a: Any, b: Any, out: list[tuple[str, Any, Any, str]]) -> None:
    if _masked(a) == _masked(b):
        return
    kind = a.get("type") if isinstance(a, dict) else None
    if not isinstance(a, dict) or not isinstance(b, dict) or kind != b.get("type"):
        out.append((name, a, b, ""))
    else:  # each kind's family says how two of its values differ (containers: item by item)
        value_families.compare(name, a, b, out, _compare, show)


# -- comparing traces ------------------------------------------------------------------------------
def diff_traces(old: Trace, new: Trace) -> list[Change]:
    """Every difference between ``old`` and ``new``, trace-level ones first, then step by step in the
    new trace's order (steps only in ``old`` last), then each rank stream's."""
    changes: list[Change] = []
    env_a, env_b = old.get("environment") or {}, new.get("environment") or {}
    for field in list(env_a) + [f for f in env_b if f not in env_a]:
        if env_a.get(field) != env_b.get(field):
            changes.append(Change("environment", CHANGED, f"environment {field}", env_a.get(field), env_b.get(field)))
    if old.get("status") != new.get("status"):
        changes.append(Change("status", CHANGED, "status", old.get("status"), new.get("status")))
    error_a, error_b = _error_text(old.get("error")), _error_text(new.get("error"))
    if error_a != error_b:
        changes.append(Change("error", _status(error_a, error_b), "error", error_a, error_b))
    if (old.get("truncated") or {}) != (new.get("truncated") or {}):
        changes.append(Change("status", CHANGED, "truncated", old.get("truncated"), new.get("truncated")))
    changes.extend(_list_changes("warning", "warning", old.get("warnings") or [], new.get("warnings") or []))
    files_a, files_b = old.get("files") or {}, new.get("files") or {}
    rounding = float_rounding(env_a, env_b)
    changes.extend(
        _steps_changes(
            old["steps"],
            new["steps"],
            files_a,
            files_b,
            None,
            memory_is_run_dependent(new, False) or memory_is_run_dependent(old, False),
            rounding,
        )
    )
    launches_a: list[Any] = (old.get("ranks") or {}).get("launches") or []  # type: ignore[call-overload]
    launches_b: list[Any] = (new.get("ranks") or {}).get("launches") or []  # type: ignore[call-overload]
    for number, (la, lb) in enumerate(zip(launches_a, launches_b), 1):
        streams_a = {s["rank"]: s for s in la["streams"]}
        streams_b = {s["rank"]: s for s in lb["streams"]}
        for rank in sorted(set(streams_a) | set(streams_b)):
            sa, sb = streams_a.get(rank), streams_b.get(rank)
            if sa is None or sb is None:
                changes.append(
                    Change(
                        "step",
                        _status(sa, sb),
                        f"launch {number} rank {rank}",
                        rank=rank,
                        old=len(sa["steps"]) if sa else None,
                        new=len(sb["steps"]) if sb else None,
                        detail="steps",
                    )
                )
                continue
            if sa.get("status") != sb.get("status"):
                changes.append(Change("status", CHANGED, "status", sa.get("status"), sb.get("status"), rank=rank))
            changes.extend(_steps_changes(sa["steps"], sb["steps"], files_a, files_b, rank, True, rounding))
    for number in range(len(launches_b), len(launches_a)):
        changes.append(Change("step", REMOVED, f"launch {number + 1}", old=launches_a[number]["world_size"], detail="ranks"))
    for number in range(len(launches_a), len(launches_b)):
        changes.append(Change("step", ADDED, f"launch {number + 1}", new=launches_b[number]["world_size"], detail="ranks"))
    return changes


def _status(old: Any, new: Any) -> str:
    return ADDED if old is None else REMOVED if new is None else CHANGED


def _error_text(error: Any) -> str | None:
    return f"{error.get('type')}: {error.get('message')}" if error else None


def _list_changes(kind: str, name: str, old: list[Any], new: list[Any], rounding: float = 0.0, **where: Any) -> list[Change]:
    """Items added to or removed from a list (renderings, warnings), matched as whole items."""
    keys_a = [json.dumps(_masked(item), sort_keys=True) for item in old]
    keys_b = [json.dumps(_masked(item), sort_keys=True) for item in new]
    out: list[Change] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, keys_a, keys_b, autojunk=False).get_opcodes():
        # A rendering whose numbers moved only by float rounding (a plot of losses) is the same rendering.
        rounded = tag == "replace" and same_within_rounding(_masked(old[i1:i2]), _masked(new[j1:j2]), rounding)
        if tag in ("delete", "replace"):
            out.extend(Change(kind, REMOVED, name, old=item, run_dependent=rounded, **where) for item in old[i1:i2])
        if tag in ("insert", "replace"):
            out.extend(Change(kind, ADDED, name, new=item, run_dependent=rounded, **where) for item in new[j1:j2])
    return out


def _steps_changes(
    old: list[Step],
    new: list[Step],
    files_a: dict[str, str],
    files_b: dict[str, str],
    rank: int | None,
    memory_varies: bool,
    rounding: float,
) -> list[Change]:
    changes: list[Change] = []
    added: dict[tuple[str, int], int] = {}
    removed: dict[tuple[str, int], int] = {}
    for i, j, run in _align(old, new, files_a, files_b):
        if i is None or j is None:
            step = new[j] if j is not None else old[i]  # type: ignore[index]
            frame = step["stack"][-1]
            tally = added if i is None else removed
            tally[(frame["path"], frame["line"])] = tally.get((frame["path"], frame["line"]), 0) + 1
            # What the lone step recorded, rendered or printed is added (or removed) with it.
            where = {"path": frame["path"], "line": frame["line"], "run": run, "rank": rank, "before": j is None}
            blank: Step = {
                "frame": step.get("frame", -1),
                "stack": step["stack"],
                "env": {},
                "renderings": [],
                "stdout": "",
                "memory": step["memory"],
            }
            pair = (blank, step) if i is None else (step, blank)
            changes.extend(_step_changes(*pair, where, memory_varies, rounding))
            continue
        frame = new[j]["stack"][-1]
        where = {"path": frame["path"], "line": frame["line"], "run": run, "rank": rank}
        changes.extend(_step_changes(old[i], new[j], where, memory_varies, rounding))
    for tally, status in ((added, ADDED), (removed, REMOVED)):
        for (path, line), count in tally.items():
            changes.append(
                Change(
                    "step",
                    status,
                    "step" if count == 1 else f"{count} steps",
                    path=path,
                    line=line,
                    rank=rank,
                    before=status == REMOVED,
                )
            )
    return _new_memory_differences(changes)


def _new_memory_differences(changes: list[Change]) -> list[Change]:
    """Memory differences where they begin: a step whose (old, new) figures are the previous step's is left out."""
    kept: list[Change] = []
    last: dict[str, tuple[Any, Any]] = {}
    for change in changes:
        if change.kind == "memory":
            if last.get(change.name) == (change.old, change.new):
                continue
            last[change.name] = (change.old, change.new)
        kept.append(change)
    return kept


def _step_changes(a: Any, b: Any, where: dict[str, Any], memory_varies: bool, rounding: float) -> list[Change]:
    """The differences between two aligned steps (plain dicts: a lone step is paired with a blank one)."""
    out: list[Change] = []
    env_a, env_b = a.get("env") or {}, b.get("env") or {}
    for name in list(env_b) + [n for n in env_a if n not in env_b]:
        x, y = env_a.get(name), env_b.get(name)
        timing = is_timing_name(name)
        if x is None or y is None:
            out.append(Change("value", _status(x, y), name, x, y, **where))
            continue
        dtype = y.get("dtype") if isinstance(y, dict) else None
        found: list[tuple[str, Any, Any, str]] = []
        _compare(name, x, y, found)
        rounded = [f for f in found if within_float_rounding(f[1], f[2], dtype, rounding)]
        exact = [f for f in found if not within_float_rounding(f[1], f[2], dtype, rounding)]
        for group, varies in ((_capped(name, exact), timing), (_capped(name, rounded), True)):
            for shown, old, new, detail in group:
                status = CHANGED if old is None and new is None else _status(old, new)  # an item of a container
                out.append(Change("value", status, shown, old, new, detail=detail, run_dependent=varies, **where))
    out.extend(_list_changes("rendering", "rendering", a.get("renderings") or [], b.get("renderings") or [], rounding, **where))
    out.extend(_list_changes("rendering", "speaker note", a.get("speaker_notes") or [], b.get("speaker_notes") or [], **where))
    for stream in ("stdout", "stderr"):
        x, y = a.get(stream) or "", b.get(stream) or ""
        if x != y and portable_text(x) != portable_text(y):
            out.append(Change("output", CHANGED, stream, x, y, **where))
    for field, label in (("nbytes", "memory"), ("peak_nbytes", "peak memory")):
        x, y = (a.get("memory") or {}).get(field), (b.get("memory") or {}).get(field)
        if x != y:
            out.append(Change("memory", CHANGED, label, x, y, run_dependent=memory_varies, **where))
    ca, cb = a.get("compute"), b.get("compute")
    if ca is None or cb is None:
        if ca is not None or cb is not None:
            out.append(Change("compute", _status(ca, cb), "@flops", (ca or {}).get("flops"), (cb or {}).get("flops"), **where))
    else:
        for field in list(cb) + [f for f in ca if f not in cb]:
            x, y = ca.get(field), cb.get(field)
            if x != y:
                name = "FLOPs" if field == "flops" else f"@flops {field}"
                out.append(Change("compute", CHANGED, name, x, y, run_dependent=field in RUN_DEPENDENT_COMPUTE, **where))
    colls_a, colls_b = a.get("collectives") or [], b.get("collectives") or []
    for k in range(max(len(colls_a), len(colls_b))):
        x = colls_a[k] if k < len(colls_a) else None
        y = colls_b[k] if k < len(colls_b) else None
        label = (y or x or {}).get("op", "collective")
        if x is None or y is None:
            out.append(Change("collective", _status(x, y), label, x, y, **where))
            continue
        for field in _COLLECTIVE_FIELDS + tuple(sorted(RUN_DEPENDENT_COLLECTIVE)):
            if x.get(field) != y.get(field):
                out.append(
                    Change(
                        "collective",
                        CHANGED,
                        f"{label} {field}",
                        x.get(field),
                        y.get(field),
                        run_dependent=field in RUN_DEPENDENT_COLLECTIVE,
                        **where,
                    )
                )
    error_a, error_b = _error_text(a.get("error")), _error_text(b.get("error"))
    if error_a != error_b:
        out.append(Change("error", _status(error_a, error_b), "error", error_a, error_b, **where))
    return out


def drift(changes: Iterable[Change]) -> list[Change]:
    """The changes that are not expected between two runs of one lecture on one machine."""
    return [c for c in changes if not c.run_dependent and c.kind != "environment"]


# -- text (values: diff_text.show) ---------------------------------------------------------------


def location(change: Change) -> str:
    """``lectures/x.py:12`` (run 3, rank 1 when they apply); empty for the trace as a whole."""
    if change.path is None:
        return f"rank {change.rank}" if change.rank is not None else ""
    text = f"{change.path}:{change.line}"
    extras = ["before"] if change.before else []
    if change.run is not None:
        extras.append(f"run {change.run}")
    if change.rank is not None:
        extras.append(f"rank {change.rank}")
    return text + (f" ({', '.join(extras)})" if extras else "")


def format_change(change: Change, old_label: str | None = None, new_label: str | None = None) -> str:
    """One line: ``file:line name: old → new``, or with labels ``old committed, new now``."""
    where = location(change)
    head = f"{where} {change.name}" if where else change.name
    if change.kind == "step":
        counted = change.old if change.new is None else change.new
        suffix = f" ({show(counted)} {change.detail})" if change.detail else ""
        return f"{head}: {change.status}{suffix}"
    if change.old is None and change.new is None:
        return f"{head}: {change.detail}"
    if change.kind == "output":
        body = _output_change(change.old, change.new)
    elif change.status == ADDED:
        body = "added" if change.kind == "step" else f"added {show(change.new)}"
    elif change.status == REMOVED:
        body = "removed" if change.kind == "step" else f"removed {show(change.old)}"
    elif old_label and new_label:
        body = f"{show(change.old)} {old_label}, {show(change.new)} {new_label}"
    else:
        body = f"{show(change.old)} → {show(change.new)}"
    suffix = f" ({change.detail})" if change.detail else ""
    return f"{head}: {body}{suffix}"


def _output_change(old: str, new: str) -> str:
    lines_a, lines_b = old.splitlines(), new.splitlines()
    gone = [line for line in lines_a if line not in lines_b]
    came = [line for line in lines_b if line not in lines_a]
    parts = []
    if gone:
        parts.append(f"{len(gone)} line(s) removed, first {show(gone[0], 40)!r}")
    if came:
        parts.append(f"{len(came)} line(s) added, first {show(came[0], 40)!r}")
    return "; ".join(parts) or f"{show(old, 30)!r} → {show(new, 30)!r}"


def to_json(changes: list[Change], old_label: str | None = None, new_label: str | None = None) -> list[dict[str, Any]]:
    """JSON-ready records, each with its one-line ``text``."""
    return [dict(asdict(c), text=format_change(c, old_label, new_label)) for c in changes]
