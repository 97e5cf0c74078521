"""A ``graph()`` rendering as plain drawing data: node boxes and edge paths, laid out at site build.

``graph_view(spec)`` places the nodes (``preset``: the lecture's positions; ``breadthfirst``,
``circle``, ``concentric``, ``grid``, ``cose``, ``random``: networkx's layouts, seeded so a build
is reproducible), scales them into the spec's width and height, applies the Cytoscape-style
stylesheet for the properties it knows (colours, shape, border, line style, arrows, font size,
node size) and returns records that ``cards.html.j2``'s ``graph`` macro draws as inline SVG: no
JavaScript, nothing fetched. This module must not produce markup.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import networkx as nx

PADDING = 30.0  # px around the drawing: room for the outer nodes' boxes
FONT_PX = 12.0
CHAR_PX = 7.0  # average label character width at FONT_PX, for sizing boxes
NODE_DEFAULTS: dict[str, Any] = {
    "background-color": "#e8eef7",
    "border-color": "#1f5fa8",
    "border-width": 1.5,
    "color": "#1a1a1a",
    "shape": "round-rectangle",
    "font-size": FONT_PX,
}
EDGE_DEFAULTS: dict[str, Any] = {
    "line-color": "#6b6b6b",
    "width": 1.5,
    "line-style": "solid",
    "target-arrow-shape": "none",
    "color": "#444444",
    "font-size": FONT_PX - 1,
}
_COLOUR = re.compile(r"^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{3,20}|rgba?\([\d\s.,%]+\))$")


def _matches(selector: str, kind: str, element: dict[str, Any]) -> bool:
    """A Cytoscape selector of the simple kinds: ``node``, ``edge``, ``.class``, ``#id``,
    ``node.class``, ``edge[label]``... (several separated by commas)."""
    classes = set(str(element.get("classes") or "").split())
    data = element["data"]
    for part in selector.split(","):
        part = part.strip()
        match = re.fullmatch(r"(node|edge)?((?:[.#][\w-]+)*)(\[(\w+)\])?", part)
        if not match or not part:
            continue
        if match.group(1) and match.group(1) != kind:
            continue
        ok = all(
            data.get("id") == token[1:] if token[0] == "#" else token[1:] in classes
            for token in re.findall(r"[.#][\w-]+", match.group(2) or "")
        )
        if match.group(4) and data.get(match.group(4)) in (None, ""):
            ok = False
        if ok:
            return True
    return False


def _style(kind: str, element: dict[str, Any], stylesheet: list[dict[str, Any]]) -> dict[str, Any]:
    style = dict(NODE_DEFAULTS if kind == "node" else EDGE_DEFAULTS)
    for rule in stylesheet:
        if _matches(str(rule.get("selector", "")), kind, element):
            style.update({str(k): v for k, v in (rule.get("style") or {}).items()})
    return style


def _colour(value: Any, default: str) -> str:
    text = str(value).strip()
    return text if _COLOUR.match(text) else default


def _number(value: Any, default: float) -> float:
    try:
        return float(str(value).removesuffix("px"))
    except ValueError:
        return default


def _label(element: dict[str, Any], style: dict[str, Any]) -> str:
    label = style.get("label")
    if isinstance(label, str) and (found := re.fullmatch(r"data\((\w+)\)", label.strip())):
        return str(element["data"].get(found.group(1), ""))
    if isinstance(label, str):
        return label
    return str(element["data"].get("label", ""))


def positions(spec: dict[str, Any]) -> dict[str, tuple[float, float]]:
    """Node id -> (x, y) in layout units, from the spec's layout (networkx for all but ``preset``)."""
    import networkx as nx  # here, not at the top: a site without graphs never pays its import

    nodes = [n["data"]["id"] for n in spec["nodes"]]
    g = nx.DiGraph()
    g.add_nodes_from(nodes)
    g.add_edges_from((e["data"]["source"], e["data"]["target"]) for e in spec["edges"])
    name = (spec.get("layout") or {}).get("name", "preset")
    placed = {n["data"]["id"]: (n["position"]["x"], n["position"]["y"]) for n in spec["nodes"] if "position" in n}
    if name == "preset" and len(placed) == len(nodes):
        return placed
    if name == "breadthfirst":
        return _layered(g)
    if name in ("circle", "concentric"):
        found = nx.circular_layout(g) if name == "circle" else nx.shell_layout(g, _shells(g))
    elif name == "grid":
        columns = max(1, math.ceil(math.sqrt(len(nodes))))
        found = {node: (k % columns, k // columns) for k, node in enumerate(nodes)}
    elif name == "random":
        found = nx.random_layout(g, seed=1)
    else:  # cose, and preset with nodes missing a position: a force-directed layout
        found = nx.spring_layout(g, seed=1, pos=placed or None, fixed=list(placed) or None)
    return {node: (float(x), float(y)) for node, (x, y) in found.items()}


def _layered(g: "nx.DiGraph") -> dict[str, tuple[float, float]]:
    """Top-down layers by breadth-first depth from the roots (nodes nothing points to)."""
    import networkx as nx

    depth: dict[str, int] = {}
    roots = [n for n in g.nodes if g.in_degree(n) == 0] or list(g.nodes)[:1]
    for component in nx.weakly_connected_components(g):
        starts = [n for n in roots if n in component] or [next(iter(component))]
        undirected = g.subgraph(component).to_undirected()
        for layer, members in enumerate(nx.bfs_layers(undirected, starts)):
            for node in members:
                depth.setdefault(node, layer)
    for node, layer in depth.items():
        g.nodes[node]["layer"] = layer
    found = nx.multipartite_layout(g, subset_key="layer", align="horizontal")
    return {node: (float(x), float(y)) for node, (x, y) in found.items()}


def _shells(g: "nx.DiGraph") -> list[list[str]]:
    by_degree = sorted(g.nodes, key=lambda n: -g.degree(n))
    if len(by_degree) <= 1:
        return [by_degree]
    inner = [n for n in by_degree if g.degree(n) == g.degree(by_degree[0])]
    return [inner, [n for n in by_degree if n not in inner]]


def graph_view(spec: dict[str, Any]) -> dict[str, Any]:
    """Nodes and edges placed within the spec's width and height, with their drawing styles."""
    width, height = float(spec.get("width", 500)), float(spec.get("height", 200))
    stylesheet = spec.get("stylesheet") or []
    raw = positions(spec)
    xs, ys = [p[0] for p in raw.values()] or [0.0], [p[1] for p in raw.values()] or [0.0]
    span_x, span_y = (max(xs) - min(xs)) or 1.0, (max(ys) - min(ys)) or 1.0
    preset = (spec.get("layout") or {}).get("name", "preset") == "preset"
    if preset:  # the author's pixels, as Cytoscape's preset layout fits them: keep the aspect ratio
        scale = min((width - 2 * PADDING) / span_x, (height - 2 * PADDING) / span_y, 1.0 if span_x > 1 else math.inf)
        scale_x = scale_y = scale if math.isfinite(scale) else 1.0
    else:
        scale_x, scale_y = (width - 2 * PADDING) / span_x, (height - 2 * PADDING) / span_y
    # a single row or column sits in the middle; otherwise the drawing fills the box inside the padding
    left = width / 2 if len(set(xs)) == 1 else (width - span_x * scale_x) / 2 if preset else PADDING
    top = height / 2 if len(set(ys)) == 1 else (height - span_y * scale_y) / 2 if preset else PADDING
    place = {node: (left + (x - min(xs)) * scale_x, top + (y - min(ys)) * scale_y) for node, (x, y) in raw.items()}

    nodes, boxes = [], {}
    for element in spec["nodes"]:
        style = _style("node", element, stylesheet)
        label = _label(element, style)
        font = _number(style.get("font-size"), FONT_PX)
        w = _number(style.get("width"), max(30.0, len(label) * CHAR_PX * font / FONT_PX + 16))
        h = _number(style.get("height"), font + 14)
        x, y = place[element["data"]["id"]]
        shape = str(style.get("shape", "round-rectangle"))
        boxes[element["data"]["id"]] = (x, y, w / 2, h / 2, shape)
        nodes.append(
            {
                "id": element["data"]["id"],
                "label": label,
                "x": x,
                "y": y,
                "w": w,
                "h": h,
                "ellipse": shape in ("ellipse", "circle"),
                "rx": 6 if shape == "round-rectangle" else 0,
                "fill": _colour(style.get("background-color"), NODE_DEFAULTS["background-color"]),
                "stroke": _colour(style.get("border-color"), NODE_DEFAULTS["border-color"]),
                "stroke_width": _number(style.get("border-width"), 1.5),
                "color": _colour(style.get("color"), NODE_DEFAULTS["color"]),
                "font": font,
            }
        )
    edges = []
    for element in spec["edges"]:
        style = _style("edge", element, stylesheet)
        source, target = boxes[element["data"]["source"]], boxes[element["data"]["target"]]
        (x1, y1), (x2, y2) = _clip(source, target), _clip(target, source)
        arrow = str(style.get("target-arrow-shape", "none")) != "none"
        edges.append(
            {
                "x1": x1,
                "y1": y1,
                "x2": x2,
                "y2": y2,
                "head": _arrowhead(x1, y1, x2, y2) if arrow else "",
                "label": _label(element, style) if "label" in element["data"] or "label" in style else "",
                "mx": (x1 + x2) / 2,
                "my": (y1 + y2) / 2,
                "stroke": _colour(style.get("line-color"), EDGE_DEFAULTS["line-color"]),
                "stroke_width": _number(style.get("width"), 1.5),
                "dash": {"dashed": "6 4", "dotted": "2 3"}.get(str(style.get("line-style")), ""),
                "color": _colour(style.get("color"), EDGE_DEFAULTS["color"]),
                "font": _number(style.get("font-size"), FONT_PX - 1),
            }
        )
    return {
        "width": width,
        "height": height,
        "nodes": nodes,
        "edges": edges,
        "summary": f"graph of {len(nodes)} node(s) and {len(edges)} edge(s)",
    }


def _arrowhead(x1: float, y1: float, x2: float, y2: float, size: float = 9.0) -> str:
    """The points of a filled triangle ending at (x2, y2), pointing along the edge (an SVG polygon's
    ``points``: drawn per edge, so a page with several graphs needs no shared marker ids)."""
    length = math.hypot(x2 - x1, y2 - y1) or 1.0
    ux, uy = (x2 - x1) / length, (y2 - y1) / length
    bx, by = x2 - ux * size, y2 - uy * size
    return " ".join(
        f"{px:.1f},{py:.1f}"
        for px, py in ((x2, y2), (bx - uy * size / 2, by + ux * size / 2), (bx + uy * size / 2, by - ux * size / 2))
    )


def _clip(box: tuple[float, float, float, float, str], towards: tuple[float, float, float, float, str]) -> tuple[float, float]:
    """Where the line from ``box``'s centre to ``towards``'s leaves ``box``'s outline."""
    x, y, half_w, half_h, shape = box
    dx, dy = towards[0] - x, towards[1] - y
    if dx == 0 and dy == 0:
        return x, y
    if shape in ("ellipse", "circle"):
        t = 1 / math.sqrt((dx / half_w) ** 2 + (dy / half_h) ** 2)
    else:
        t = min(half_w / abs(dx) if dx else math.inf, half_h / abs(dy) if dy else math.inf)
    return x + dx * t, y + dy * t
