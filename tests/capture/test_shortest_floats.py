"""tracer/capture/shortest_floats.py: a low-precision element is its shortest round-tripping decimal,
whether its bit pattern was worked out before in this process or not."""

from __future__ import annotations

import math

import pytest
import torch

from tracer.capture import shortest_floats
from tracer.contract.float_text import WHOLE_FLOAT_BELOW


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float8_e4m3fn, torch.float8_e5m2])
def test_every_value_of_a_dtype_numpy_lacks_is_its_shortest_decimal_seen_before_or_not(dtype, monkeypatch):
    """All 65,536 bfloat16 (256 float8) values: first a shuffled third (worked out), then all (the
    third looked up, the rest worked out), then all again (all looked up). Each time every finite
    element reads back in its dtype as its own bits, and its exact value rounded to one digit fewer
    does not (the fewest digits whose correct rounding reads back, as step mode's float32s); a small
    whole number is its exact value, NaN is NaN and ±Inf itself."""
    monkeypatch.setattr(shortest_floats, "_SHORTEST", {})
    bits = {1: torch.int8, 2: torch.int16}[torch.empty(0, dtype=dtype).element_size()]
    patterns = torch.arange(torch.iinfo(bits).min, torch.iinfo(bits).max + 1, dtype=torch.int32).to(bits)
    values = patterns.view(dtype)
    exact = values.to(torch.float64).tolist()
    third = torch.randperm(len(values), generator=torch.Generator().manual_seed(0))[: len(values) // 3].tolist()
    first = shortest_floats.shortest_floats(values[third])
    runs = [shortest_floats.shortest_floats(values), shortest_floats.shortest_floats(values)]
    for got in runs:
        finite = [k for k, v in enumerate(exact) if math.isfinite(v)]
        back = torch.tensor([got[k] for k in finite], dtype=torch.float64).to(dtype)
        assert torch.equal(back.view(bits), patterns[finite])  # bits compared: -0.0 stays -0.0
        shorter = []
        for k, v in enumerate(exact):
            if not math.isfinite(v) or (v.is_integer() and abs(v) < WHOLE_FLOAT_BELOW):
                assert _same(got[k], v)
                continue
            digits = len(repr(got[k]).split("e")[0].replace("-", "").replace(".", "").strip("0"))
            if digits > 1:
                shorter.append((k, float(f"{v:.{digits - 2}e}")))  # the exact value rounded to one digit fewer
        back = torch.tensor([value for _k, value in shorter], dtype=torch.float64).to(dtype)
        assert not bool((back.view(bits) == patterns[[k for k, _value in shorter]]).any())
    assert all(map(_same, runs[0], runs[1]))
    assert all(_same(value, runs[0][k]) for value, k in zip(first, third, strict=True))
    assert len(shortest_floats._SHORTEST[dtype]) == len(values)  # each worked out once, then kept
