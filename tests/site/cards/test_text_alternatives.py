"""The sentences that stand in for heatmaps, storage diagrams and the memory chart (text_alternatives.py),
checked on hand-made blocks and on what heatmap(), stride_diagram() and memory_chart() put in their views."""

from __future__ import annotations

import re

from helpers.site import build_site
from helpers.traced import trace_all, trace_path
from tracer.site.cards.heatmap import heatmap
from tracer.site.pages.memory_chart import memory_chart
from tracer.site.cards.stride_diagram import stride_diagram
from tracer.site.cards.interface_strings import load
from tracer.site.cards.text_alternatives import block_pattern, heatmap_text, storage_order, stride_text


def test_patterns_a_reader_sees_first():
    assert block_pattern([[1, 0, 0], [0, 1, 0], [0, 0, 1]]) == "diagonal"
    assert block_pattern([[1, 0, 0], [2, 3, 0], [4, 5, 6]]) == "lower-triangular"
    assert block_pattern([[1, float("-inf")], [2, 3]]) == "lower-triangular"  # a causal attention mask
    assert block_pattern([[1, 2, 3], [0, 4, 5], [0, 0, 6]]) == "upper-triangular"
    assert block_pattern([[7, 7, 7], [1, 1, 1]]) == "constant rows"
    assert block_pattern([[1, 2, 3], [1, 2, 3]]) == "constant columns"
    assert block_pattern([[1, 2], [3, 4]]) == ""
    # a sample (an elided row) may only seem triangular: only row/column patterns are named
    assert block_pattern([[1, 0], None, [4, 5]]) == ""


def test_a_heatmaps_alt_gives_size_scale_range_and_pattern():
    view = heatmap([[1.0, 0.0, 0.0], [0.5, 1.0, 0.0], [0.25, 0.5, 1.0]], (3, 3))
    assert heatmap_text(**view["alt"]) == "heatmap of 3 × 3 values, from 0.0 to 1.0, lower-triangular"
    signed = heatmap([[-1, 2], [3, -4]], (2, 2))
    assert heatmap_text(**signed["alt"]) == "heatmap of 2 × 2 values in colours diverging around 0, from -4 to 3"
    sampled = heatmap([[1, "…", 3], "…", [7, "…", 9]], (10, 10))
    assert heatmap_text(**sampled["alt"]).startswith("heatmap of 10 × 10 values (a sample)")
    assert "with NaN cells" in heatmap_text(**heatmap([[1.0, "nan"], [2.0, 3.0]], (2, 2))["alt"])
    both = heatmap_text(2, 2, "", "", "sequential", "", False, ["NaN", "±Inf"])
    assert both == "heatmap of 2 × 2 values, no finite values, with NaN and ±Inf cells"
    pooled = heatmap_text(4, 4, "-1", "1", "diverging", "", False, pooled="8×8")
    assert pooled == "heatmap of 4 × 4 means of 8×8 blocks in colours diverging around 0, from -1 to 1"


def test_a_heatmaps_alt_in_simplified_chinese():
    zh = load("zh-Hans")
    view = heatmap([[1.0, 0.0, 0.0], [0.5, 1.0, 0.0], [0.25, 0.5, 1.0]], (3, 3))
    assert heatmap_text(**view["alt"], words=zh) == "热图：3 × 3 个值，取值从 0.0 到 1.0，下三角形"
    sampled = heatmap([[-1, "…", 3], "…", [7, "…", "nan"]], (10, 10))
    assert heatmap_text(**sampled["alt"], words=zh) == (
        "热图：10 × 10 个值（抽样），颜色以 0 为中心向两侧发散，取值从 -1.0 到 7.0，含 NaN 单元格"
    )
    pooled = heatmap_text(4, 4, "-1", "1", "sequential", "", False, ["NaN", "±Inf"], "8×8", words=zh)
    assert pooled == "热图：4 × 4 个 8×8 块的均值，取值从 -1 到 1，含 NaN 和 ±Inf 单元格"


def test_storage_order_in_words():
    assert storage_order([2, 3], [3, 1]).startswith("row-major")
    assert storage_order([3, 2], [1, 3]).startswith("column-major")  # x.T of a contiguous (2, 3)
    assert storage_order([2, 3], [0, 1]).startswith("broadcast: dimension 0")
    assert storage_order([2, 2], [6, 2]).startswith("row-major with gaps")
    assert storage_order([2, 3, 4], [4, 8, 1]).startswith("permuted")


def test_each_stride_diagram_is_labelled_by_its_own_order():
    contiguous = stride_text(**stride_diagram([2, 3], [3, 1], 0, 6)["alt"])
    transposed = stride_text(**stride_diagram([3, 2], [1, 3], 0, 6)["alt"])
    assert contiguous != transposed
    assert contiguous == "6 elements in storage cells 0–5, row-major (index order, last index fastest)"
    assert "column-major" in transposed
    assert stride_text([1], [1], 4, 4, 1, 1) == "1 element in storage cells 4–4, a single element"
    assert stride_text([300], [1], 0, 95, 256, 300).startswith("256 of 300 elements in storage cells 0–95, row-major")


def test_a_storage_diagrams_label_in_simplified_chinese():
    zh = load("zh-Hans")
    assert stride_text(**stride_diagram([3, 2], [1, 3], 0, 6)["alt"], words=zh) == (
        "6 个元素，位于存储单元 0–5，列优先（第一个索引变化最快：转置视图）"
    )
    assert stride_text([300], [1], 0, 95, 256, 300, words=zh) == (
        "300 个元素中的 256 个，位于存储单元 0–95，行优先（按索引顺序，最后一个索引变化最快）"
    )
    assert storage_order([2, 3, 4], [0, 0, 1], zh) == "广播：第 0、1 维重复使用相同的单元格（stride 为 0）"


def test_the_memory_charts_description_names_its_peak():
    steps = [
        {
            "stack": [{"path": "l.py", "line": 1, "function": "main"}],
            "env": {},
            "renderings": [],
            "stdout": "",
            "memory": {"nbytes": n, "peak_nbytes": n},
        }
        for n in (0, 1024, 4096, 2048)
    ]
    chart = memory_chart({"steps": steps, "environment": {"memory_source": "cpu_recorded"}})
    assert chart["description"] == (
        "CPU memory of recorded tensors over 4 steps: starts at 0 B, peaks at 4.0 KiB "
        "at step 2, ends at 2.0 KiB. The table below lists the values."
    )
    assert [(p["counter"], p["nbytes_text"]) for p in chart["links"]][:3] == [(0, "0 B"), (1, "1.0 KiB"), (2, "4.0 KiB")]


def test_a_chinese_courses_heatmaps_and_storage_diagrams_are_described_in_chinese(tmp_path):
    trace_all("zh_course")
    site = build_site(tmp_path, [trace_path("zh_course")], language="zh")
    page = (site / "lectures" / "zh_course" / "index.html").read_text(encoding="utf-8")
    steps = (site / "lectures" / "zh_course" / "data.js").read_text(encoding="utf-8")
    heatmap_alts = re.findall(r'<span class="lt-hm [^"]*"[^>]*><img [^>]*alt="([^"]*)"', page + steps.replace('\\"', '"'))
    storage_labels = re.findall(r'class="lt-stride-svg" role="img" aria-label="([^"]*)"', page + steps.replace('\\"', '"'))
    assert heatmap_alts and all(alt.startswith("热图：2 × 3 个值") or alt.startswith("热图：3 × 2 个值") for alt in heatmap_alts)
    assert "6 个元素，位于存储单元 0–5，列优先（第一个索引变化最快：转置视图）" in storage_labels  # y = x.T
    assert "6 个元素，位于存储单元 0–5，行优先（按索引顺序，最后一个索引变化最快）" in storage_labels
    for english in ("heatmap of", "in storage cells", "row-major", "column-major"):
        assert english not in page and english not in steps
