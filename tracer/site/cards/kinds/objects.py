"""Other objects: any object shown by its class and repr, one that could not be shown
(``unrepresentable``), a name that was not there (``missing``), and an object's own
``__lecture_view__`` (the card of what it chose to show, under its class).

This module must not render markup (``cards.html.j2`` does).
"""

from __future__ import annotations

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


def view(value: dict[str, Any], depth: int, value_view: ViewFn) -> dict[str, Any]:
    kind = value["type"]
    if kind == "view":  # the object's __lecture_view__: what it chose to show, and its class
        return {**value_view(value.get("value") or {}, depth), "view_of": value.get("class", "?")}
    if kind == "object":
        return {
            "kind": "object",
            "class": value.get("class"),
            "repr": value.get("repr"),
            "repr_error": value.get("repr_error"),
            "macro": "object_body",
        }
    if kind == "unrepresentable":  # a value the tracer could not show as itself: its class, why, a hint
        return {
            "kind": "unrepresentable",
            "class": value.get("class"),
            "preview": value.get("preview"),
            "reason": value.get("reason"),
            "macro": "unrepresentable_body",
        }
    return {"kind": "missing", "message": value.get("message", ""), "macro": "missing_body"}


def summary(value: dict[str, Any], summary_view: SummaryFn) -> dict[str, Any] | None:
    kind = value["type"]
    if kind == "view":  # __lecture_view__: the summary of what the object chose to show, under its class
        inner = summary_view(value.get("value") or {"type": "none"})
        if inner is None:
            inner = {"kind": None, "dtype": None, "shape": None, "text": cut(scalar_summary_text(value.get("value") or {}))}
        return {**inner, "kind": f"{value.get('class', '?')} view" + (f": {inner['kind']}" if inner["kind"] else "")}
    if kind == "object":
        return {"kind": value.get("class") or "object", "dtype": None, "shape": None, "text": cut(value.get("repr") or "")}
    if kind == "unrepresentable":
        return {"kind": value.get("class") or "value", "dtype": None, "shape": None, "text": "not shown"}
    return None  # missing: one line already


def diff_text(value: dict[str, Any], show: ShowFn) -> str:
    kind = value["type"]
    if kind == "view":  # __lecture_view__: what the object chose to show
        return f"{value.get('class')}: {show(value.get('value') or {})}"
    if kind == "object":
        return str(value.get("repr"))
    return str(kind)  # missing, unrepresentable


def compare(name: str, a: dict[str, Any], b: dict[str, Any], out: Differences, recurse: CompareFn, show: ShowFn) -> None:
    whole_difference(name, a, b, out)
