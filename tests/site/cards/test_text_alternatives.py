"""The sentences that stand in for heatmaps, storage diagrams and the memory chart (text_alternatives.py),
checked on hand-made blocks and on what heatmap(), stride_diagram() and memory_chart() put in their views."""

from __future__ import annotations

from tracer.site.cards.heatmap import heatmap
from tracer.site.pages.memory_chart import memory_chart
from tracer.site.cards.stride_diagram import stride_diagram
from tracer.site.cards.text_alternatives import block_pattern, storage_order


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
    assert view["description"] == "heatmap of 3 × 3 values, from 0.0 to 1.0, lower-triangular"
    signed = heatmap([[-1, 2], [3, -4]], (2, 2))
    assert signed["description"] == "heatmap of 2 × 2 values in colours diverging around 0, from -4 to 3"
    sampled = heatmap([[1, "…", 3], "…", [7, "…", 9]], (10, 10))
    assert sampled["description"].startswith("heatmap of 10 × 10 values (a sample)")
    assert "with NaN cells" in heatmap([[1.0, "nan"], [2.0, 3.0]], (2, 2))["description"]


def test_storage_order_in_words():
    assert storage_order([2, 3], [3, 1]).startswith("row-major")
    assert storage_order([3, 2], [1, 3]).startswith("column-major")  # x.T of a contiguous (2, 3)
    assert storage_order([2, 3], [0, 1]).startswith("broadcast: dimension 0")
    assert storage_order([2, 2], [6, 2]).startswith("row-major with gaps")
    assert storage_order([2, 3, 4], [4, 8, 1]).startswith("permuted")


def test_each_stride_diagram_is_labelled_by_its_own_order():
    contiguous = stride_diagram([2, 3], [3, 1], 0, 6)["description"]
    transposed = stride_diagram([3, 2], [1, 3], 0, 6)["description"]
    assert contiguous != transposed
    assert contiguous == "6 elements in storage cells 0–5, row-major (index order, last index fastest)"
    assert "column-major" in transposed


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
