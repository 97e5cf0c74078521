"""tracer/capture/values.py: every kind of value becomes a JSON-safe record with the fields the site reads."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest
import sympy
import torch
from torch import nn

from tracer.capture.encoder_core import ELLIPSIS, Limits, json_float
from tracer.capture.static_lookup import lookup
from tracer.capture.values import ValueEncoder


def encode(value, **kwargs):
    """Encode with a fresh encoder and prove the record is strict JSON."""
    record = ValueEncoder(**kwargs).encode(value)
    json.dumps(record, allow_nan=False)
    return record


def flat(values):
    if isinstance(values, list):
        for v in values:
            yield from flat(v)
    else:
        yield values


# -- Python scalars ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "value, expected",
    [
        (3, {"type": "int", "value": 3}),
        (-(2**70), {"type": "int", "value": -(2**70)}),
        (2.5, {"type": "float", "value": 2.5}),
        ("hi", {"type": "str", "value": "hi"}),
        (None, {"type": "none"}),
        (True, {"type": "bool", "value": True}),
        (False, {"type": "bool", "value": False}),
        (1 + 2j, {"type": "complex", "real": 1.0, "imag": 2.0}),
    ],
)
def test_python_scalars(value, expected):
    assert encode(value) == expected


@pytest.mark.parametrize("value, text", [(math.nan, "nan"), (math.inf, "inf"), (-math.inf, "-inf")])
def test_non_finite_floats_are_strings(value, text):
    assert encode(value) == {"type": "float", "value": text}
    assert json_float(value) == text


def test_non_finite_everywhere_is_strict_json():
    values = [
        math.nan,
        complex(math.inf, math.nan),
        np.float32("nan"),
        np.array([np.inf, -np.inf]),
        torch.tensor([math.nan, math.inf, -math.inf]),
        torch.finfo(torch.float32),
        [math.nan, {"k": math.inf}],
    ]
    for value in values:
        json.dumps(ValueEncoder().encode(value), allow_nan=False)  # raises on NaN/Inf


def test_int_subclass_is_an_int():
    import enum

    class Color(enum.IntEnum):
        RED = 2

    assert encode(Color.RED) == {"type": "int", "value": 2}


def test_long_string_is_cut_and_says_so():
    record = encode("x" * 5000, limits=Limits(str_chars=100))
    assert record["truncated"] is True and record["length"] == 5000 and len(record["value"]) == 100


# -- containers --------------------------------------------------------------------------------
def test_list_tuple_set_dict_recursive():
    assert encode([1, (2, "a")]) == {
        "type": "list",
        "length": 2,
        "truncated": False,
        "items": [
            {"type": "int", "value": 1},
            {
                "type": "tuple",
                "length": 2,
                "truncated": False,
                "items": [{"type": "int", "value": 2}, {"type": "str", "value": "a"}],
            },
        ],
    }
    record = encode({"k": [None]})
    assert record["type"] == "dict" and record["length"] == 1
    ((key, value),) = record["items"]
    assert key == {"type": "str", "value": "k"} and value["items"] == [{"type": "none"}]


def test_sets_are_sorted_for_a_stable_trace():
    assert [i["value"] for i in encode({3, 1, 2})["items"]] == [1, 2, 3]
    assert encode(frozenset({"b", "a"}))["type"] == "frozenset"
    mixed = encode({1, "a"})  # not orderable: still stable, never raises
    assert mixed["length"] == 2


def test_dataclass_fields_recursive():
    @dataclasses.dataclass
    class Inner:
        n: int

    @dataclasses.dataclass
    class Outer:
        name: str
        inner: Inner

    record = encode(Outer("o", Inner(4)))
    assert record["type"] == "dataclass" and record["class"].endswith("Outer")
    assert record["fields"]["name"] == {"type": "str", "value": "o"}
    assert record["fields"]["inner"]["fields"]["n"] == {"type": "int", "value": 4}


def test_cycles_become_back_references():
    loop: list = [1]
    loop.append(loop)
    record = encode(loop)
    assert record["items"][1]["type"] == "cycle"
    d: dict = {}
    d["self"] = d
    assert encode(d)["items"][0][1]["type"] == "cycle"


def test_shared_but_acyclic_items_are_not_cycles():
    shared = [1]
    record = encode([shared, shared])
    assert [item["type"] for item in record["items"]] == ["list", "list"]


def test_item_cap():
    record = encode(list(range(120)), limits=Limits(container_items=10))
    assert len(record["items"]) == 10 and record["length"] == 120 and record["truncated"] is True
    record = encode({i: i for i in range(30)}, limits=Limits(container_items=5))
    assert len(record["items"]) == 5 and record["length"] == 30 and record["truncated"] is True


def test_depth_cap_falls_back_to_repr():
    nested = [[[[[[1]]]]]]
    record = encode(nested, limits=Limits(depth=2))
    inner = record["items"][0]["items"][0]
    assert inner["type"] == "object" and inner["repr"] == "[[[[1]]]]"


# -- numpy, sympy ------------------------------------------------------------------------------
def test_numpy_array():
    record = encode(np.arange(6, dtype=np.int64).reshape(2, 3))
    assert record == {"type": "ndarray", "dtype": "int64", "shape": [2, 3], "values": [[0, 1, 2], [3, 4, 5]], "truncated": False}


def test_numpy_float_array_has_stats_and_safe_non_finite():
    record = encode(np.array([1.0, 3.0, np.nan, np.inf]))
    assert record["values"] == [1.0, 3.0, "nan", "inf"]
    assert record["stats"]["mean"] == "nan" and record["stats"]["min"] == "nan"  # as numpy says of all values
    assert record["stats"]["finite"] == {"min": 1.0, "max": 3.0, "mean": 2.0, "std": pytest.approx(2**0.5), "count": 2}
    assert record["stats"]["nan_count"] == 1 and record["stats"]["inf_count"] == 1


def test_large_numpy_array_is_bounded():
    record = encode(np.zeros(10**6), limits=Limits(tensor_elements=100))
    assert record["truncated"] is True
    assert len(json.dumps(record)) < 5_000


def test_large_2d_numpy_array_keeps_nesting_and_marks_the_cut():
    array = np.arange(100 * 100, dtype=np.float32).reshape(100, 100)
    record = encode(array, limits=Limits(tensor_elements=100))
    values = record["values"]
    assert record["truncated"] is True and record["shape"] == [100, 100]
    assert ELLIPSIS in values and all(ELLIPSIS in row for row in values if row != ELLIPSIS)
    assert values[0][0] == 0.0 and values[-1][-1] == 9999.0


def test_odd_numpy_arrays_still_encode():
    reversed_view = np.arange(1000)[::-1]  # negative strides: torch cannot share it
    record = encode(reversed_view, limits=Limits(tensor_elements=10))
    assert record["truncated"] is True and record["values"][:2] == [999, 998]
    read_only = np.zeros((50, 50))
    read_only.flags.writeable = False
    assert ELLIPSIS in encode(read_only, limits=Limits(tensor_elements=10))["values"]
    strings = encode(np.array(["a", "b"] * 100), limits=Limits(tensor_elements=10))
    assert strings["truncated"] is True and strings["values"][:2] == ["a", "b"]


@pytest.mark.parametrize(
    "value, dtype, expected",
    [
        (np.float32(1.5), "float32", 1.5),
        (np.int16(-3), "int16", -3),
        (np.bool_(True), "bool", True),
        (np.float32("nan"), "float32", "nan"),
        (np.complex64(1 + 2j), "complex64", [1.0, 2.0]),
    ],
)
def test_numpy_scalars(value, dtype, expected):
    assert encode(value) == {"type": "numpy_scalar", "dtype": dtype, "value": expected}


def test_numpy_float64_scalar_is_a_float():
    assert encode(np.float64("nan")) == {"type": "float", "value": "nan"}  # np.float64 subclasses float


def test_numpy_dtype_and_finfo():
    assert encode(np.dtype("float16")) == {"type": "dtype", "value": "float16", "itemsize": 2, "is_floating_point": True}
    record = encode(np.finfo(np.float16))
    assert record["type"] == "finfo" and record["bits"] == 16 and record["max"] == 65504.0


def test_sympy_number_and_expression():
    assert encode(sympy.Rational(1, 3)) == {
        "type": "sympy",
        "class": "sympy.core.numbers.Rational",
        "repr": "1/3",
        "latex": "\\frac{1}{3}",
    }
    x = sympy.Symbol("x")
    record = encode(x**2 + 1)
    assert record["type"] == "sympy" and record["repr"] == "x**2 + 1" and record["latex"] == "x^{2} + 1"


# -- torch metadata ----------------------------------------------------------------------------
def test_finfo():
    record = encode(torch.finfo(torch.bfloat16))
    assert record == {
        "type": "finfo",
        "dtype": "bfloat16",
        "bits": 16,
        "eps": 2.0**-7,
        "max": torch.finfo(torch.bfloat16).max,
        "min": -torch.finfo(torch.bfloat16).max,
        "smallest_normal": 2.0**-126,
        "resolution": 0.01,
    }


def test_iinfo():
    assert encode(torch.iinfo(torch.int8)) == {"type": "iinfo", "dtype": "int8", "bits": 8, "min": -128, "max": 127}


def test_dtype_device_size():
    assert encode(torch.float16) == {"type": "dtype", "value": "float16", "itemsize": 2, "is_floating_point": True}
    assert encode(torch.int64) == {"type": "dtype", "value": "int64", "itemsize": 8, "is_floating_point": False}
    assert encode(torch.device("cpu")) == {"type": "device", "value": "cpu"}
    assert encode(torch.Size([2, 3])) == {"type": "size", "value": [2, 3]}


def test_module_class_parameter_count_and_shapes():
    record = encode(nn.Sequential(nn.Linear(3, 2), nn.ReLU(), nn.Linear(2, 1, bias=False)))
    assert record["type"] == "module" and record["class"] == "torch.nn.modules.container.Sequential"
    assert record["num_parameters"] == 3 * 2 + 2 + 2
    assert record["parameters"] == [
        {"name": "0.weight", "shape": [2, 3], "dtype": "float32"},
        {"name": "0.bias", "shape": [2], "dtype": "float32"},
        {"name": "2.weight", "shape": [1, 2], "dtype": "float32"},
    ]
    assert "Linear(in_features=3" in record["repr"]


# -- objects -----------------------------------------------------------------------------------
class _BrokenRepr:
    def __repr__(self):
        raise RuntimeError("no repr for you")


def test_failing_repr_gives_a_placeholder():
    record = encode(_BrokenRepr())
    assert record["type"] == "object" and record["repr"] is None
    assert "RuntimeError: no repr for you" in record["repr_error"]
    assert record["class"].endswith("_BrokenRepr")


def test_failing_repr_inside_a_container_does_not_break_it():
    record = encode([1, _BrokenRepr()])
    assert record["items"][0] == {"type": "int", "value": 1} and record["items"][1]["repr"] is None


def test_object_repr_has_no_raw_address():
    class Plain:
        pass

    record = encode(Plain())
    assert record["type"] == "object" and "0x…" in record["repr"]
    assert not any(c in "0123456789abcdef" for c in record["repr"].split("0x…")[0][-1:])
    import re

    assert not re.search(r"0x[0-9a-fA-F]{4,}", json.dumps(record))


def test_scrub_removes_machine_paths():
    encoder = ValueEncoder(scrub=lambda s: s.replace("/home/me/project/", ""))
    assert encoder.encode("/home/me/project/lectures/a.py") == {"type": "str", "value": "lectures/a.py"}


def test_functions_and_classes_in_lecture_files_carry_their_place():
    def local_function():
        return 1

    encoder = ValueEncoder(relpath=lambda p: "lectures/x.py" if p == __file__ else None)
    record = encoder.encode(local_function)
    assert record["type"] == "function" and record["name"].endswith("local_function")
    assert record["path"] == "lectures/x.py" and record["line"] == local_function.__code__.co_firstlineno
    assert encoder.encode(_BrokenRepr)["type"] == "class"
    assert "path" not in encoder.encode(json.dumps)  # library code: no place


# -- tensors -----------------------------------------------------------------------------------
TENSOR_FIELDS = {
    "type",
    "dtype",
    "shape",
    "stride",
    "storage_offset",
    "contiguous",
    "device",
    "element_size",
    "numel",
    "nbytes",
    "storage_id",
    "storage_nbytes",
    "requires_grad",
    "grad_fn",
    "values",
    "truncated",
    "stats",
}


def test_tensor_has_every_field():
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    record = encode(t)
    assert set(record) == TENSOR_FIELDS
    assert record["dtype"] == "float32" and record["shape"] == [2, 3] and record["stride"] == [3, 1]
    assert record["storage_offset"] == 0 and record["contiguous"] is True and record["device"] == "cpu"
    assert record["element_size"] == 4 and record["numel"] == 6 and record["nbytes"] == 24
    assert record["storage_id"] == "s1" and record["storage_nbytes"] == 24
    assert record["requires_grad"] is False and record["grad_fn"] is None
    assert record["values"] == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and record["truncated"] is False
    assert record["stats"]["min"] == 0.0 and record["stats"]["max"] == 5.0 and record["stats"]["mean"] == 2.5
    assert record["stats"]["nan_count"] == 0 and record["stats"]["inf_count"] == 0


def test_grad_fn_and_requires_grad():
    w = torch.ones(2, requires_grad=True)
    record = encode(w * 3)
    assert record["requires_grad"] is True and record["grad_fn"] == "MulBackward0"


def test_view_shares_storage_id_and_ids_count_up_in_order():
    encoder = ValueEncoder()
    x = torch.zeros(4, 4)
    y = torch.ones(3)
    assert encoder.encode(y)["storage_id"] == "s1"  # first seen, first id
    base = encoder.encode(x)
    row = encoder.encode(x[1])
    transposed = encoder.encode(x.T)
    copied = encoder.encode(x.T.contiguous())
    assert base["storage_id"] == row["storage_id"] == transposed["storage_id"] == "s2"
    assert row["storage_offset"] == 4 and row["storage_nbytes"] == 64 and row["nbytes"] == 16
    assert transposed["contiguous"] is False and transposed["stride"] == [1, 4]
    assert copied["storage_id"] == "s3" and copied["contiguous"] is True
    assert encoder.encode(x)["storage_id"] == "s2"  # stable on a second sighting


def test_large_tensor_preview_is_bounded_and_marked():
    record = encode(torch.zeros(10**7))
    assert record["truncated"] is True and record["numel"] == 10**7
    assert ELLIPSIS in record["values"]
    assert len(json.dumps(record)) < 10_000
    record = encode(torch.randn(2000, 3000))
    assert ELLIPSIS in record["values"] and all(ELLIPSIS in row for row in record["values"] if row != ELLIPSIS)
    # the preview, plus the whole-tensor heatmap's 128 x 128 one-byte cells (base64)
    assert len(json.dumps(record)) < 20_000 + 4 * 128 * 128 // 3 + 200


def test_large_tensor_preview_keeps_head_and_tail():
    record = encode(torch.arange(1000), limits=Limits(tensor_elements=10))
    values = record["values"]
    cut = values.index(ELLIPSIS)
    assert values[:cut] == list(range(cut)) and values[cut + 1 :] == list(range(1000 - (len(values) - cut - 1), 1000))


def test_stats_past_the_exact_limit_say_they_are_of_a_sample_and_its_size():
    record = encode(torch.ones(10**6), limits=Limits(stats_elements=1000, stats_sample=500))
    stats = record["stats"]
    assert stats["sampled"] is True and stats["mean"] == 1.0 and 0 < stats["sample_count"] <= 500
    array = encode(np.ones(10**6), limits=Limits(stats_elements=1000, stats_sample=500))["stats"]
    assert array["sampled"] is True and 0 < array["sample_count"] <= 500


def test_stats_are_exact_over_every_element_not_a_sample():
    stats = encode(torch.arange(100_000, dtype=torch.float32))["stats"]
    assert "sampled" not in stats and stats["min"] == 0.0 and stats["max"] == 99_999.0
    assert stats["mean"] == 49_999.5
    array = encode(np.arange(100_000, dtype=np.float64))["stats"]
    assert "sampled" not in array and array["max"] == 99_999.0 and array["mean"] == 49_999.5


def test_all_nan_counts_every_element_and_has_no_finite_four():
    stats = encode(torch.full((300, 300), math.nan))["stats"]
    assert stats["nan_count"] == 90_000 and stats["inf_count"] == 0 and "sampled" not in stats
    assert stats["finite"] == {"min": None, "max": None, "mean": None, "std": None, "count": 0}
    array = encode(np.full((300, 300), np.nan))["stats"]
    assert array["nan_count"] == 90_000 and array["finite"]["count"] == 0


def test_chunked_stats_merge_to_what_one_float64_reduction_gives():
    """Past one chunk (STATS_CHUNK_ELEMENTS) the chunks' moments are merged: the same figures as
    torch over the whole tensor, and exact NaN/Inf counts wherever they lie."""
    from tracer.capture.element_stats import STATS_CHUNK_ELEMENTS

    n = 2 * STATS_CHUNK_ELEMENTS + 12_345
    x = torch.randn(n, generator=torch.Generator().manual_seed(0), dtype=torch.float64) * 3 + 7
    stats = encode(x)["stats"]
    std, mean = torch.std_mean(x)
    assert stats["mean"] == pytest.approx(float(mean), rel=1e-12) and stats["std"] == pytest.approx(float(std), rel=1e-12)
    assert stats["min"] == float(x.min()) and stats["max"] == float(x.max())
    y = x.clone()
    y[[5, STATS_CHUNK_ELEMENTS + 1, n - 1]] = math.nan
    y[[7, 2 * STATS_CHUNK_ELEMENTS]] = math.inf
    spec = encode(y)["stats"]
    kept = y[torch.isfinite(y)]
    assert spec["nan_count"] == 3 and spec["inf_count"] == 2 and spec["finite"]["count"] == n - 5
    assert spec["finite"]["mean"] == pytest.approx(float(kept.mean()), rel=1e-12)
    assert spec["finite"]["std"] == pytest.approx(float(kept.std()), rel=1e-12)


@pytest.mark.parametrize(
    "tensor",
    [
        torch.randn(4, generator=torch.Generator().manual_seed(3)),
        torch.randn(20, 20, generator=torch.Generator().manual_seed(4), dtype=torch.float64).T * 1e5,  # a strided view
        torch.randn(3, 5, generator=torch.Generator().manual_seed(5)).half()[:, ::2],
        torch.tensor([1.0, math.nan, -math.inf, 2.5, 3e38]),
        torch.randn(4, 7, generator=torch.Generator().manual_seed(6)).bfloat16()[:, ::2] * 3,
        torch.tensor([1.0, math.nan, -math.inf, 2.5, 3e38, 0.1]).bfloat16(),
        torch.tensor([[True, False]]),
        torch.arange(-6, 6, dtype=torch.int16).reshape(3, 4),
        torch.tensor([1 + 2j, -0.5j]),
        torch.tensor(2.75),
        torch.zeros(0, 3),
        torch.randn(3, requires_grad=True) * 2,
    ],
    ids=[
        "float32",
        "float64-view",
        "float16-strided",
        "non-finite",
        "bfloat16-strided",
        "bfloat16-non-finite",
        "bool",
        "int16",
        "complex",
        "0-d",
        "empty",
        "grad",
    ],
)
def test_a_tensor_shown_whole_has_the_card_that_torch_ops_would_compute(tensor, monkeypatch):
    """A host tensor the preview shows whole is read by numpy rather than by a dozen torch ops; its
    card is the one the torch ops compute (the device path, which a GPU tensor takes), values and
    every field bit for bit, and its float64 statistics to their last digits."""
    from tracer.capture import torch_values

    assert torch_values._whole_on_host(ValueEncoder(), tensor.detach())
    whole = encode(tensor)
    monkeypatch.setattr(torch_values, "_whole_on_host", lambda enc, x: False)
    ops = encode(tensor)
    whole_stats, ops_stats = whole.pop("stats"), ops.pop("stats")
    assert whole == ops
    if ops_stats is None:
        assert whole_stats is None
        return
    for part, expected in ((whole_stats, ops_stats), (whole_stats.get("finite"), ops_stats.get("finite"))):
        assert (part is None) == (expected is None)
        for key, value in (expected or {}).items():
            if key in ("mean", "std") and isinstance(value, float) and tensor.dtype == torch.float64:
                assert part[key] == pytest.approx(value, rel=1e-14, abs=1e-300), key
            else:
                assert part[key] == value, key


def test_a_small_tensor_or_array_has_its_exactly_rounded_mean_and_std():
    """Shown whole, a tensor's or an array's sums are exact before their one rounding: 1e16 + 1 - 1e16
    is 1, where a float64 sum in any order says 0; past its few elements the sums are numpy's and
    torch's, and the figures still theirs."""
    values = [1e16, 1.0, -1e16]
    for value in (np.array(values), torch.tensor(values, dtype=torch.float64)):
        stats = encode(value)["stats"]
        assert stats["mean"] == 1 / 3
        assert stats["std"] == math.sqrt(((1e16 - 1 / 3) ** 2 + (1 - 1 / 3) ** 2 + (1e16 + 1 / 3) ** 2) / 2)
    big = torch.randn(1000, generator=torch.Generator().manual_seed(8), dtype=torch.float64)
    std, mean = torch.std_mean(big)
    for value in (big, big.numpy()):
        stats = encode(value)["stats"]
        assert stats["mean"] == pytest.approx(float(mean), rel=1e-13) and stats["std"] == pytest.approx(float(std), rel=1e-13)


def test_statistics_rounded_to_float32_without_torch_round_as_torch_does():
    """``shortest_rounded`` takes float32 through numpy: the float64 halfway between two float32
    neighbours (ties to even), float32's largest, subnormals and negative zero come out as torch
    rounds them."""
    from tracer.capture.shortest_floats import shortest_floats, shortest_rounded

    g = torch.Generator().manual_seed(5)
    lower = torch.randn(2_000, generator=g) * 1e3
    upper = torch.nextafter(lower, torch.full_like(lower, math.inf))
    halfway = ((lower.double() + upper.double()) / 2).tolist()  # exact in float64
    values = halfway + (torch.randn(2_000, generator=g, dtype=torch.float64) * 1e-39).tolist()
    values += [3.4028234663852886e38, 1e-45, 7e-46, -0.0, 0.1, 1234567936.0]
    assert shortest_rounded(values, torch.float32) == shortest_floats(torch.tensor(values, dtype=torch.float32))
    assert shortest_rounded([0.1, 2.5], torch.bfloat16) == [0.1, 2.5]


def test_non_finite_tensor_values_and_counts():
    record = encode(torch.tensor([math.nan, math.inf, -math.inf, 2.0]))
    assert record["values"] == ["nan", "inf", "-inf", 2.0]
    assert record["stats"]["nan_count"] == 1 and record["stats"]["inf_count"] == 2
    assert record["stats"]["finite"] == {"min": 2.0, "max": 2.0, "mean": 2.0, "std": 0.0, "count": 1}


def test_statistics_of_a_tensor_holding_nan_say_nan_as_torch_does_and_the_finite_ones_apart():
    t = torch.tensor([math.nan, math.inf, -math.inf, 0.0, -0.0])
    stats = encode(t)["stats"]
    assert stats["mean"] == "nan" and math.isnan(float(t.mean()))
    assert stats["nan_count"] == 1 and stats["inf_count"] == 2
    assert stats["finite"]["count"] == 2 and stats["finite"]["mean"] == 0.0
    only_inf = encode(torch.tensor([1.0, math.inf]))["stats"]
    assert only_inf["mean"] == "inf" == str(float(torch.tensor([1.0, math.inf]).mean()))


def test_statistics_of_finite_data_never_overflow_to_inf():
    huge32 = encode(torch.tensor([3e38, 3e38], dtype=torch.float32))["stats"]
    assert huge32["mean"] == pytest.approx(3e38, rel=1e-6)  # float32 sums overflow; float64 does not
    huge64 = encode(torch.tensor([1e308, 1.7e308], dtype=torch.float64))["stats"]
    assert huge64["mean"] == pytest.approx(1.35e308) and huge64["std"] != "inf"
    array = encode(np.array([1.7e308, 1.7e308]))["stats"]
    assert array["mean"] == pytest.approx(1.7e308) and array["std"] == 0.0


@pytest.mark.parametrize(
    "dtype, element_size",
    [
        (torch.bfloat16, 2),
        (torch.float16, 2),
        (torch.float8_e4m3fn, 1),
        (torch.float8_e5m2, 1),
        (torch.float64, 8),
        (torch.int8, 1),
        (torch.int32, 4),
        (torch.uint8, 1),
        (torch.bool, 1),
    ],
)
def test_tensor_dtypes(dtype, element_size):
    t = torch.tensor([1, 0, 1]).to(dtype)
    record = encode(t)
    assert record["dtype"] == str(dtype).removeprefix("torch.")
    assert record["element_size"] == element_size and record["nbytes"] == 3 * element_size
    assert list(flat(record["values"])) == [1, 0, 1]
    assert (record["stats"] is not None) == dtype.is_floating_point


def _neighbours(dtype, x):
    """x rounded to dtype and the next representable values below and above it."""
    bits = {1: torch.uint8, 2: torch.int16, 4: torch.int32}[torch.tensor([], dtype=dtype).element_size()]
    stored = torch.tensor([x], dtype=dtype)
    as_int = stored.view(bits).to(torch.int64)
    return torch.cat([as_int - 1, as_int, as_int + 1]).to(bits).view(dtype)


@pytest.mark.parametrize(
    "dtype, x, shown",
    [
        (torch.float32, 1000.1, 1000.1),
        (torch.float16, 1000.1, 1000.0),
        (torch.float16, 0.1, 0.1),
        (torch.bfloat16, 0.1, 0.1),
        (torch.bfloat16, 1 / 3, 0.334),
        (torch.float8_e4m3fn, 0.1, 0.1),
        (torch.float8_e5m2, 3.14159, 3.0),
        (torch.float32, 1 / 3, 0.33333334),
        # a whole number is written whole: the stored value, not a shorter decimal that rounds to it
        (torch.float8_e4m3fn, 300.0, 288.0),
        (torch.float32, 123456789, 123456792.0),
        (torch.bfloat16, 257.0, 256.0),
    ],
)
def test_low_precision_values_are_the_shortest_decimal_that_reads_back_in_their_dtype(dtype, x, shown):
    assert encode(torch.tensor([x], dtype=dtype))["values"] == [shown]
    # and each neighbour reads back as itself, never as the value beside it
    trio = _neighbours(dtype, x)
    values = encode(trio)["values"]
    assert torch.equal(torch.tensor(values, dtype=torch.float64).to(dtype), trio)
    assert len(set(values)) == 3
    for value in (v for v in values if not v.is_integer()):  # none has a digit it does not need
        text = repr(value).removesuffix(".0")
        digits = len(text.replace("-", "").replace(".", "").split("e")[0].strip("0"))
        if digits > 1:
            fewer = float(f"{value:.{digits - 1}g}")
            assert torch.tensor([fewer], dtype=dtype).item() != torch.tensor([value], dtype=dtype).item()


def test_float_extremes_are_exact():
    values = encode(torch.tensor([5e-324, -0.0, 2.0**53 + 1, 1.7976931348623157e308], dtype=torch.float64))["values"]
    assert values == [5e-324, -0.0, 2.0**53, 1.7976931348623157e308] and math.copysign(1, values[1]) == -1
    assert encode(torch.tensor([1e-45, -0.0], dtype=torch.float32))["values"] == [1e-45, -0.0]  # float32's subnormal
    assert encode(np.array([1000.1, 1e-45], dtype=np.float32))["values"] == [1000.1, 1e-45]
    info = torch.iinfo(torch.int64)
    assert encode(torch.tensor([info.min, info.max, 2**53 + 1]))["values"] == [info.min, info.max, 2**53 + 1]
    assert encode(np.array([info.min, info.max]))["values"] == [info.min, info.max]
    assert encode(2**62) == {"type": "int", "value": 2**62}


def test_a_lecture_asking_numpy_for_its_old_printing_does_not_round_the_values():
    # numpy 1.13's printing rounds a float32 scalar's str to 8 digits: 1.0000001 would read "1.0"
    trio = torch.tensor([1.0000001, 1000.1, 0.1], dtype=torch.float32)
    before = encode(trio)["values"]
    with np.printoptions(legacy="1.13"):
        assert encode(trio)["values"] == before == [1.0000001, 1000.1, 0.1]
        assert encode(trio.numpy())["values"] == before


def test_complex_tensor_values_are_pairs():
    record = encode(torch.tensor([1 + 2j, -3j], dtype=torch.complex64))
    assert record["dtype"] == "complex64" and record["element_size"] == 8
    assert record["values"] == [[1.0, 2.0], [0.0, -3.0]] and record["stats"] is None


def test_scalar_and_empty_tensors():
    assert encode(torch.tensor(3.5))["values"] == 3.5
    empty = encode(torch.zeros(0, 3))
    assert empty["numel"] == 0 and empty["values"] == [] and empty["stats"] is None


def test_torch_empty_encodes():
    record = encode(torch.empty(3, 2))
    assert record["shape"] == [3, 2] and record["numel"] == 6 and len(record["values"]) == 3


def test_parameter_encodes_as_tensor():
    record = encode(nn.Linear(2, 2).weight)
    assert record["type"] == "tensor" and record["requires_grad"] is True


# -- lookup of dotted names ----------------------------------------------------------------------
def test_lookup_locals_globals_builtins_and_attributes():
    layer = nn.Linear(2, 1)
    assert lookup("layer.weight", {"layer": layer}, {}) is layer.weight
    assert lookup("g", {}, {"g": 5}) == 5
    assert lookup("len", {}, {}) is len
    with pytest.raises(NameError):
        lookup("nowhere", {}, {})
    with pytest.raises(AttributeError):
        lookup("layer.nothing", {"layer": layer}, {})


# -- tensor kinds that teach resource accounting: meta, sparse, nested, quantized, subclasses ---------------------------------------
def test_a_meta_tensor_is_what_it_would_hold_and_take_with_no_data():
    import torch

    encoder = ValueEncoder()
    record = encoder.encode(torch.empty(4096, 11008, dtype=torch.bfloat16, device="meta"))
    assert record == {
        "type": "meta_tensor",
        "dtype": "bfloat16",
        "shape": [4096, 11008],
        "stride": [11008, 1],
        "element_size": 2,
        "numel": 45_088_768,
        "nbytes": 90_177_536,
        "requires_grad": False,
    }
    assert encoder.registry.live_nbytes() == 0  # nothing allocated, nothing counted


def test_sparse_tensors_keep_layout_nnz_and_a_preview_of_their_arrays():
    import torch

    coo = ValueEncoder().encode(torch.tensor([[0.0, 2.0, 0.0], [3.0, 0.0, 4.0]]).to_sparse())
    assert (coo["type"], coo["layout"], coo["nnz"], coo["shape"]) == ("sparse_tensor", "sparse_coo", 3, [2, 3])
    assert [(c["name"], c["values"]) for c in coo["components"]] == [
        ("indices", [[0, 1, 1], [1, 0, 2]]),
        ("values", [2.0, 3.0, 4.0]),
    ]
    csr = ValueEncoder().encode(torch.tensor([[0.0, 2.0], [5.0, 0.0]]).to_sparse_csr())
    assert [c["name"] for c in csr["components"]] == ["crow_indices", "col_indices", "values"]
    big = ValueEncoder().encode(torch.eye(5000).to_sparse())
    assert big["nnz"] == 5000 and big["components"][1]["truncated"]  # previews are bounded like a tensor's


def test_nested_quantized_and_subclassed_tensors():
    import torch

    nested = ValueEncoder().encode(torch.nested.nested_tensor([torch.ones(2, 3), torch.ones(4, 3)]))
    assert (nested["type"], nested["length"], nested["shapes"]) == ("nested_tensor", 2, [[2, 3], [4, 3]])
    q = ValueEncoder().encode(torch.quantize_per_tensor(torch.tensor([0.5, 1.0, -1.0]), 0.1, 10, torch.quint8))
    assert (q["type"], q["dtype"], q["values"]) == ("tensor", "quint8", [15, 20, 0])
    assert q["quantized"] == {"qscheme": "per_tensor_affine", "scale": 0.1, "zero_point": 10}

    class Tagged(torch.Tensor):
        pass

    tagged = ValueEncoder().encode(torch.arange(3.0).as_subclass(Tagged))
    assert tagged["type"] == "tensor" and tagged["subclass"].endswith("Tagged") and tagged["values"] == [0.0, 1.0, 2.0]
    assert "subclass" not in ValueEncoder().encode(torch.nn.Parameter(torch.ones(1)))


# -- the encoder leaves no fingerprints and survives any __repr__ ------------------------------
def test_encoding_under_the_lectures_warnings_as_errors_and_numpy_raise_still_encodes(capsys):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        old = np.seterr(all="raise")
        try:
            tensor = encode(torch.tensor([3e38, 3e38, math.nan]))
            array = encode(np.array([1e308, 1e308, np.inf, np.nan]))
            assert warnings.filters[0][0] == "error" and np.geterr()["over"] == "raise"  # the lecture's, back
        finally:
            np.seterr(**old)
    assert tensor["type"] == "tensor" and tensor["stats"]["finite"]["mean"] == pytest.approx(3e38, rel=1e-6)
    assert array["type"] == "ndarray" and array["stats"]["finite"]["mean"] == pytest.approx(1e308)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("exc", [SystemExit(3), KeyboardInterrupt(), GeneratorExit()])
def test_a_base_exception_from_repr_becomes_that_values_placeholder(exc):
    import asyncio

    class Hostile:
        def __repr__(self):
            raise exc

    class Cancelled:
        def __repr__(self):
            raise asyncio.CancelledError()

    encoder = ValueEncoder()
    for value in (Hostile(), Cancelled(), [1, Hostile()]):
        record = encoder.encode(value)
        assert record["type"] == "unrepresentable" and "cannot encode" in record["reason"]
    assert any(type(exc).__name__ in problem for problem in encoder.problems)


def test_the_traces_own_abort_passes_through_encoding():
    class Abort(BaseException):
        pass

    class Quits:
        def __repr__(self):
            raise Abort()

    with pytest.raises(Abort):
        ValueEncoder(aborts=(Abort,)).encode(Quits())


def test_a_class_chooses_what_its_objects_show_with_lecture_view():
    class Point:
        def __init__(self):
            self.x, self.y = 1, 2

        def __lecture_view__(self):
            return {"x": self.x, "y": self.y}

    class Big:
        def __lecture_view__(self):
            return list(range(10_000))

    class Broken:
        def __lecture_view__(self):
            raise ValueError("no view")

    point = encode(Point())
    assert point["type"] == "view" and point["class"].endswith("Point")
    assert point["value"]["type"] == "dict" and point["value"]["items"][1][1] == {"type": "int", "value": 2}
    big = encode(Big())["value"]
    assert big["length"] == 10_000 and len(big["items"]) == Limits().container_items  # the same bounds
    encoder = ValueEncoder()
    assert encoder.encode(Broken())["type"] == "object" and "ValueError: no view" in encoder.problems[0]


def test_an_object_with_asdict_is_shown_through_it_as_edtrace_shows_it():
    class Tally:
        def __init__(self):
            self.counts = {"the": 4, "cat": 2}

        def asdict(self):
            return {"distinct": len(self.counts)}

    class Both(Tally):
        def __lecture_view__(self):
            return "chalktrace's view"

    @dataclasses.dataclass
    class Record:
        n: int = 3

        def asdict(self):
            return {"other": 0}

    tally = encode(Tally())
    assert tally["type"] == "view" and tally["class"].endswith("Tally")
    assert tally["value"]["items"] == [[{"type": "str", "value": "distinct"}, {"type": "int", "value": 2}]]
    assert encode(Both())["value"] == {"type": "str", "value": "chalktrace's view"}  # __lecture_view__ first
    assert encode(Record())["type"] == "dataclass"  # a dataclass's fields are its view already
    assert encode({"asdict": 1})["type"] == "dict"  # a key named asdict is no method


def test_dotted_inspection_never_runs_a_property_or_getattr():
    runs = []

    class Lazy:
        def __init__(self):
            self.plain = 7

        @property
        def computed(self):
            runs.append("property")
            return 1

        def __getattr__(self, name):
            runs.append(name)
            return 2

    lazy = Lazy()
    assert lookup("lazy.plain", {"lazy": lazy}, {}) == 7
    with pytest.raises(AttributeError, match="is a property: reading it runs the lecture's code"):
        lookup("lazy.computed", {"lazy": lazy}, {})
    with pytest.raises(AttributeError, match="could only come from __getattr__"):
        lookup("lazy.other", {"lazy": lazy}, {})
    assert runs == []
    t = torch.ones(2, 3)
    assert lookup("t.shape", {"t": t}, {}) == (2, 3) and lookup("t.T.shape", {"t": t}, {}) == (3, 2)
    assert lookup("math.pi", {}, {"math": math}) == math.pi


# -- heatmaps of the whole tensor -----------------------------------------------------------------
def _cells(heatmap):
    import base64
    import zlib

    raw = zlib.decompress(base64.b64decode(heatmap["codes"]))
    return [list(raw[r * heatmap["cols"] : (r + 1) * heatmap["cols"]]) for r in range(heatmap["rows"])]


def test_a_64_by_64_tensor_has_a_heatmap_of_every_element():
    mask = torch.tril(torch.ones(64, 64))
    heatmap = encode(mask)["heatmap"]
    assert (heatmap["rows"], heatmap["cols"], heatmap["block"]) == (64, 64, None)
    cells = _cells(heatmap)
    assert all(cells[r][c] == (252 if c <= r else 0) for r in range(64) for c in range(64))
    assert (heatmap["min"], heatmap["max"]) == (0.0, 1.0)


def test_a_big_tensor_is_pooled_whole_into_at_most_128_by_128_block_means():
    eye = torch.eye(512)
    eye[500, 3] = 9.0  # outside any preview corner: the whole-tensor min/max must see it
    heatmap = encode(eye)["heatmap"]
    assert (heatmap["rows"], heatmap["cols"], heatmap["block"]) == (128, 128, [4, 4])
    assert heatmap["max"] == 9.0 and heatmap["max_abs"] == 9.0 and heatmap["min"] == 0.0
    expected = torch.nn.functional.adaptive_avg_pool2d(eye[None, None], (128, 128))[0, 0]
    assert heatmap["cell_max"] == pytest.approx(float(expected.max()))
    cells = _cells(heatmap)
    lo, hi = heatmap["cell_min"], heatmap["cell_max"]
    assert all(
        abs(lo + cells[r][c] / 252 * (hi - lo) - float(expected[r, c])) <= (hi - lo) / 252 for r in range(128) for c in range(128)
    )
    array = encode(eye.numpy())["heatmap"]  # numpy's block sums give the same cells
    assert array["rows"] == 128 and _cells(array) == cells


def test_heatmap_cells_mark_nan_and_infinities_and_small_tensors_have_none():
    t = torch.zeros(30, 30)
    t[0, 0], t[0, 1], t[0, 2], t[1, 1] = math.nan, math.inf, -math.inf, 5.0
    heatmap = encode(t)["heatmap"]
    assert _cells(heatmap)[0][:3] == [253, 254, 255] and heatmap["max"] == 5.0
    assert "heatmap" not in encode(torch.zeros(10, 10))  # the preview holds every element already


def test_statistics_are_written_in_the_tensors_own_precision_whatever_the_layout():
    x = torch.arange(40, dtype=torch.float32).reshape(4, 10) * 1.0
    assert encode(x)["stats"]["mean"] == encode(x.T)["stats"]["mean"] == 19.5
    third = encode(torch.tensor([1.0, 2.0, 2.0], dtype=torch.float32))["stats"]["mean"]
    assert third == 1.6666666 and torch.tensor(third, dtype=torch.float32) == torch.tensor([1.0, 2.0, 2.0]).mean()


@pytest.mark.parametrize("shape", [(1024, 1024), (512, 256), (256, 128 * 3), (300, 200)])
def test_heatmap_block_means_are_adaptive_pooling_to_the_bit(shape):
    import torch.nn.functional as F

    from tracer.capture.heatmap_codes import HEATMAP_CELLS, _block_means

    torch.manual_seed(1)
    x = torch.randn(*shape)
    out = (min(shape[0], HEATMAP_CELLS), min(shape[1], HEATMAP_CELLS))
    assert torch.equal(_block_means(x, *out), F.adaptive_avg_pool2d(x[None, None], out)[0, 0])


def test_a_pandas_series_is_its_index_and_values_and_other_pandas_objects_are_objects():
    import pandas

    series = pandas.Series([3, 4], index=pandas.Index(["x", "y"]), name=7)
    assert ValueEncoder().encode(series) == {
        "type": "series",
        "name": "7",
        "dtype": "int64",
        "length": 2,
        "index": [{"type": "str", "value": "x"}, {"type": "str", "value": "y"}],
        "values": [{"type": "int", "value": 3}, {"type": "int", "value": 4}],
        "truncated": False,
    }
    assert ValueEncoder().encode(pandas.DataFrame({"a": [1]}))["type"] == "object"
