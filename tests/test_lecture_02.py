"""Trace lectures/lecture_02.py once and check that its sections ran and its key values are right."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.site import trace_ok


LECTURE = Path(__file__).resolve().parent.parent / "lectures" / "lecture_02.py"
SECTIONS = [
    "## Memory accounting",
    "## Tensors on GPUs",
    "## Tensor storage",
    "## einops and jaxtyping",
    "## Compute accounting",
    "## Gradients",
    "## Models",
    "## Training",
]


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    return trace_ok(LECTURE, tmp_path_factory.mktemp("lecture_02"))


def recorded(trace, name: str, function: str) -> list[dict]:
    """Every value recorded for ``name`` on steps of lecture function ``function``, in order."""
    return [step["env"][name] for step in trace["steps"] if step["stack"][-1]["function"] == function and name in step["env"]]


def last(trace, name: str, function: str) -> dict:
    values = recorded(trace, name, function)
    assert values, f"{name} was never recorded in {function}()"
    return values[-1]


def steps_per_section(trace) -> dict[str, int]:
    counts: dict[str, int] = {}
    current = None
    for step in trace["steps"]:
        for rendering in step["renderings"]:
            if rendering.get("type") == "markdown" and rendering["data"].startswith("## "):
                current = rendering["data"]
        if current is not None:
            counts[current] = counts.get(current, 0) + 1
    return counts


def test_lecture_completes(trace):
    assert trace["status"] == "ok"
    assert "error" not in trace
    assert trace["lecture"]["title"] == "PyTorch and resource accounting"


def test_every_section_produces_steps_in_order(trace):
    counts = steps_per_section(trace)
    headings = [h for h in counts if h in SECTIONS]
    assert headings == SECTIONS
    for heading in SECTIONS:
        # More than the heading's own step: the section's code ran.
        assert counts[heading] > 3, heading


def test_views_share_storage_with_their_base(trace):
    base = recorded(trace, "x", "views")[0]
    for name in ("row", "column", "reshaped", "transposed"):
        view = recorded(trace, name, "views")[0]
        assert view["storage_id"] == base["storage_id"], name
    assert recorded(trace, "transposed", "views")[0]["stride"] == [1, 3]
    assert recorded(trace, "column", "views")[0]["storage_offset"] == 1


def test_mutation_through_a_view_is_visible_in_all_views(trace):
    row = recorded(trace, "row", "views")[-1]
    assert row["values"][0] == 100


def test_contiguous_copy_gets_a_new_storage(trace):
    x = last(trace, "x", "non_contiguous")
    y = last(trace, "y", "non_contiguous")
    z = last(trace, "z", "non_contiguous")
    w = last(trace, "w", "non_contiguous")
    assert y["storage_id"] == x["storage_id"] and not y["contiguous"]
    assert z["storage_id"] != x["storage_id"] and z["contiguous"]
    assert w["storage_id"] == z["storage_id"]
    error = last(trace, "view_error", "non_contiguous")
    assert error["type"] == "str" and "view size is not compatible" in error["value"]


def test_bfloat16_has_float32_range(trace):
    float32_info = last(trace, "float32_info", "float_formats")
    bfloat16_info = last(trace, "bfloat16_info", "float_formats")
    float16_info = last(trace, "float16_info", "float_formats")
    assert abs(bfloat16_info["max"] - float32_info["max"]) / float32_info["max"] < 0.01
    assert float16_info["max"] == 65504
    assert bfloat16_info["eps"] == 2**-7


def test_float16_underflows_where_bfloat16_does_not(trace):
    tiny = [v for v in recorded(trace, "x", "float_formats") if v.get("shape") == [1]]
    by_dtype = {v["dtype"]: v for v in tiny}
    assert by_dtype["float16"]["values"] == [0.0]
    assert by_dtype["bfloat16"]["values"][0] == pytest.approx(1e-8, rel=0.01)


def test_fp8_ranges(trace):
    assert last(trace, "e4m3_info", "float_formats")["max"] == 448
    assert last(trace, "e5m2_info", "float_formats")["max"] == 57344


def test_gpt3_matrix_bytes(trace):
    assert last(trace, "gpt3_ffn_nbytes", "why_mixed_precision")["value"] == 12288 * 4 * 12288 * 4


def test_jaxtyping_tensor_is_recorded(trace):
    shapes = [v["shape"] for v in recorded(trace, "x", "jaxtyping_annotations")]
    assert [2, 3, 4] in shapes


def test_flop_counts(trace):
    assert last(trace, "counted_flops", "matmul_flops")["value"] == 2 * 1024 * 256 * 64
    assert last(trace, "counted_addition_flops", "matmul_flops")["value"] == 0
    B, D, K = 1024, 256, 64
    num_parameters = D * D + D * K
    assert last(trace, "forward_flops", "gradient_flops")["value"] == 2 * B * num_parameters
    assert last(trace, "backward_flops", "gradient_flops")["value"] == 4 * B * num_parameters


def test_napkin_math(trace):
    assert last(trace, "days", "napkin_math")["value"] == pytest.approx(144, abs=0.5)
    assert last(trace, "num_parameters", "napkin_math")["value"] == pytest.approx(40e9)


def test_gradient_of_tiny_regression(trace):
    grad = last(trace, "w.grad", "tiny_regression")
    assert grad["values"] == [1.0, 2.0, 3.0]


def test_training_loss_goes_down(trace):
    losses = last(trace, "losses", "training_loop")
    values = [item["value"] for item in losses["items"]]
    assert losses["length"] == 30
    assert values[-1] < values[0] / 10


def test_autocast_dtypes(trace):
    assert last(trace, "y", "mixed_precision")["dtype"] == "bfloat16"
    assert last(trace, "loss", "mixed_precision")["dtype"] == "float32"
    assert last(trace, "weight_grad", "mixed_precision")["dtype"] == "float32"


def test_get_batch_records_its_arguments_on_entry(trace):
    entries = [step for step in trace["steps"] if step["stack"][-1]["function"] == "get_batch" and "batch_size" in step["env"]]
    assert len(entries) == 1
    env = entries[0]["env"]
    assert (env["batch_size"]["value"], env["sequence_length"]["value"]) == (2, 4)
    assert env["device"]["value"] in ("cpu", "cuda")


def test_papers_are_cited_as_records(trace):
    links = [r for step in trace["steps"] for r in step["renderings"] if r["type"] == "link"]
    cited = {r["title"]: r["attrs"] for r in links if "authors" in r.get("attrs", {})}
    assert cited["Scaling Laws for Neural Language Models"]["authors"].startswith("Kaplan, McCandlish")
    assert cited["Scaling Laws for Neural Language Models"]["date"] == "2020-01"
    assert cited["Understanding the difficulty of training deep feedforward neural networks"]["authors"] == "Glorot, Bengio"
    assert len(cited) == 5  # mixed precision, fp8, scaling laws, Glorot & Bengio, Adam
