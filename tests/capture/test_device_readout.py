"""tracer/capture/device_readout.py and capture on the device: a tensor's card is computed with torch
ops on the tensor's own device and read back in one small copy, with no scalar read on the way. On a
GPU machine (``bench/gpu_check.py``) every test here runs on CUDA too."""

from __future__ import annotations

import math

import pytest
import torch

from tracer.capture.device_readout import DeviceReadout, host_reads
from tracer.capture.values import ValueEncoder

DEVICES = ["cpu", "cuda"] if torch.cuda.is_available() else ["cpu"]


@pytest.mark.parametrize("device", DEVICES)
def test_every_piece_comes_back_bit_for_bit_with_its_dtype_and_shape(device):
    pieces = [
        torch.tensor([True, False, True]),
        torch.tensor([1.5, -0.0, math.nan], dtype=torch.bfloat16),
        torch.tensor([[448.0, -0.25]]).to(torch.float8_e4m3fn),
        torch.tensor([1 + 2j, 3 - 4j]).conj(),  # a conjugate view: its values, not its storage
        torch.tensor(7.25, dtype=torch.float64),  # 0-d
        torch.zeros(0, 3),
        torch.arange(12, dtype=torch.int64).reshape(3, 4)[:, ::2],  # not contiguous
        torch.tensor([2**64 - 1], dtype=torch.uint64),
    ]
    readout = DeviceReadout()
    handles = [readout.add(p.to(device)) for p in pieces]
    host = readout.fetch()
    for piece, handle in zip(pieces, handles):
        back = host[handle]
        assert back.device.type == "cpu" and back.dtype == piece.dtype and back.shape == piece.shape
        expected = piece.resolve_conj().contiguous().reshape(-1)
        assert torch.equal(back.reshape(-1).view(torch.uint8), expected.view(torch.uint8))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(1000, 1000), (1500, 1000), (40,), (3, 50, 70)])
def test_a_tensor_card_is_one_small_copy_to_the_host_and_no_scalar_read(device, shape):
    # (1500, 1000) has 1.5M elements: statistics over two float64 chunks, heatmap sampled
    t = torch.randn(shape, generator=torch.Generator().manual_seed(1)).to(device)
    encoder = ValueEncoder()
    with host_reads() as reads:
        record = encoder.encode(t)
    assert reads.scalars == 0
    assert len(reads.copies) == 1 and reads.copies[0] <= 128 * 128 * 4 + 4096, reads.copies
    assert record["stats"]["min"] == pytest.approx(float(t.min()), rel=1e-6) and "sampled" not in record["stats"]
    assert ("heatmap" in record) == (len(shape) == 2 and t.numel() > 400)


@pytest.mark.parametrize("device", DEVICES)
def test_nan_and_infinities_take_the_finite_figures_again_and_stay_right(device):
    t = torch.randn(600, 600, generator=torch.Generator().manual_seed(2))
    t[0, 0], t[5, 7], t[599, 1] = math.nan, math.inf, -math.inf
    finite = t[torch.isfinite(t)]
    record = ValueEncoder().encode(t.to(device))
    stats = record["stats"]
    assert stats["nan_count"] == 1 and stats["inf_count"] == 2 and stats["mean"] == "nan"
    assert stats["finite"]["count"] == finite.numel()
    # written in float32's shortest decimals: each reads back as the float32 element
    assert torch.tensor([stats["finite"]["min"], stats["finite"]["max"]]).tolist() == [float(finite.min()), float(finite.max())]
    assert stats["finite"]["mean"] == pytest.approx(float(finite.double().mean()), rel=1e-6)
    heatmap = record["heatmap"]
    assert (heatmap["min"], heatmap["max"]) == (float(finite.min()), float(finite.max()))


def test_the_card_of_a_cpu_tensor_is_the_card_of_its_copy_on_each_device():
    t = torch.randn(700, 300, generator=torch.Generator().manual_seed(3), dtype=torch.float32)
    cards = [ValueEncoder().encode(t.to(device)) for device in DEVICES]
    for card in cards:
        # the shown elements, the statistics in float32's digits and every element's ends agree; a
        # GPU's block means may differ from a CPU's in their last bits (another summation order)
        for key in ("values", "stats", "shape", "stride"):
            assert card[key] == cards[0][key]
        for key in ("rows", "cols", "block", "min", "max", "max_abs"):
            assert card["heatmap"][key] == cards[0]["heatmap"][key]
        assert card["heatmap"]["cell_max"] == pytest.approx(cards[0]["heatmap"]["cell_max"], rel=1e-6)
