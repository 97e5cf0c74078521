"""Renderings and compute cards as plain views: images, videos, links, tables, compute figures, styles.

Each function turns one trace record (an ``image()``/``link()``/``table()`` rendering, a
``# @flops`` compute record) into the strings and numbers its card shows; ``css_style`` keeps only
the safe entries of an author's style. Charts, which are drawn to files, stay with ``HtmlRenderer``.
This module must not produce markup or read files.
"""

from __future__ import annotations

import math
import re
from typing import Any


from tracer.site.cards.citations import citation_label, details
from tracer.site.cards.prose_blocks import focus_view
from tracer.site.markdown_ext.sanitize import safe_url
from tracer.contract.trace_format import Compute, Rendering
from tracer.site.cards.units import (
    human_bytes,
    human_flop_per_s,
    human_flops,
    human_seconds,
    readable_number,
)
from tracer.site.cards.templates import ROOT, line_anchor


def image_view(rendering: Rendering) -> dict[str, Any]:
    """An image or video: the published file (a local one, or the course cache's copy of a URL),
    else a link to a URL over the size limit, else a placeholder for one that could not be had.
    Alt text is the author's, else the caption, else none (a file name or URL tail says nothing)."""
    data = rendering["data"]
    external = bool(rendering.get("external"))
    src = safe_url(data) if external else ROOT + "assets/" + data
    width = rendering.get("width")
    if isinstance(width, (int, float)):
        width = f"{width}px" if width > 1 else f"{width * 100:g}%"
    caption = rendering.get("caption") or ""
    state = "missing" if rendering.get("missing") else "linked" if rendering.get("too_large") is not None else "shown"
    return {
        "kind": rendering.get("type", "image"),
        "src": src,
        "alt": rendering.get("alt") or caption,
        "caption": caption,
        "width": width,
        "style": css_style(rendering.get("style")),
        "state": state,
        "url": safe_url(rendering.get("source_url") or data) if (external or rendering.get("source_url")) else None,
        "nbytes": human_bytes(rendering["too_large"]) if rendering.get("too_large") else None,
        "focus": focus_view(rendering) if state == "shown" else None,
    }


def link_view(rendering: Rendering, main_path: str) -> dict[str, Any]:
    """A link: to code (``internal``), to a URL, or a citation with a details panel when the
    record had attributes (``citations``)."""
    internal = rendering.get("internal")
    if internal:
        href = "#" + line_anchor(internal["path"], internal["line"], main_path)
    else:
        href = safe_url(rendering.get("url") or "")
    attrs = dict(rendering.get("attrs") or {})
    for key in ("authors", "date", "notes"):  # also accepted at the top level of the record
        if (value := rendering.get(key)) not in (None, "", []):
            attrs.setdefault(key, value)
    title = rendering.get("title") or href or "link"
    return {
        "href": href or None,
        "title": title,
        "internal": bool(internal),
        "path": internal["path"] if internal else None,
        "line": internal["line"] if internal else None,
        "label": citation_label(attrs, title),
        "details": details(attrs),
        "style": css_style(rendering.get("style")),
    }


_CSS_KEY = re.compile(r"^[a-z-]+$")
_CSS_VALUE = re.compile(r"^[#%.,()\w\s-]+$")


def css_style(style: dict[str, Any] | None) -> str:
    """A ``style`` dict from text()/image() as a CSS declaration list; unsafe entries are dropped."""
    if not style:
        return ""
    parts = []
    for key, val in style.items():
        key = re.sub(r"(?<!^)([A-Z])", r"-\1", str(key)).lower().replace("_", "-")
        text = (
            f"{val}px"
            if isinstance(val, (int, float))
            and not isinstance(val, bool)
            and key not in ("opacity", "font-weight", "z-index", "line-height")
            else str(val)
        )
        if _CSS_KEY.match(key) and _CSS_VALUE.match(text):
            parts.append(f"{key}: {text}")
    return "; ".join(parts)


def table_cell(value: Any) -> str:
    """A table() cell as text: numbers exactly (``readable_number``), None as an empty cell."""
    if value is None:
        return ""
    if isinstance(value, (bool, int, float)):
        return readable_number(value)
    return str(value)


def table_view(rendering: Rendering) -> dict[str, Any]:
    """Plain data for a ``table()`` rendering: header, rows of text, and what was left out."""
    rows = rendering.get("rows") or []
    index = rendering.get("index")
    total_rows, total_columns = rendering.get("total_rows", len(rows)), rendering.get("total_columns", 0)
    columns = [table_cell(c) for c in rendering.get("columns") or []]
    numeric = [
        all(isinstance(row[k], (int, float)) and not isinstance(row[k], bool) or row[k] is None for row in rows if k < len(row))
        for k in range(len(columns))
    ]
    return {
        "columns": columns,
        "numeric": numeric,
        "index": [table_cell(i) for i in index] if isinstance(index, list) else None,
        "rows": [[table_cell(cell) for cell in row] for row in rows],
        "more_rows": max(0, total_rows - len(rows)),
        "more_columns": max(0, total_columns - len(columns)),
        "total_rows": total_rows,
    }


def compute_view(compute: Compute) -> dict[str, Any]:
    """Plain data for a compute card (from a ``# @flops`` step)."""
    mfu = compute.get("mfu")
    by_op = sorted(compute.get("by_op", {}).items(), key=lambda kv: -kv[1])
    total = compute.get("flops") or 0
    return {
        "flops": human_flops(compute["flops"]),
        "seconds": human_seconds(compute.get("seconds")),
        "flop_per_s": human_flop_per_s(compute.get("flop_per_s")),
        "peak": human_flop_per_s(compute.get("peak_flop_per_s")) if compute.get("peak_flop_per_s") else None,
        "mfu_percent": None if mfu is None or (isinstance(mfu, float) and math.isnan(mfu)) else round(100 * mfu, 1),
        "mfu_bar_percent": None if mfu is None else max(0.0, min(100.0, 100 * mfu)),
        "peak_note": compute.get("peak_note") or ("peak FLOP/s unknown for this device" if mfu is None else None),
        "dtype": compute.get("dtype"),
        "device_name": compute.get("device_name"),
        "timing": compute.get("timing"),
        "repeats": compute.get("repeats"),
        "by_op": [{"op": op, "flops": human_flops(n), "percent": round(100 * n / total, 1) if total else 0.0} for op, n in by_op],
        # None for traces from before the record: the card then says nothing about what was left out
        "uncounted": compute.get("uncounted_ops"),
    }
