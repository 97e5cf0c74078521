"""A value card's one-line summary: name, kind, dtype, shape and a short value.

The step viewer shows a frame's values as these lines and opens the current line's into full
cards, so a frame with thirty values fits on one screen. ``summary_view(value)`` turns an encoded
value (see trace_format's docstring) into plain strings for the ``value_summary`` macro, or None
for a value whose card is a single line already (a number, a short string, an inline list).
This module must not render markup (``cards.html.j2`` does) nor decide when a summary is shown.
"""

from __future__ import annotations

import math
from typing import Any

from tracer.contract.value_kinds import ONE_LINE_TYPES, TENSOR_LABELS
from tracer.site.cards.units import format_number, readable_number

SHORT_VALUE_CHARS = 40  # a short value is cut here, with "…"
PREVIEW_ELEMENTS = 4  # a tensor's short value: its first elements, in order


def _cut(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= SHORT_VALUE_CHARS else text[: SHORT_VALUE_CHARS - 1] + "…"


def _shape(shape: Any) -> str | None:
    return "(" + ", ".join(str(n) for n in shape) + ")" if isinstance(shape, list) else None


def _first_elements(values: Any, ndim: int, limit: int) -> tuple[list[Any], bool]:
    """The preview's first ``limit`` elements in row-major order (an element sits ``ndim`` lists
    deep; a complex one is a [re, im] pair there), and whether any were left out."""
    out: list[Any] = []
    more = False

    def walk(block: Any, depth: int) -> None:
        nonlocal more
        if len(out) >= limit:
            more = True
        elif depth < ndim and isinstance(block, list):
            for item in block:
                walk(item, depth + 1)
        else:
            out.append(block)

    walk(values, 0)
    return out, more


def _tensor_text(value: dict[str, Any]) -> str:
    values, numel = value.get("values"), value.get("numel")
    if values is None:
        return ""
    if numel == 0:
        return "empty"
    if not isinstance(values, list):  # a 0-d tensor: its one element
        return format_number(values)
    elements, more = _first_elements(values, len(value.get("shape") or []), PREVIEW_ELEMENTS)
    more = more or (isinstance(numel, int) and numel > len(elements))
    if "…" in elements:  # the preview skips elements here: what comes after is not next in order
        elements, more = elements[: elements.index("…")], True
    texts = [format_number(v) for v in elements]
    return "[" + ", ".join(texts) + (", …" if more else "") + "]"


def _scalar_text(value: dict[str, Any]) -> str:
    kind, number = value.get("type"), value.get("value")
    if kind in ("int", "float") and isinstance(number, (int, float)) and not isinstance(number, bool):
        return readable_number(number) if not (isinstance(number, float) and not math.isfinite(number)) else repr(number)
    if kind == "str":
        return repr(number)
    if kind == "none":
        return "None"
    return str(number if number is not None else value.get("repr", kind))


def summary_view(value: dict[str, Any]) -> dict[str, Any] | None:
    """``{"kind", "dtype", "shape", "text"}`` (strings or None) for a value's summary line, or None."""
    kind = value.get("type", "?")
    if kind == "view":  # __lecture_view__: the summary of what the object chose to show, under its class
        inner = summary_view(value.get("value") or {"type": "none"})
        if inner is None:
            inner = {"kind": None, "dtype": None, "shape": None, "text": _cut(_scalar_text(value.get("value") or {}))}
        return {**inner, "kind": f"{value.get('class', '?')} view" + (f": {inner['kind']}" if inner["kind"] else "")}
    if kind in ONE_LINE_TYPES:
        return None
    if kind in TENSOR_LABELS:
        label = TENSOR_LABELS[kind]
        if value.get("subclass"):
            label = f"{value['subclass']} (tensor subclass)"
        shape = _shape(value.get("shape")) or (f"{value.get('length', 0)} components" if kind == "nested_tensor" else None)
        return {
            "kind": label,
            "dtype": value.get("dtype"),
            "shape": shape,
            "text": _cut(_tensor_text(value)) if kind in ("tensor", "ndarray") else "",
        }
    if kind in ("list", "tuple", "set", "frozenset"):
        items = value.get("items", [])
        if all(item.get("type") in ONE_LINE_TYPES for item in items):
            return None  # shown inline on one line already
        firsts = [summary_view(item) for item in items[:3]]
        text = ", ".join(s["kind"] if s else _cut(_scalar_text(item)) for s, item in zip(firsts, items[:3]))
        return {
            "kind": kind,
            "dtype": None,
            "shape": f"len {value.get('length', len(items))}",
            "text": _cut(text + (", …" if value.get("length", 0) > 3 else "")),
        }
    if kind == "dict":
        keys = [_scalar_text(k) for k, _ in value.get("items", [])[:6]]
        more = value.get("length", 0) > len(keys)
        return {
            "kind": "dict",
            "dtype": None,
            "shape": f"len {value.get('length', 0)}",
            "text": _cut("keys " + ", ".join(keys) + (", …" if more else "")),
        }
    if kind == "dataclass":
        fields = list(value.get("fields", {}))
        return {"kind": value.get("class", "dataclass"), "dtype": None, "shape": None, "text": _cut(", ".join(fields))}
    if kind == "module":
        return {
            "kind": f"module {value.get('class', '')}".strip(),
            "dtype": None,
            "shape": None,
            "text": f"{value.get('num_parameters', 0):,} parameters",
        }
    if kind in ("finfo", "iinfo"):
        return {"kind": kind, "dtype": value.get("dtype"), "shape": None, "text": ""}
    if kind == "object":
        return {"kind": value.get("class") or "object", "dtype": None, "shape": None, "text": _cut(value.get("repr") or "")}
    if kind == "unrepresentable":
        return {"kind": value.get("class") or "value", "dtype": None, "shape": None, "text": "not shown"}
    return {"kind": str(kind), "dtype": None, "shape": None, "text": ""}
