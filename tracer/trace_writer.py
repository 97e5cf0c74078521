"""Turn the recorder's step tuples into trace JSON text, fast.

Steps are written one per line (readable diffs of committed traces). The stack and memory
fragments repeat from step to step, so their JSON is built once and cached; only steps that carry
values, renderings or output go through ``json.dumps``. This module must not run lectures or
decide what a step contains: it only formats what the recorder collected.
"""

from __future__ import annotations

import json
from typing import Any, Iterable

_dumps = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode
_SKIP_EXTRAS = frozenset({"unwind"})


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


def _frame(path: str, line: int, function: str) -> str:
    return '{"path":%s,"line":%d,"function":%s}' % (_dumps(path), line, _dumps(function))


class StepWriter:
    """Formats step tuples ``(prefix, (path, function), line, extras, (nbytes, peak))``."""

    def __init__(self) -> None:
        self._prefixes: dict[tuple[Any, ...], str] = {}
        self._keys: dict[tuple[str, str], tuple[str, str]] = {}
        self._memory: dict[tuple[int, int], str] = {}

    def _prefix(self, prefix: tuple[Any, ...]) -> str:
        text = self._prefixes.get(prefix)
        if text is None:
            text = "".join(_frame(*position) + "," for position in prefix)
            self._prefixes[prefix] = text
        return text

    def step(self, step: tuple[Any, ...]) -> str:
        prefix, key, line, extras, memory = step
        parts = self._keys.get(key)
        if parts is None:
            parts = self._keys[key] = ('{"path":%s,"line":' % _dumps(key[0]), ',"function":%s}' % _dumps(key[1]))
        mem = self._memory.get(memory)
        if mem is None:
            mem = self._memory[memory] = '"memory":{"nbytes":%d,"peak_nbytes":%d}' % memory
        head = '{"stack":[' + self._prefix(prefix) + parts[0] + str(line) + parts[1] + "],"
        if extras is None:
            return head + '"env":{},"renderings":[],"stdout":"",' + mem + "}"
        text = (head + '"env":' + dumps(extras.get("env", {})) + ',"renderings":' + dumps(extras.get("renderings", []))
                + ',"stdout":' + dumps(extras.get("stdout", "")) + "," + mem)
        for name, value in extras.items():
            if name not in ("env", "renderings", "stdout") and name not in _SKIP_EXTRAS:
                text += "," + _dumps(name) + ":" + dumps(value)
        return text + "}"


def trace_json(header: dict[str, Any], steps: Iterable[tuple[Any, ...]]) -> str:
    """The whole trace: ``header`` fields, then ``"steps"`` one per line."""
    writer = StepWriter()
    body = ",\n".join(map(writer.step, steps))
    head = dumps(header)
    return head[:-1] + (',\n"steps":[\n' + body + "\n]}\n" if body else ',"steps":[]}\n')
