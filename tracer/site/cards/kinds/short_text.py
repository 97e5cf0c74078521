"""Short texts the families share: a value cut to a summary's width, a scalar in a few characters.

This module must not render markup nor know which family asks.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from tracer.site.cards.units import readable_number

SHORT_VALUE_CHARS = 40  # a short value is cut here, with "…"
# What a family's functions get for a nested value: the dispatcher's own entry point.
ViewFn = Callable[[dict[str, Any], int], dict[str, Any]]
SummaryFn = Callable[[dict[str, Any]], "dict[str, Any] | None"]
ShowFn = Callable[[Any], str]
Differences = list[tuple[str, Any, Any, str]]  # (name, old, new, detail) per difference
CompareFn = Callable[[str, Any, Any, Differences], None]


def cut(text: str) -> str:
    """``text`` on one line, cut to ``SHORT_VALUE_CHARS`` with "…"."""
    text = " ".join(str(text).split())
    return text if len(text) <= SHORT_VALUE_CHARS else text[: SHORT_VALUE_CHARS - 1] + "…"


def scalar_summary_text(value: dict[str, Any]) -> str:
    """A scalar Value as a summary line writes it (a number readably, a str as its repr)."""
    kind, number = value.get("type"), value.get("value")
    if kind in ("int", "float") and isinstance(number, (int, float)) and not isinstance(number, bool):
        return readable_number(number) if not (isinstance(number, float) and not math.isfinite(number)) else repr(number)
    if kind == "str":
        return repr(number)
    if kind == "none":
        return "None"
    return str(number if number is not None else value.get("repr", kind))


def whole_difference(name: str, a: Any, b: Any, out: Differences) -> None:
    """The difference of two values compared as wholes: one line, both values."""
    out.append((name, a, b, ""))
