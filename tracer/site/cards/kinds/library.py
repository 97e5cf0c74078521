"""Values from libraries shown by their own fields: SymPy expressions (as MathML), ``finfo`` and
``iinfo`` (a dtype's limits) and PyTorch modules (their parameters).

This module must not render markup (``cards.html.j2`` does; the MathML is made and cleaned here).
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from tracer.site.cards.kinds.short_text import CompareFn, Differences, ShowFn, SummaryFn, ViewFn, whole_difference
from tracer.site.cards.units import format_number, human_count, shape_text
from tracer.site.markdown_ext.mathml import latex_to_mathml
from tracer.site.markdown_ext.sanitize import clean_html

INFO_ROWS = {"finfo": ("bits", "eps", "min", "max", "smallest_normal", "resolution"), "iinfo": ("bits", "min", "max")}


def view(value: dict[str, Any], depth: int, value_view: ViewFn) -> dict[str, Any]:
    kind = value["type"]
    if kind == "sympy":
        mathml = Markup(clean_html(latex_to_mathml(value["latex"], display=False))) if value.get("latex") else None
        return {"kind": "sympy", "text": value.get("repr", ""), "mathml": mathml, "macro": "sympy_body"}
    if kind in INFO_ROWS:
        return {
            "kind": "info",
            "type": kind,
            "dtype": value.get("dtype"),
            "rows": [(k, format_number(value[k])) for k in INFO_ROWS[kind] if k in value],
            "macro": "info_body",
        }
    params = [
        {"name": p.get("name"), "shape": shape_text(p.get("shape", [])), "dtype": p.get("dtype")}
        for p in value.get("parameters", [])
    ]
    return {
        "kind": "module",
        "class": value.get("class"),
        "num_parameters": human_count(value.get("num_parameters", 0)),
        "parameters": params,
        "repr": value.get("repr"),
        "macro": "module_body",
    }


def summary(value: dict[str, Any], summary_view: SummaryFn) -> dict[str, Any] | None:
    kind = value["type"]
    if kind == "module":
        return {
            "kind": f"module {value.get('class', '')}".strip(),
            "dtype": None,
            "shape": None,
            "text": f"{value.get('num_parameters', 0):,} parameters",
        }
    if kind in INFO_ROWS:
        return {"kind": kind, "dtype": value.get("dtype"), "shape": None, "text": ""}
    return None  # sympy: one line already


def diff_text(value: dict[str, Any], show: ShowFn) -> str:
    kind = value["type"]
    if kind == "module":
        return f"{value.get('class')} ({show(value.get('num_parameters') or 0)} parameters)"
    if kind == "sympy":
        return str(value.get("repr"))
    return str(kind)


def compare(name: str, a: dict[str, Any], b: dict[str, Any], out: Differences, recurse: CompareFn, show: ShowFn) -> None:
    whole_difference(name, a, b, out)
