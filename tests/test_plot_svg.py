from tracer.site.plot_svg import log_ticks, nice_ticks, simple_plot, tick_label


def spec(mark, values, x_type="quantitative", y_scale=None, **encoding):
    y = {"field": "y", "type": "quantitative"}
    if y_scale:
        y["scale"] = {"type": y_scale}
    return {"mark": mark, "data": {"values": values}, "encoding": {"x": {"field": "x", "type": x_type}, "y": y, **encoding}}


def test_ticks():
    assert nice_ticks(0, 15) == [0, 5, 10, 15]
    assert nice_ticks(0.013, 1.7) == [0.0, 0.5, 1.0, 1.5, 2.0]
    assert log_ticks(0.003, 1200) == [0.01, 0.1, 1.0, 10.0, 100.0, 1000.0]
    assert [tick_label(v) for v in (20.0, 0.5, 0.001)] == ["20", "0.5", "0.001"]


def test_line_chart_scales_points_into_the_box():
    chart = simple_plot(spec("line", [{"x": 0, "y": 0}, {"x": 10, "y": 5}, {"x": 5, "y": 10}]))
    points = [(p["x"], p["y"]) for p in chart["series"][0]["dots"]]
    assert points[0] == (chart["left"], chart["bottom"])  # (0, 0) at the bottom-left corner
    assert points[1][0] == chart["right"]
    assert points[2][1] == chart["top"]  # the largest y at the top
    assert chart["series"][0]["polyline"].split()[0] == f"{points[0][0]},{points[0][1]}"


def test_log_scale_puts_decades_evenly():
    chart = simple_plot(spec("line", [{"x": 0, "y": 1}, {"x": 1, "y": 10}, {"x": 2, "y": 100}], y_scale="log"))
    ys = [p["y"] for p in chart["series"][0]["dots"]]
    assert round(ys[0] - ys[1], 1) == round(ys[1] - ys[2], 1)


def test_bar_chart_over_categories():
    chart = simple_plot(spec("bar", [{"x": "a", "y": 2}, {"x": "b", "y": 4}], x_type="ordinal"))
    a, b = chart["bars"]
    assert a["height"] * 2 == b["height"]
    assert a["y"] + a["height"] == chart["bottom"]  # bars stand on zero
    assert [t["label"] for t in chart["x_ticks"]] == ["a", "b"]


def test_color_field_splits_series():
    values = [{"x": i, "y": i * k, "c": f"k={k}"} for k in (1, 2) for i in range(3)]
    chart = simple_plot(spec("line", values, color={"field": "c"}))
    assert [s["name"] for s in chart["series"]] == ["k=1", "k=2"]


def test_unsupported_specs_give_none():
    assert simple_plot({"mark": "arc", "data": {"values": [{"x": 1, "y": 1}]}}) is None
    assert simple_plot({"mark": "line", "data": {"url": "data.csv"}, "encoding": {"x": {"field": "x"}, "y": {"field": "y"}}}) is None
    assert simple_plot(spec("line", [{"x": 1, "y": "nan"}])) is None
