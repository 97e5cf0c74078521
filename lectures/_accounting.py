"""Measuring helpers for the resource-accounting lecture: bytes, counted FLOPs, seconds, peaks.

The lecture calls these to check its own claims (e.g. that torch's FLOP counter agrees with
2·m·n·k) and to time operations fairly (warm-up, then an average over repeats, with the GPU
synchronised so that queued kernels are counted). Call the timing helpers with ``# @stepover``:
their loops are plumbing, not lecture content. This module must not print, plot or emit renderings.
"""

from __future__ import annotations

import time
from typing import Callable

import torch
from torch.utils.flop_counter import FlopCounterMode

# Dense (no sparsity) peak FLOP/s from NVIDIA's datasheets, SXM parts. The bf16 numbers are the
# ones the lecture quotes; the float32 numbers are the non-tensor-core FP32 rates, which is what a
# float32 matmul uses while TF32 is off (PyTorch's default for matmuls).
PEAK_FLOP_PER_S = {
    ("A100", torch.float32): 19.5e12,
    ("A100", torch.bfloat16): 312e12,
    ("H100", torch.float32): 67e12,
    ("H100", torch.bfloat16): 989e12,
    ("H200", torch.float32): 67e12,
    ("H200", torch.bfloat16): 989e12,
}


def get_memory_usage(x: torch.Tensor) -> int:
    """Bytes held by the elements of ``x`` (not counting storage it merely views)."""
    return x.numel() * x.element_size()


def count_flops(fn: Callable[[], object]) -> int:
    """FLOPs that torch's own counter attributes to running ``fn`` once."""
    with FlopCounterMode(display=False) as counter:
        fn()
    return counter.get_total_flops()


def synchronize(device: str) -> None:
    # CUDA kernels run asynchronously: without this a timer would measure only the launch.
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def time_fn(fn: Callable[[], object], device: str, repeats: int = 5) -> float:
    """Mean seconds per call of ``fn`` after one warm-up call."""
    fn()
    synchronize(device)
    start = time.perf_counter()
    for _ in range(repeats):
        fn()
    synchronize(device)
    return (time.perf_counter() - start) / repeats


def promised_flop_per_s(device_name: str, dtype: torch.dtype) -> float | None:
    """The datasheet peak for a GPU name and dtype, or None when we have no figure (e.g. a CPU)."""
    for (family, peak_dtype), flop_per_s in PEAK_FLOP_PER_S.items():
        if family in device_name and peak_dtype == dtype:
            return flop_per_s
    return None
