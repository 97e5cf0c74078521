"""Scalars: numbers, strings, None, and the one-word values (a dtype, a device, a function's name).

Their card is one short text (``scalar_body`` in ``cards.html.j2``); they need no summary line.
This module must not render markup.
"""

from __future__ import annotations

from typing import Any

from tracer.site.cards.kinds.short_text import CompareFn, Differences, ShowFn, SummaryFn, ViewFn, whole_difference
from tracer.site.cards.units import exact_number, format_number, readable_number

MACRO = "scalar_body"


def scalar_view(kind: str, text: str) -> dict[str, Any]:
    """The card of a value shown as one short text (also a tensor's or container's, nested)."""
    return {"kind": "scalar", "type": kind, "text": text, "exact": None, "macro": MACRO}


def scalar_text(value: dict[str, Any]) -> str:
    kind = value["type"]
    if kind == "str":
        return repr(value["value"]) + ("…" if value.get("truncated") else "")
    if kind == "none":
        return "None"
    if kind == "bool":
        return "True" if value["value"] else "False"
    if kind == "float":
        v = value["value"]
        return v if isinstance(v, str) else repr(float(v))
    if kind == "complex":
        return format_number([value.get("real", 0.0), value.get("imag", 0.0)])
    if kind == "numpy_scalar":
        number = value.get("value")
        text = readable_number(number) if isinstance(number, (int, float)) else format_number(number)
        return f"{text} ({value.get('dtype')})"
    if kind == "dtype":
        return f"torch.{value['value']}" if "itemsize" in value else str(value["value"])
    if kind == "device":
        return f"device({value['value']!r})"
    if kind == "size":
        return "torch.Size([" + ", ".join(str(n) for n in value["value"]) + "])"
    if kind in ("function", "class"):
        return f"{kind} {value.get('name', '?')}"
    if kind == "cycle":
        return value.get("repr") or "<cycle>"
    return str(value.get("value"))


def number_view(kind: str, number: int | float, depth: int = 0) -> dict[str, Any]:
    """A scalar number for reading (``units.readable_number``), with its exact repr when that differs."""
    # inside containers, full repr digits drown the structure (a list of 30 losses)
    text = readable_number(number, significant=6 if depth > 0 and isinstance(number, float) else None)
    exact = exact_number(number)
    return {"kind": "scalar", "type": kind, "text": text, "exact": exact if exact != text else None, "macro": MACRO}


def view(value: dict[str, Any], depth: int, value_view: ViewFn) -> dict[str, Any]:
    kind = value["type"]
    if kind in ("int", "float") and isinstance(value.get("value"), (int, float)) and not isinstance(value["value"], bool):
        return number_view(kind, float(value["value"]) if kind == "float" else value["value"], depth)
    return scalar_view(kind, scalar_text(value))


def summary(value: dict[str, Any], summary_view: SummaryFn) -> dict[str, Any] | None:
    return None  # the card is one line already


def diff_text(value: dict[str, Any], show: ShowFn) -> str:
    kind = value["type"]
    if kind in ("int", "float", "bool", "numpy_scalar", "dtype", "device", "size"):
        return show(value.get("value"))
    if kind == "str":
        return repr(value.get("value"))
    if kind == "none":
        return "None"
    if kind == "complex":
        return f"({show(value.get('real'))}+{show(value.get('imag'))}j)"
    if kind == "cycle":
        return str(value.get("repr"))
    return str(kind)  # function, class: the kind (their names are in the line's source)


def compare(name: str, a: dict[str, Any], b: dict[str, Any], out: Differences, recurse: CompareFn, show: ShowFn) -> None:
    whole_difference(name, a, b, out)
