"""Geometry for simple ``plot()`` charts, so they draw as SVG with no JavaScript or chart library.

``plot(spec)`` records a Vega-Lite spec. This module understands the common simple case, a
``line``, ``point`` or ``bar`` mark over inline ``data.values`` with ``x``/``y`` field encodings
(quantitative, ordinal or nominal x; linear or log y; an optional ``color`` field splitting lines
into series), and computes plain data (scaled points, bars, axis ticks) for the template
``cards.html.j2`` to draw. Anything else returns None and the page shows the spec instead. This
module must not produce markup.
"""

from __future__ import annotations

import math
from typing import Any

from tracer.site.units import format_number

WIDTH = 560
HEIGHT = 240
PAD_LEFT = 56
PAD_RIGHT = 12
PAD_TOP = 12
PAD_BOTTOM = 36
MAX_SERIES = 6
MARKS = ("line", "point", "bar")


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """About ``count`` round tick values enclosing [lo, hi] (steps of 1, 2 or 5 times a power of 10)."""
    if hi == lo:
        return [lo]
    raw = (hi - lo) / max(count - 1, 1)
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    first, last = math.floor(lo / step + 1e-9), math.ceil(hi / step - 1e-9)
    return [round(k * step, 12) for k in range(first, last + 1)]


def tick_label(value: float) -> str:
    """A tick value without noise: 20 -> "20", 0.5 -> "0.5", 1e-3 -> "0.001", 2e6 -> "2e+06"."""
    if float(value).is_integer() and abs(value) < 1e6:
        return str(int(value))
    return f"{value:.4g}"


def log_ticks(lo: float, hi: float) -> list[float]:
    """Powers of ten within [lo, hi] (at least the two ends when no power falls inside)."""
    ticks = [10.0**e for e in range(math.ceil(math.log10(lo)), math.floor(math.log10(hi)) + 1)]
    return ticks or [lo, hi]


def _mark_type(spec: dict[str, Any]) -> str | None:
    mark = spec.get("mark")
    if isinstance(mark, dict):
        mark = mark.get("type")
    return mark if mark in MARKS else None


def _title(spec: dict[str, Any]) -> str:
    title = spec.get("title")
    if isinstance(title, dict):
        title = title.get("text")
    return str(title) if title else ""


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def simple_plot(spec: dict[str, Any]) -> dict[str, Any] | None:
    """Plain chart data for a simple Vega-Lite spec, or None when the spec is not simple."""
    mark = _mark_type(spec)
    values = (spec.get("data") or {}).get("values")
    encoding = spec.get("encoding") or {}
    x_enc, y_enc = encoding.get("x") or {}, encoding.get("y") or {}
    if mark is None or not isinstance(values, list) or not x_enc.get("field") or not y_enc.get("field"):
        return None
    x_field, y_field = x_enc["field"], y_enc["field"]
    color_field = (encoding.get("color") or {}).get("field")
    x_categorical = mark == "bar" or x_enc.get("type") in ("ordinal", "nominal")
    y_log = (y_enc.get("scale") or {}).get("type") == "log"

    rows = []
    for row in values:
        if not isinstance(row, dict) or x_field not in row:
            continue
        y = _number(row.get(y_field))
        x = row[x_field] if x_categorical else _number(row[x_field])
        if y is None or x is None or (y_log and y <= 0):
            continue
        rows.append((x, y, str(row.get(color_field, "")) if color_field else ""))
    if not rows:
        return None

    left, right, top, bottom = PAD_LEFT, WIDTH - PAD_RIGHT, PAD_TOP, HEIGHT - PAD_BOTTOM
    ys = [y for _, y, _ in rows]
    if y_log:
        y_lo, y_hi = min(ys), max(ys)
        y_ticks = log_ticks(y_lo, y_hi)
        y_lo, y_hi = min(y_lo, y_ticks[0]), max(y_hi, y_ticks[-1])
        span = math.log10(y_hi) - math.log10(y_lo) or 1.0

        def y_of(y: float) -> float:
            return round(bottom - (bottom - top) * (math.log10(y) - math.log10(y_lo)) / span, 1)
    else:
        y_lo, y_hi = min(0.0, min(ys)) if mark == "bar" else min(ys), max(ys)
        y_ticks = nice_ticks(y_lo, y_hi)
        y_lo, y_hi = min(y_lo, y_ticks[0]), max(y_hi, y_ticks[-1])
        span = (y_hi - y_lo) or 1.0

        def y_of(y: float) -> float:
            return round(bottom - (bottom - top) * (y - y_lo) / span, 1)

    if x_categorical:
        categories = list(dict.fromkeys(str(x) for x, _, _ in rows))
        band = (right - left) / len(categories)

        def x_of(x: Any) -> float:
            return round(left + band * (categories.index(str(x)) + 0.5), 1)

        every = max(1, math.ceil(len(categories) / 12))  # at most about 12 labels
        x_ticks = [{"x": x_of(c), "label": c} for k, c in enumerate(categories) if k % every == 0]
    else:
        xs = [x for x, _, _ in rows]
        x_lo, x_hi = min(xs), max(xs)
        ticks = nice_ticks(x_lo, x_hi)
        x_lo, x_hi = min(x_lo, ticks[0]), max(x_hi, ticks[-1])
        x_span = (x_hi - x_lo) or 1.0
        band = 0.0

        def x_of(x: Any) -> float:
            return round(left + (right - left) * (x - x_lo) / x_span, 1)

        x_ticks = [{"x": x_of(t), "label": tick_label(t)} for t in ticks]

    chart: dict[str, Any] = {
        "title": _title(spec), "mark": mark, "width": WIDTH, "height": HEIGHT,
        "left": left, "right": right, "top": top, "bottom": bottom,
        "x_title": x_enc.get("title") or x_field, "y_title": y_enc.get("title") or y_field,
        "x_ticks": x_ticks,
        "y_ticks": [{"y": y_of(t), "label": tick_label(t)} for t in y_ticks],
        "series": [], "bars": [],
    }
    if mark == "bar":
        zero = y_of(max(y_lo, 0.0)) if not y_log else bottom
        width = round(band * 0.8, 1)
        for x, y, _ in rows:
            top_y = y_of(y)
            chart["bars"].append({"x": round(x_of(x) - width / 2, 1), "y": min(top_y, zero), "width": width,
                                  "height": round(abs(zero - top_y), 1), "label": f"{x}: {format_number(y)}"})
        return chart
    groups: dict[str, list[tuple[Any, float]]] = {}
    for x, y, group in rows:
        groups.setdefault(group, []).append((x, y))
    for k, (name, points) in enumerate(list(groups.items())[:MAX_SERIES]):
        scaled = [{"x": x_of(x), "y": y_of(y), "label": f"{x}: {format_number(y)}"} for x, y in points]
        chart["series"].append({"name": name, "index": k, "polyline": " ".join(f"{p['x']},{p['y']}" for p in scaled),
                                "dots": scaled if mark == "point" or len(scaled) <= 60 else []})
    return chart
