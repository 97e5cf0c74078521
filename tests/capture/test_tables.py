"""table() and matplotlib figures in plot(): bounded records at capture, an HTML table and an SVG at build."""

from __future__ import annotations

import re

import pytest

from helpers.traced import traced
from tracer.site.cards.render import HtmlRenderer
from tracer.site.cards.renderings import table_view
from tracer.site.cards.templates import template_env

pytest.importorskip("pandas")
pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def trace():
    return traced("tables_and_figures")


def renderings(trace, kind):
    return [r for step in trace["steps"] for r in step["renderings"] if r["type"] == kind]


def test_a_dataframe_keeps_its_columns_index_and_exact_numbers(trace):
    frame = renderings(trace, "table")[0]
    assert frame["columns"] == ["model", "params", "loss"] and frame["index"] == ["a", "b"]
    assert frame["rows"] == [["small", 124_000_000, 3.25], ["large", 2**62, 2.5]]
    html = str(HtmlRenderer(trace, template_env()).rendering(frame))
    assert '<th scope="col">params</th>' in html and "4,611,686,018,427,387,904" in html
    assert '<th scope="row">b</th>' in html


def test_a_long_array_is_bounded_and_says_how_many_rows_it_had(trace):
    array = renderings(trace, "table")[1]
    assert array["total_rows"] == 100 and len(array["rows"]) == 50
    assert array["rows"][0] == [0.1, 1.1]  # float32 elements written as float32 writes them
    view = table_view(array)
    assert view["more_rows"] == 50 and view["numeric"] == [True, True]
    html = str(HtmlRenderer(trace, template_env()).rendering(array))
    assert "the first 50 of 100 rows" in html


def test_records_take_every_key_as_a_column(trace):
    records = renderings(trace, "table")[2]
    assert records["columns"] == ["name", "lr", "momentum"]
    assert records["rows"] == [["adam", 0.001, None], ["sgd", 0.1, 0.9]]


def test_a_matplotlib_figure_is_drawn_to_svg_when_traced_and_shown_as_an_image(trace):
    (figure,) = renderings(trace, "plot")
    assert figure["svg"].lstrip().startswith(("<?xml", "<svg")) and figure["title"] == "A figure"
    assert "<script>alert" not in figure["svg"]  # matplotlib escapes the label's text
    renderer = HtmlRenderer(trace, template_env())
    html = str(renderer.rendering(figure))
    name = re.search(r'src="\{root\}[^"]*/(fig-[0-9a-f]+\.svg)"', html).group(1)
    assert renderer.charts[name] == figure["svg"] and '<img class="lt-plot-img"' in html


def test_table_refuses_what_it_cannot_show():
    from tracer.capture.tables import table_rendering

    with pytest.raises(TypeError, match="table\\(\\) takes a DataFrame"):
        table_rendering(object())
    with pytest.raises(ValueError, match="1-D or 2-D"):
        import numpy as np

        table_rendering(np.zeros((2, 2, 2)))


def test_a_table_cell_holding_a_5000_digit_int_is_shown_by_size_without_str(tmp_path):
    """Python's str() refuses ints past 4,300 digits: the cell's size is counted from its bits."""
    from helpers.projects import make_project
    from helpers.site import trace_ok

    root = make_project(
        tmp_path,
        {
            "big.py": """
                from tracer import table


                def main():
                    table([[10**5000, 1], [-(10**4999) + 7, 2]])
                    done = True  # @inspect done
                """
        },
    )
    trace = trace_ok(root / "lectures" / "big.py", tmp_path)
    (rendering,) = renderings(trace, "table")
    assert rendering["rows"] == [["≈1e5000", 1], ["≈-1e4998", 2]]


def test_decimal_digits_counts_exactly_at_every_power_of_ten():
    import sys

    from tracer.capture.shortest_floats import decimal_digits

    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        for exponent in (0, 1, 2, 15, 16, 17, 300, 4300, 4301, 5000, 12_345):
            for n in (10**exponent - 1, 10**exponent, 10**exponent + 1, -(10**exponent)):
                assert decimal_digits(n) == len(str(abs(n))), n
    finally:
        sys.set_int_max_str_digits(old)


def test_a_huge_matplotlib_figure_is_refused_before_it_is_drawn():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from tracer.capture.tables import MAX_FIGURE_SIDE_PX, figure_too_big

    figure = plt.figure(figsize=(200, 200), dpi=100)  # 20,000 x 20,000 px
    drawn = []
    figure.canvas.mpl_connect("draw_event", lambda event: drawn.append(event))
    try:
        reason = figure_too_big(figure)
        assert reason is not None and "20,000 x 20,000 px" in reason and f"{MAX_FIGURE_SIDE_PX:,} px a side" in reason
        assert "set_size_inches" in reason and "dpi" in reason and not drawn
        figure.set_size_inches(6.4, 4.8)
        assert figure_too_big(figure) is None
    finally:
        plt.close(figure)


def test_plot_of_a_huge_figure_ends_the_lecture_with_a_line_saying_how_to_shrink_it(tmp_path):
    from helpers.projects import make_project
    from tracer.capture.runner import run_lecture

    root = make_project(
        tmp_path,
        {
            "huge.py": """
                import matplotlib
                matplotlib.use("Agg")
                import matplotlib.pyplot as plt
                from tracer import plot


                def main():
                    fig = plt.figure(figsize=(200, 200), dpi=100)
                    plot(fig)
                """
        },
    )
    result = run_lecture(root / "lectures" / "huge.py", output=tmp_path / "huge.json")
    assert result.status == "error"
    assert "20,000 x 20,000 px" in result.error_line and "huge.py:10" in result.error_line
