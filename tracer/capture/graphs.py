"""Graph specs for ``graph()``: ``make_graph(nodes, edges, layout=..., stylesheet=..., width=..., height=...)``.

A spec is plain data in Cytoscape's element format, which edtrace courses already write: ``nodes``
and ``edges`` as ``{"data": {...}, "position": {"x", "y"}, "classes": "..."}``, a ``layout``
(``{"name": "preset"}`` uses the nodes' positions; ``breadthfirst``, ``circle``, ``grid``,
``concentric`` and ``cose`` are laid out when the site is built), a ``stylesheet`` of
``{"selector", "style"}`` rules, and the drawing's ``width``/``height`` in pixels. The site draws it
as SVG (``tracer.site.cards.graph_svg``); nothing here lays anything out. ``checked_spec`` validates a spec
(made here or by hand) and raises a one-line error naming what is wrong.
"""

from __future__ import annotations

from typing import Any

LAYOUTS = ("preset", "breadthfirst", "circle", "grid", "concentric", "cose", "random")


def _element(item: Any, is_node: bool, index: int) -> dict[str, Any]:
    what = f"{'node' if is_node else 'edge'} {index}"
    if not isinstance(item, dict):
        raise TypeError(f"make_graph(): {what} must be a dict, got {type(item).__name__}")
    if "data" in item and isinstance(item["data"], dict):  # already in element form
        data, position, classes = dict(item["data"]), item.get("position"), item.get("classes")
    else:
        data = dict(item)
        position = {"x": data.pop("x"), "y": data.pop("y")} if is_node and "x" in data and "y" in data else None
        classes = data.pop("classes", None)
    keys = ("id",) if is_node else ("source", "target")
    for key in keys:
        if data.get(key) is None:
            raise ValueError(f"make_graph(): {what} has no {key!r}")
        data[key] = str(data[key])  # ids are strings, as Cytoscape's are
    if is_node:
        data.setdefault("label", data["id"])
    element: dict[str, Any] = {"data": {str(k): _plain(v) for k, v in data.items()}}
    if position is not None:
        try:
            element["position"] = {"x": float(position["x"]), "y": float(position["y"])}
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"make_graph(): {what} has a position that is not two numbers: {position!r}") from None
    if classes:
        element["classes"] = " ".join(classes) if isinstance(classes, (list, tuple)) else str(classes)
    return element


def _plain(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return str(value)


def make_graph(
    nodes: list[dict[str, Any]],
    edges: list[dict[str, Any]],
    layout: str | dict[str, Any] = "preset",
    stylesheet: list[dict[str, Any]] | None = None,
    width: int = 500,
    height: int = 200,
) -> dict[str, Any]:
    """The spec of a graph, for ``graph()``.

    ``nodes``: dicts with ``id`` (required), ``label`` (default: the id), ``x``/``y`` (positions,
    for the ``preset`` layout), ``classes`` and any other fields (which the stylesheet may use).
    ``edges``: dicts with ``source``, ``target``, optional ``label`` and ``classes``. ``layout``: a
    name from ``LAYOUTS`` or a dict with ``name``. ``stylesheet``: ``[{"selector": "node.hot",
    "style": {"background-color": "red"}}]``, after the defaults. ``width``/``height``: pixels.
    """
    return checked_spec(
        {
            "nodes": list(nodes),
            "edges": list(edges),
            "layout": {"name": layout} if isinstance(layout, str) else layout,
            "stylesheet": stylesheet or [],
            "width": width,
            "height": height,
        }
    )


def checked_spec(spec: Any) -> dict[str, Any]:
    """``spec`` validated and made plain data (element form); TypeError/ValueError says what is wrong."""
    if not isinstance(spec, dict):
        raise TypeError(f"graph() takes a spec from make_graph(), got {type(spec).__name__}")
    nodes = [_element(n, True, i) for i, n in enumerate(spec.get("nodes") or [])]
    edges = [_element(e, False, i) for i, e in enumerate(spec.get("edges") or [])]
    ids = {n["data"]["id"] for n in nodes}
    for i, edge in enumerate(edges):
        for end in ("source", "target"):
            if edge["data"][end] not in ids:
                raise ValueError(f"make_graph(): edge {i} {end} {edge['data'][end]!r} is not a node id")
    layout = spec.get("layout") or {"name": "preset"}
    layout = {"name": layout} if isinstance(layout, str) else layout
    if not isinstance(layout, dict) or layout.get("name", "preset") not in LAYOUTS:
        raise ValueError(f"make_graph(): layout {layout!r} is not one of {', '.join(LAYOUTS)}")
    stylesheet = spec.get("stylesheet") or []
    if not isinstance(stylesheet, list) or not all(isinstance(r, dict) and "selector" in r for r in stylesheet):
        raise ValueError("make_graph(): stylesheet must be a list of {'selector': ..., 'style': {...}} rules")
    sizes = []
    for key, default in (("width", 500), ("height", 200)):
        value = spec.get(key, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 5000:
            raise ValueError(f"make_graph(): {key} must be a number of pixels (1 to 5000), got {value!r}")
        sizes.append(value)
    return {
        "nodes": nodes,
        "edges": edges,
        "layout": _plain(layout),
        "stylesheet": _plain(stylesheet),
        "width": sizes[0],
        "height": sizes[1],
    }
