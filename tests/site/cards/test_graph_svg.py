import pytest

from tracer.capture.graphs import make_graph
from tracer.site.cards.graph_svg import graph_view

NODES = [{"id": "a"}, {"id": "b"}, {"id": "c", "classes": "hot"}, {"id": "d"}]
EDGES = [{"source": "a", "target": "b", "label": "run"}, {"source": "a", "target": "c"}, {"source": "c", "target": "d"}]


@pytest.mark.parametrize("layout", ["breadthfirst", "circle", "concentric", "grid", "cose", "random"])
def test_every_layout_places_every_node_inside_the_drawing(layout):
    view = graph_view(make_graph(NODES, EDGES, layout=layout, width=400, height=240))
    assert [n["id"] for n in view["nodes"]] == ["a", "b", "c", "d"]
    for node in view["nodes"]:
        assert 0 <= node["x"] - node["w"] / 2 and node["x"] + node["w"] / 2 <= 400, (layout, node)
        assert 0 <= node["y"] - node["h"] / 2 and node["y"] + node["h"] / 2 <= 240, (layout, node)
    assert len({(round(n["x"]), round(n["y"])) for n in view["nodes"]}) == 4  # no two on one spot


def test_breadthfirst_puts_each_layer_below_the_one_before():
    y = {n["id"]: n["y"] for n in graph_view(make_graph(NODES, EDGES, layout="breadthfirst"))["nodes"]}
    assert y["a"] < y["b"] == y["c"] < y["d"]


def test_preset_keeps_the_authors_positions_and_stylesheet_applies():
    spec = make_graph(
        [{"id": "x", "x": 0, "y": 0}, {"id": "y", "x": 100, "y": 0, "classes": ["hot"]}],
        [{"source": "x", "target": "y"}],
        stylesheet=[
            {"selector": ".hot", "style": {"background-color": "#ff0000", "shape": "ellipse"}},
            {"selector": "edge", "style": {"target-arrow-shape": "triangle", "line-style": "dashed"}},
            {"selector": "node", "style": {"label": "data(id)"}},
        ],
        width=300,
        height=100,
    )
    view = graph_view(spec)
    x, y = view["nodes"]
    assert y["x"] - x["x"] == pytest.approx(100) and x["y"] == y["y"] == 50  # the author's spacing, centred
    assert y["fill"] == "#ff0000" and y["ellipse"] and not x["ellipse"]
    (edge,) = view["edges"]
    assert edge["dash"] == "6 4" and edge["head"]  # an arrowhead drawn as a polygon ending at the target's border
    assert edge["x2"] == pytest.approx(y["x"] - y["w"] / 2)


def test_unsafe_colours_are_dropped():
    spec = make_graph(
        [{"id": "x"}], [], layout="grid", stylesheet=[{"selector": "node", "style": {"background-color": 'red" onload="x'}}]
    )
    assert graph_view(spec)["nodes"][0]["fill"] == "#e8eef7"


@pytest.mark.parametrize(
    "nodes, edges, kwargs, message",
    [
        ([{"label": "no id"}], [], {}, "node 0 has no 'id'"),
        ([{"id": "a"}], [{"source": "a", "target": "z"}], {}, "edge 0 target 'z' is not a node id"),
        ([{"id": "a"}], [], {"layout": "dagre"}, "layout {'name': 'dagre'} is not one of"),
        ([{"id": "a"}], [], {"width": 0}, "width must be a number of pixels"),
    ],
)
def test_bad_specs_say_what_is_wrong(nodes, edges, kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message.replace("(", r"\(").replace("{", r"\{")):
        make_graph(nodes, edges, **kwargs)
