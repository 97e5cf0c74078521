"""Trace data as the short text ``chalktrace diff`` and ``check`` print: numbers grouped and exact,
a Value as its family writes it (``site/cards/value_families.diff_text``), a rendering by its kind.

This module must not compare traces (``trace_diff`` does) nor print.
"""

from __future__ import annotations

import json
import math
from typing import Any

from tracer.site.cards import value_families


def show_number(value: int | float) -> str:
    """``151008000`` as ``151,008,000``; floats as Python writes them (exact), grouped when integral."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if math.isfinite(value) and value == int(value) and abs(value) < 1e15:
        return f"{value:,.1f}"
    return repr(value)


def show(value: Any, limit: int = 60) -> str:
    """A Value (or plain trace data) as short text."""
    text = _show(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _show(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, (int, float)):
        return show_number(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    if not isinstance(value, dict):
        return json.dumps(value)
    shown = value_families.diff_text(value, _show)
    if shown is not None:
        return shown
    kind = value.get("type")
    if kind == "table":
        return f"table {show_number(value.get('total_rows') or 0)} rows"
    if kind in ("markdown", "note", "code", "callout"):
        return f"{kind} {value.get('data')!r}"
    if kind == "diff":
        return f"diff {value.get('a')!r} -> {value.get('b')!r}"
    if kind == "columns":
        return "columns " + " | ".join(repr(cell) for cell in value.get("cells") or [])
    if kind in ("image", "link", "plot"):
        return f"{kind} {value.get('url') or value.get('title') or value.get('data') or ''}".rstrip()
    if "repr" in value:
        return str(value.get("repr"))
    return kind or json.dumps(value, sort_keys=True)
