"""tracer/capture/element_stats.py: a large CPU chunk widened into the kept float64 buffer gives the
figures a fresh float64 copy gives, bit for bit, also when another card holds the buffer."""

from __future__ import annotations

import pytest
import torch

from tracer.capture import element_stats


def _rows(tensors):
    return [element_stats.chunk_rows(flat).tolist() for flat in tensors]


@pytest.fixture
def fresh_buffer():
    """No kept buffer yet, as in a new process; the one a test made is dropped after it."""
    element_stats._scratch.cache_clear()
    yield
    element_stats._scratch.cache_clear()


def test_a_large_cpu_chunk_is_widened_into_one_kept_buffer_with_the_same_figures(fresh_buffer, monkeypatch):
    generator = torch.Generator().manual_seed(0)
    past_two_chunks = 2 * element_stats.STATS_CHUNK_ELEMENTS + 40_000
    tensors = [
        torch.randn(1024, 1024, generator=generator).reshape(-1) * 3 + 1,  # one whole chunk
        torch.randn(past_two_chunks, generator=generator, dtype=torch.float64),  # a short last chunk
        torch.randn(300, 400, generator=generator).to(torch.bfloat16).T.reshape(-1),  # widened from bfloat16
    ]
    with_buffer = _rows(tensors)
    buffer = element_stats._scratch()
    assert element_stats._scratch.cache_info().misses == 1 and buffer.numel() == element_stats.STATS_CHUNK_ELEMENTS
    assert _rows(tensors) == with_buffer and element_stats._scratch.cache_info().misses == 1  # kept, not made again
    # the same figures from a fresh float64 copy of each chunk: while another thread's card holds the
    # buffer, and for chunks below SCRATCH_FROM_ELEMENTS
    with element_stats._SCRATCH_HELD:
        assert _rows(tensors) == with_buffer
    monkeypatch.setattr(element_stats, "SCRATCH_FROM_ELEMENTS", 1 << 62)
    assert _rows(tensors) == with_buffer
    # and they are the tensor's own: one float64 reduction over it
    x = tensors[0].double()
    lo, hi, mean, m2 = with_buffer[0][0]
    assert (lo, hi) == (float(x.min()), float(x.max()))
    assert abs(mean - float(x.mean())) <= 1e-12 * float(x.abs().mean())
    assert abs(m2 - float(((x - x.mean()) ** 2).sum())) <= 1e-12 * m2


def test_a_buffer_first_made_under_inference_mode_or_a_meta_default_device_serves_every_later_card(fresh_buffer):
    """The buffer is a plain CPU tensor whatever the first card's context: an inference tensor could not
    be written in place by a card outside inference mode, and a meta one holds no values."""
    generator = torch.Generator().manual_seed(1)
    first, later = (torch.randn(1 << 18, generator=generator) for _ in range(2))
    with torch.inference_mode(), torch.device("meta"):
        made_inside = _rows([first])
    buffer = element_stats._scratch()
    assert buffer.device.type == "cpu" and not buffer.is_inference()
    assert _rows([later]) == [[[float(later.min()), float(later.max()), *_rows([later.double()])[0][0][2:]]]]
    with element_stats._SCRATCH_HELD:  # the same figures from a fresh copy
        assert _rows([first]) == made_inside
