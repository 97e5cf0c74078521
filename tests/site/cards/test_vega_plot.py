import re

import pytest

from tracer.site.cards.vega_plot import MAX_PLOT_POINTS, PlotError, bound_data, draw, external_data, render_svg

POINTS = [{"x": i, "y": i * i, "c": "odd" if i % 2 else "even"} for i in range(8)]
ENC = {"x": {"field": "x", "type": "quantitative"}, "y": {"field": "y", "type": "quantitative"}}
LAYERED = {"data": {"values": POINTS}, "layer": [{"mark": "line", "encoding": ENC}, {"mark": "point", "encoding": ENC}]}
FACETED = {
    "data": {"values": POINTS},
    "facet": {"column": {"field": "c"}},
    "spec": {"mark": "bar", "encoding": {"x": {"field": "x", "type": "ordinal"}, "y": {"field": "y", "type": "quantitative"}}},
}


def offline_safe(svg: str) -> bool:
    # nothing a browser would fetch or run: no scripts, no external href/src/url(), no @import'ed fonts
    return not re.search(r"<script|@import|url\((?!#)|(?:href|src)=\"(?!#)|@font-face", svg)


def test_layered_spec_renders_as_svg():
    svg = render_svg(LAYERED)
    assert svg.startswith("<svg") and offline_safe(svg)
    assert "mark-line" in svg and "mark-symbol" in svg  # both layers drawn


def test_faceted_spec_renders_one_panel_per_value():
    svg = render_svg(FACETED)
    assert svg.startswith("<svg") and offline_safe(svg)
    assert ">odd<" in svg and ">even<" in svg  # facet headers
    assert svg.count('class="mark-rect role-mark') == 2  # bars in two panels


def test_data_is_capped_everywhere_in_the_spec():
    rows = [{"x": i} for i in range(MAX_PLOT_POINTS + 10)]
    spec = {"layer": [{"data": {"values": rows}, "mark": "point"}], "datasets": {"d": rows}}
    bounded, dropped = bound_data(spec)
    assert dropped == 20 and len(bounded["layer"][0]["data"]["values"]) == MAX_PLOT_POINTS
    assert len(bounded["datasets"]["d"]) == MAX_PLOT_POINTS and len(spec["datasets"]["d"]) == MAX_PLOT_POINTS + 10


def test_generated_sequences_are_capped_too():
    spec = {
        "data": {"sequence": {"start": 0, "stop": 1e9, "as": "x"}},
        "mark": "point",
        "encoding": {"x": {"field": "x", "type": "quantitative"}},
    }
    bounded, dropped = bound_data(spec)
    assert bounded["data"]["sequence"]["stop"] == MAX_PLOT_POINTS and dropped == 1e9 - MAX_PLOT_POINTS
    chart = draw(spec, max_points=50)  # draws at once instead of generating a billion rows
    assert chart.svg is not None and chart.dropped_points == 1e9 - 50 and chart.svg.count("<path") >= 50


def test_external_data_is_refused_not_fetched():
    spec = {"layer": [{"data": {"url": "https://example.org/data.csv"}, "mark": "point"}]}
    assert external_data(spec) == "https://example.org/data.csv"
    with pytest.raises(PlotError, match="not fetched"):
        render_svg(spec)


def test_a_bad_spec_gives_a_one_line_reason():
    chart = draw({"mark": "no-such-mark", "data": {"values": POINTS}})
    assert chart.svg is None and chart.error and "\n" not in chart.error
    good = draw(LAYERED)
    assert good.error is None and good.name.endswith(".svg") and good.name == draw(LAYERED).name
