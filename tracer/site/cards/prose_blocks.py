"""The building blocks for prose as plain views: code(), diff(), columns(), callout() and image focus.

Each function turns one rendering record into the strings and numbers its macro in
``templates/cards.html.j2`` shows: highlighted lines (``code_highlight``), a line diff (difflib)
with what each line is, column widths, a callout's tone, an image region and its markers as
percentages of the frame. Markdown inside columns and callouts is rendered by ``HtmlRenderer``.
This module must not produce markup other than highlighted code, nor read files.
"""

from __future__ import annotations

import difflib
from typing import Any

from tracer.contract.trace_format import Rendering
from tracer.site.cards.code_highlight import highlight_lines

CALLOUT_TONES = ("info", "tip", "warning", "danger")


def code_view(rendering: Rendering) -> dict[str, Any]:
    """A ``code()`` block: its lines highlighted in its language, and its caption."""
    language = rendering.get("language") or None
    return {
        "lines": highlight_lines(rendering.get("data", ""), "keep", language),
        "language": language,
        "caption": rendering.get("caption") or "",
    }


def diff_view(rendering: Rendering) -> dict[str, Any]:
    """A ``diff()``: each line of the two texts as kept (``same``), removed (``del``, from a) or
    added (``ins``, from b), in order, with its line number in a and in b, and the counts."""
    a, b = rendering.get("a", ""), rendering.get("b", "")
    language = rendering.get("language") or None
    a_lines, b_lines = a.splitlines(), b.splitlines()
    a_html, b_html = highlight_lines(a, "keep", language), highlight_lines(b, "keep", language)
    rows: list[dict[str, Any]] = []
    matcher = difflib.SequenceMatcher(None, a_lines, b_lines, autojunk=False)
    for tag, a1, a2, b1, b2 in matcher.get_opcodes():
        if tag == "equal":
            rows += [{"op": "same", "html": b_html[b1 + k], "old": a1 + k + 1, "new": b1 + k + 1} for k in range(a2 - a1)]
            continue
        rows += [{"op": "del", "html": a_html[k], "old": k + 1, "new": None} for k in range(a1, a2)]
        rows += [{"op": "ins", "html": b_html[k], "old": None, "new": k + 1} for k in range(b1, b2)]
    return {
        "rows": rows,
        "removed": sum(row["op"] == "del" for row in rows),
        "added": sum(row["op"] == "ins" for row in rows),
        "before": rendering.get("before") or "before",
        "after": rendering.get("after") or "after",
        "language": language,
    }


def columns_view(rendering: Rendering) -> dict[str, Any]:
    """A ``columns()`` row: its cells' markdown and the CSS grid columns of its widths."""
    cells = list(rendering.get("cells") or [])
    widths = rendering.get("widths") or [1.0] * len(cells)
    if len(widths) != len(cells) or not all(isinstance(w, (int, float)) and w > 0 for w in widths):
        widths = [1.0] * len(cells)
    return {"cells": cells, "template": " ".join(f"minmax(0, {w:g}fr)" for w in widths)}


def callout_view(rendering: Rendering) -> dict[str, Any]:
    """A ``callout()``: its tone (an unknown one reads as info) and title."""
    tone = rendering.get("tone")
    return {"tone": tone if tone in CALLOUT_TONES else "info", "title": rendering.get("title") or ""}


def _percent(value: float) -> str:
    return f"{value:.4g}%"


def focus_view(rendering: Rendering) -> dict[str, Any] | None:
    """An ``image(focus=..., markers=...)``: the frame's aspect ratio, the image's size and offset in
    it, and each marker's place, as percentages of the frame (None: a plain image)."""
    pixels = rendering.get("pixels")
    if not pixels or not (rendering.get("focus") or rendering.get("markers")):
        return None
    width_px, height_px = pixels
    x, y, w, h = rendering.get("focus") or (0, 0, width_px, height_px)
    return {
        "ratio": f"{w:g} / {h:g}",
        "ratio_number": f"{w / h:.4g}",
        "img_width": _percent(100 * width_px / w),
        "img_left": _percent(-100 * x / w),
        "img_top": _percent(-100 * y / h),
        "markers": [
            {"left": _percent(100 * (m["x"] - x) / w), "top": _percent(100 * (m["y"] - y) / h), "label": m.get("label", "")}
            for m in rendering.get("markers") or []
        ],
    }
