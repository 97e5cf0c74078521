"""pandas Series: index labels and their values, as rows (``mapping_body`` in ``cards.html.j2``,
the markup a dict's card uses, under the Series' name and dtype).

Two Series are compared position by position, each difference named by its index label. This
module must not render markup.
"""

from __future__ import annotations

from typing import Any

from tracer.site.cards.kinds.short_text import CompareFn, Differences, ShowFn, SummaryFn, ViewFn, cut, scalar_summary_text


def _label(value: dict[str, Any]) -> str:
    name = value.get("name")
    return "Series" if name is None else f"Series {name}"


def view(value: dict[str, Any], depth: int, value_view: ViewFn) -> dict[str, Any]:
    pairs = [(value_view(k, depth + 1), value_view(v, depth + 1)) for k, v in zip(value["index"], value["values"])]
    return {
        "kind": "mapping",
        "label": _label(value),
        "dtype": value.get("dtype"),
        "pairs": pairs,
        "length": value["length"],
        "truncated": value.get("truncated", False),
        "macro": "mapping_body",
    }


def summary(value: dict[str, Any], summary_view: SummaryFn) -> dict[str, Any] | None:
    shown = [f"{scalar_summary_text(k)}: {scalar_summary_text(v)}" for k, v in zip(value["index"][:3], value["values"][:3])]
    more = value["length"] > len(shown)
    return {
        "kind": _label(value),
        "dtype": value.get("dtype"),
        "shape": f"len {value['length']}",
        "text": cut(", ".join(shown) + (", …" if more else "")),
    }


def diff_text(value: dict[str, Any], show: ShowFn) -> str:
    return f"{_label(value)} {value.get('dtype')} len {value.get('length')}"


def compare(name: str, a: dict[str, Any], b: dict[str, Any], out: Differences, recurse: CompareFn, show: ShowFn) -> None:
    for field in ("length", "dtype"):
        if a.get(field) != b.get(field):
            out.append((f"{name} {field}", a.get(field), b.get(field), ""))
    rows_a, rows_b = list(zip(a["index"], a["values"])), list(zip(b["index"], b["values"]))
    for (key_a, x), (key_b, y) in zip(rows_a, rows_b):
        if key_a != key_b:
            out.append((f"{name} index", key_a, key_b, ""))
        recurse(f"{name}[{show(key_b)}]", x, y, out)
    for key, x in rows_a[len(rows_b) :]:
        out.append((f"{name}[{show(key)}]", x, None, ""))
    for key, y in rows_b[len(rows_a) :]:
        out.append((f"{name}[{show(key)}]", None, y, ""))
