"""tracer/capture/device_readout.py and capture on the device: a tensor's card is computed with torch
ops on the tensor's own device and read back in one small copy, with no scalar read on the way. On a
GPU machine (``bench/gpu_check.py``) every test here runs on CUDA too."""

from __future__ import annotations

import math

import pytest
import torch

from tracer.capture.device_readout import DeviceReadout, host_reads, read_whole, span_nbytes
from tracer.capture.torch_values import READ_WHOLE_NBYTES
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
    if device == "cpu" and t.numel() <= 400:  # shown whole: read on the host by numpy, no torch op at all
        assert reads.copies == []
    else:
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


def test_the_span_of_a_view_runs_from_its_first_element_to_its_last():
    m = torch.zeros(100, 100)  # float32
    assert span_nbytes(m) == m.nbytes == 40_000
    assert span_nbytes(m[:, 3]) == (99 * 100 + 1) * 4  # a column spans every row
    assert span_nbytes(m.T) == 40_000 and span_nbytes(m[2:4]) == 800
    assert span_nbytes(torch.zeros(5).expand(3, 5)) == 20  # broadcast rows share their elements
    assert span_nbytes(torch.tensor(1.0)) == 4 and span_nbytes(torch.zeros(0, 7)) == 0


@pytest.mark.parametrize("device", DEVICES)
def test_read_whole_gives_the_same_view_on_the_host_from_one_copy_of_its_span(device):
    base = torch.arange(60.0, device=device).reshape(6, 10)
    views = [base, base[1:5, 2:9:3], base.T, base[:, 7], base[3, 4], torch.arange(4, device=device).expand(3, 4)]
    for view in views:
        with host_reads() as reads:
            host = read_whole(view)
        assert host.device.type == "cpu" and host.shape == view.shape and host.stride() == view.stride()
        assert torch.equal(host, view.cpu())
        assert reads.copies == [span_nbytes(view)] and reads.scalars == 0
    copy = read_whole(base[2])
    base[2, 0] = -1.0
    assert float(copy[0]) == 20.0  # the host's copy is the encoder's own: the lecture's writes never reach it


@pytest.mark.skipif(not torch.cuda.is_available(), reason="the CUDA allocator's peak")
def test_a_small_cuda_tensor_card_allocates_nothing_on_the_device_and_equals_its_cpu_card():
    x = torch.randn(32, 32, generator=torch.Generator().manual_seed(4))
    y = x.cuda()
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    peak = torch.cuda.max_memory_allocated()
    with host_reads() as reads:
        card = ValueEncoder().encode(y)
    assert torch.cuda.max_memory_allocated() == peak  # the trace's peak_nbytes, and the lecture's own reading, are the lecture's
    assert reads.copies == [y.nbytes] and reads.scalars == 0
    cpu_card = ValueEncoder().encode(x)
    for key in ("values", "stats", "shape", "stride", "heatmap"):
        assert card.get(key) == cpu_card.get(key)
    assert card["device"].startswith("cuda") and cpu_card["device"] == "cpu"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="capture on the device")
def test_a_large_cuda_tensor_card_is_still_computed_on_the_device():
    y = torch.randn(512, 512, device="cuda")
    assert y.nbytes > READ_WHOLE_NBYTES
    with host_reads() as reads:
        ValueEncoder().encode(y)
    assert len(reads.copies) == 1 and reads.copies[0] < y.nbytes / 4  # the card, not the tensor


def test_a_private_readout_hands_back_the_host_pieces_without_another_copy():
    mine = read_whole(torch.arange(10.0))  # the encoder's own host copy
    readout = DeviceReadout(private=True)
    handles = [readout.add(mine[:3]), readout.add(mine.to(torch.int16)[5:])]
    with host_reads() as reads:
        host = readout.fetch()
    assert reads.copies == []
    assert host[handles[0]].tolist() == [0.0, 1.0, 2.0] and host[handles[1]].tolist() == [5, 6, 7, 8, 9]
