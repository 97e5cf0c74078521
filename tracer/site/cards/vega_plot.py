"""``plot()`` charts: any Vega-Lite spec drawn to a static SVG at build time with ``vl-convert``.

``vl_convert`` compiles and renders Vega-Lite in-process (no browser, no network), so the site
stays static and works offline: the SVG is served as a file and shown with ``<img>``, which keeps
the page's DOM small and the charts' internal ids from clashing. Before drawing, inline data is
bounded: each ``data.values`` list (at any depth: layers, facets, concatenations) and each
``datasets`` entry keeps its first ``MAX_PLOT_POINTS`` rows (a generated ``sequence`` too), and the
chart says how many it left out. External data (``data.url``) is refused rather than fetched. A spec that cannot be drawn gives
a one-line reason; the page then shows the spec instead. Each chart is drawn twice: as the spec
says, and with Vega's dark theme on a transparent background for the site's dark (slate) scheme,
where the first would be a white box. This module must not know page layout or markup: it returns
SVG text and plain data.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any, Iterable

MAX_PLOT_POINTS = 5_000  # rows per inline dataset drawn; more make big SVGs and slow builds
_UNSAFE_SVG = re.compile(r"<script|<foreignObject|\bon[a-z]+\s*=|(?:href|src)\s*=\s*\"(?!#)|url\((?!#)|@import", re.I)


class PlotError(Exception):
    """A spec vl-convert cannot draw; str() is one line."""


@dataclass
class Chart:
    svg: str | None  # the drawing, or None when it failed
    name: str  # file name for the SVG: content hash, so equal charts share a file
    title: str  # for alt text
    dropped_points: int  # inline data rows left out (MAX_PLOT_POINTS)
    error: str | None  # why there is no drawing
    dark_svg: str | None = None  # the drawing for a dark page (Vega's dark theme, no background of its own)

    @property
    def dark_name(self) -> str:
        return self.name.removesuffix(".svg") + "-dark.svg"


def bound_data(spec: dict[str, Any], max_points: int = MAX_PLOT_POINTS) -> tuple[dict[str, Any], int]:
    """A copy of ``spec`` with each inline dataset cut to ``max_points`` rows, and the rows dropped."""
    spec = copy.deepcopy(spec)
    dropped = 0

    def walk(node: Any, key: str | None) -> None:
        nonlocal dropped
        if isinstance(node, dict):
            if key == "data" and isinstance(node.get("values"), list) and len(node["values"]) > max_points:
                dropped += len(node["values"]) - max_points
                node["values"] = node["values"][:max_points]
            sequence = node.get("sequence") if key == "data" else None
            if isinstance(sequence, dict) and all(
                isinstance(sequence.get(k, 1), (int, float)) for k in ("start", "stop", "step")
            ):
                # a generated sequence is data too: {"start": 0, "stop": 1e9} would stall the build
                start, stop, step = sequence.get("start", 0), sequence.get("stop", 0), sequence.get("step", 1) or 1
                rows = max(0, int((stop - start) / step))
                if rows > max_points:
                    dropped += rows - max_points
                    sequence["stop"] = start + max_points * step
            if key == "datasets":
                for name, rows in node.items():
                    if isinstance(rows, list) and len(rows) > max_points:
                        dropped += len(rows) - max_points
                        node[name] = rows[:max_points]
            for child_key, child in node.items():
                walk(child, child_key)
        elif isinstance(node, list):
            for child in node:
                walk(child, key if key in ("layer", "hconcat", "vconcat", "concat") else None)

    walk(spec, None)
    return spec, dropped


def external_data(spec: Any) -> str | None:
    """The first ``data.url`` in the spec (never fetched), or None."""
    if isinstance(spec, dict):
        data = spec.get("data")
        if isinstance(data, dict) and isinstance(data.get("url"), str):
            return data["url"]
        children: Iterable[Any] = spec.values()
    elif isinstance(spec, list):
        children = spec
    else:
        return None
    return next((url for url in map(external_data, children) if url), None)


def render_svg(spec: dict[str, Any], *, dark: bool = False) -> str:
    """SVG text for a Vega-Lite spec (``dark``: Vega's dark theme, with no background: the page's own
    dark shows through); PlotError (one line) when it cannot be drawn offline."""
    import vl_convert  # imported on first chart: it is a large native module

    url = external_data(spec)
    if url:
        raise PlotError(f"external data {url!r} is not fetched; put the rows in data.values")
    try:
        if dark:
            svg = vl_convert.vegalite_to_svg(spec, theme="dark", config={"background": "transparent"}, allowed_base_urls=[])
        else:
            svg = vl_convert.vegalite_to_svg(spec, allowed_base_urls=[])
    except Exception as exc:  # vl-convert raises ValueError with a JavaScript stack after the first line
        message = str(exc).strip().splitlines()
        raise PlotError(
            message[-1]
            if len(message) == 1
            else next((line.strip() for line in message[1:] if line.strip() and not line.strip().startswith("at ")), message[0])
        ) from None
    if _UNSAFE_SVG.search(svg):
        raise PlotError("the drawing refers to outside resources; not shown")
    return svg


def draw(spec: dict[str, Any], max_points: int = MAX_PLOT_POINTS) -> Chart:
    """Bound the spec's data and draw it; never raises for a bad spec."""
    bounded, dropped = bound_data(spec, max_points)
    text = json.dumps(bounded, sort_keys=True, ensure_ascii=False)
    name = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16] + ".svg"
    title = bounded.get("title")
    if isinstance(title, dict):
        title = title.get("text")
    description = bounded.get("description")
    title = title if isinstance(title, str) else description if isinstance(description, str) else "chart"
    try:
        svg = render_svg(bounded)
    except PlotError as exc:
        return Chart(None, name, title, dropped, str(exc))
    try:
        dark: str | None = render_svg(bounded, dark=True)
    except PlotError:
        dark = None  # the dark page shows the light drawing (on its white box) rather than nothing
    return Chart(svg, name, title, dropped, None, dark)
