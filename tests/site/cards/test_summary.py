"""A value card's one-line summary (tracer/site/cards/value_families.py, kinds/) and the step viewer's data that carries it."""

from __future__ import annotations

from tracer.site.cards.render import HtmlRenderer

from tracer.site.cards.templates import template_env
from tracer.site.cards.value_families import summary_view
from tracer.site.pages.viewer_data import build_viewer_data

from helpers.traced import traced


def tensor(shape, values, numel, dtype="float32"):
    return {"type": "tensor", "dtype": dtype, "shape": shape, "numel": numel, "values": values}


def test_a_tensor_summary_names_kind_dtype_shape_and_its_first_elements_in_order():
    view = summary_view(tensor([3, 4], [[0.0, 1.5, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], 12))
    assert view == {"kind": "tensor", "dtype": "float32", "shape": "(3, 4)", "text": "[0.0, 1.5, 2.0, 3.0, …]"}
    assert summary_view(tensor([2], [1, 2], 2, "int64"))["text"] == "[1, 2]"
    assert summary_view(tensor([], 0.5, 1))["text"] == "0.5"
    assert summary_view(tensor([0, 3], [], 0))["text"] == "empty"
    # an elided preview: the elements before the elision, then "…"
    assert summary_view(tensor([1000], [0, 1, "…", 999], 1000, "int64"))["text"] == "[0, 1, …]"
    # complex elements are [re, im] pairs at the element's depth
    assert summary_view(tensor([2], [[1.0, 2.0], [0.0, -1.0]], 2, "complex64"))["text"] == "[1.0+2.0j, 0.0-1.0j]"


def test_one_line_values_have_no_summary_and_long_ones_are_cut():
    for value in (
        {"type": "int", "value": 3},
        {"type": "str", "value": "hi"},
        {"type": "none"},
        {"type": "list", "length": 2, "items": [{"type": "int", "value": 1}, {"type": "int", "value": 2}]},
    ):
        assert summary_view(value) is None
    long_repr = summary_view({"type": "object", "class": "Thing", "repr": "x" * 200})
    assert long_repr["kind"] == "Thing" and len(long_repr["text"]) == 40 and long_repr["text"].endswith("…")
    mapping = summary_view(
        {
            "type": "dict",
            "length": 2,
            "items": [
                [{"type": "str", "value": "lr"}, {"type": "float", "value": 0.1}],
                [{"type": "str", "value": "steps"}, {"type": "int", "value": 10}],
            ],
        }
    )
    assert mapping == {"kind": "dict", "dtype": None, "shape": "len 2", "text": "keys 'lr', 'steps'"}
    view = summary_view({"type": "view", "class": "Model", "value": tensor([2], [1.0, 2.0], 2)})
    assert view["kind"] == "Model view: tensor" and view["shape"] == "(2,)"


def test_viewer_data_has_a_summary_per_card():
    trace = traced("many_variables")
    data = build_viewer_data(trace, HtmlRenderer(trace, template_env()))
    assert len(data["summaries"]) == len(data["cards"])
    by_name = {name: card for diff in data["env"].values() for name, card in diff}
    summary = data["summaries"][by_name["f"]]
    assert summary.startswith(
        '<code class="lt-name">f</code> <span class="lt-type">tensor</span> <code>float32</code> <code>(5, 5)</code>'
    )
    assert "[1.0, 1.0, 1.0, 1.0, …]" in summary
    assert data["summaries"][by_name["h"]] is None  # h = 7: its card is one line
    assert data["summaries"][by_name["z"]] is None  # a short string too
    assert data["summaries"][by_name["u"]].startswith('<code class="lt-name">u</code> <span class="lt-type">dict</span>')
