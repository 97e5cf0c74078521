"""Containers: lists, tuples, sets, frozensets, dicts and dataclasses, whose items are Values.

Their cards nest the cards of their items (``sequence_body``, ``mapping_body``, ``dataclass_body``
in ``cards.html.j2``); two containers are compared item by item. This module must not render markup.
"""

from __future__ import annotations

import json
from typing import Any

from tracer.site.cards.kinds.short_text import (
    CompareFn,
    Differences,
    ShowFn,
    SummaryFn,
    ViewFn,
    cut,
    scalar_summary_text,
    whole_difference,
)
from tracer.contract.value_kinds import ONE_LINE_TYPES

SEQUENCES = ("list", "tuple", "set", "frozenset")
BRACKETS = {"list": "[{}]", "tuple": "({})", "set": "{{{}}}", "frozenset": "frozenset({{{}}})"}


def view(value: dict[str, Any], depth: int, value_view: ViewFn) -> dict[str, Any]:
    kind = value["type"]
    if kind in SEQUENCES:
        items = [value_view(v, depth + 1) for v in value.get("items", [])]
        return {
            "kind": "sequence",
            "type": kind,
            "items": items,
            "length": value["length"],
            "truncated": value.get("truncated", False),
            "inline": all(i["kind"] == "scalar" for i in items),
            "macro": "sequence_body",
        }
    if kind == "dict":
        pairs = [(value_view(k, depth + 1), value_view(v, depth + 1)) for k, v in value.get("items", [])]
        return {
            "kind": "mapping",
            "label": "dict",
            "dtype": None,
            "pairs": pairs,
            "length": value["length"],
            "truncated": value.get("truncated", False),
            "macro": "mapping_body",
        }
    fields = [(name, value_view(v, depth + 1)) for name, v in value.get("fields", {}).items()]
    return {"kind": "dataclass", "class": value.get("class", "?"), "fields": fields, "macro": "dataclass_body"}


def summary(value: dict[str, Any], summary_view: SummaryFn) -> dict[str, Any] | None:
    kind = value["type"]
    if kind in SEQUENCES:
        items = value.get("items", [])
        if all(item.get("type") in ONE_LINE_TYPES for item in items):
            return None  # shown inline on one line already
        firsts = [summary_view(item) for item in items[:3]]
        text = ", ".join(s["kind"] if s else cut(scalar_summary_text(item)) for s, item in zip(firsts, items[:3]))
        return {
            "kind": kind,
            "dtype": None,
            "shape": f"len {value.get('length', len(items))}",
            "text": cut(text + (", …" if value.get("length", 0) > 3 else "")),
        }
    if kind == "dict":
        keys = [scalar_summary_text(k) for k, _ in value.get("items", [])[:6]]
        more = value.get("length", 0) > len(keys)
        return {
            "kind": "dict",
            "dtype": None,
            "shape": f"len {value.get('length', 0)}",
            "text": cut("keys " + ", ".join(keys) + (", …" if more else "")),
        }
    fields = list(value.get("fields", {}))
    return {"kind": value.get("class", "dataclass"), "dtype": None, "shape": None, "text": cut(", ".join(fields))}


def diff_text(value: dict[str, Any], show: ShowFn) -> str:
    kind = value["type"]
    if kind in SEQUENCES:
        return BRACKETS[kind].format(", ".join(show(v) for v in value.get("items") or []))
    if kind == "dict":
        return "{" + ", ".join(f"{show(k)}: {show(v)}" for k, v in value.get("items") or []) + "}"
    return str(kind)


def compare(name: str, a: dict[str, Any], b: dict[str, Any], out: Differences, recurse: CompareFn, show: ShowFn) -> None:
    kind = a["type"]
    if kind in SEQUENCES:
        items_a, items_b = a.get("items") or [], b.get("items") or []
        if a.get("length") != b.get("length"):
            out.append((f"len({name})", a.get("length"), b.get("length"), ""))
        for i, (x, y) in enumerate(zip(items_a, items_b)):
            recurse(f"{name}[{i}]", x, y, out)
        for i in range(len(items_b), len(items_a)):
            out.append((f"{name}[{i}]", items_a[i], None, ""))
        for i in range(len(items_a), len(items_b)):
            out.append((f"{name}[{i}]", None, items_b[i], ""))
    elif kind == "dict":
        pairs_a = {json.dumps(k, sort_keys=True): (k, v) for k, v in a.get("items") or []}
        pairs_b = {json.dumps(k, sort_keys=True): (k, v) for k, v in b.get("items") or []}
        for key in list(pairs_a) + [k for k in pairs_b if k not in pairs_a]:
            shown = f"{name}[{show(pairs_a.get(key, pairs_b.get(key))[0])}]"  # type: ignore[index]
            recurse(shown, pairs_a[key][1] if key in pairs_a else None, pairs_b[key][1] if key in pairs_b else None, out)
    elif kind == "dataclass":
        fields_a, fields_b = a.get("fields") or {}, b.get("fields") or {}
        for field in list(fields_a) + [f for f in fields_b if f not in fields_a]:
            recurse(f"{name}.{field}", fields_a.get(field), fields_b.get(field), out)
    else:
        whole_difference(name, a, b, out)
