"""Peak FLOP/s of known accelerators, by dtype, for turning a measured FLOP/s into an MFU.

The table holds vendor datasheet figures for *dense* math (the datasheets' headline Tensor Core
numbers assume 2:4 structured sparsity; dense is half of those). A device is recognised from its
CUDA name (``torch.cuda.get_device_name()``). float32 matmuls use the plain FP32 (CUDA core) figure
unless TF32 is enabled in torch (``torch.backends.cuda.matmul.allow_tf32``, its successor
``fp32_precision == "tf32"``, or ``torch.set_float32_matmul_precision("high"/"medium")``), in which
case cuBLAS runs them on Tensor Cores and the TF32 figure applies. This module must not measure
anything or touch tensors: it only looks figures up.
"""

from __future__ import annotations

import re
from typing import NamedTuple

TERA = 1e12


class Peaks(NamedTuple):
    label: str
    float32: float  # FLOP/s, non-Tensor-Core FP32
    tf32: float | None  # FLOP/s, dense Tensor Core
    bfloat16: float | None  # FLOP/s, dense Tensor Core (FP16 is the same on these parts)
    fp8: float | None  # FLOP/s, dense Tensor Core; None where the part has no FP8 Tensor Cores


# Source: "NVIDIA A100 Tensor Core GPU" datasheet (NVIDIA, 2021, A100 80GB PCIe/SXM column set):
# FP32 19.5 TFLOPS; TF32 156 TFLOPS (312 with sparsity); BF16/FP16 312 TFLOPS (624 with sparsity).
# PCIe and SXM list the same peaks. Ampere has no FP8.
A100 = Peaks("NVIDIA A100", 19.5 * TERA, 156 * TERA, 312 * TERA, None)
# Source: "NVIDIA H100 Tensor Core GPU" datasheet (NVIDIA, 2023), H100 SXM column:
# FP32 67 TFLOPS; TF32 989 / BF16 1,979 / FP8 3,958 TFLOPS, all "with sparsity" -> halved here.
H100_SXM = Peaks("NVIDIA H100 SXM", 67 * TERA, 494.5 * TERA, 989.5 * TERA, 1979 * TERA)
# Same datasheet, H100 PCIe column: FP32 51; TF32 756 / BF16 1,513 / FP8 3,026 with sparsity.
H100_PCIE = Peaks("NVIDIA H100 PCIe", 51 * TERA, 378 * TERA, 756.5 * TERA, 1513 * TERA)
# Same datasheet, H100 NVL column (per GPU): FP32 60; TF32 835 / BF16 1,671 / FP8 3,341 with sparsity.
H100_NVL = Peaks("NVIDIA H100 NVL", 60 * TERA, 417.5 * TERA, 835.5 * TERA, 1670.5 * TERA)
# Source: "NVIDIA H200 Tensor Core GPU" datasheet (NVIDIA, 2024), H200 SXM column: same compute as
# H100 SXM (FP32 67; TF32 989 / BF16 1,979 / FP8 3,958 with sparsity); H200 NVL column: FP32 60;
# TF32 835 / BF16 1,671 / FP8 3,341 with sparsity.
H200_SXM = Peaks("NVIDIA H200 SXM", 67 * TERA, 494.5 * TERA, 989.5 * TERA, 1979 * TERA)
H200_NVL = Peaks("NVIDIA H200 NVL", 60 * TERA, 417.5 * TERA, 835.5 * TERA, 1670.5 * TERA)

# Which part a CUDA device name is, first match winning, so the more specific names come first (the
# link table in link_peaks.py keys on the same parts). CUDA names seen in the wild:
# "NVIDIA H100 80GB HBM3" (SXM), "NVIDIA H100 PCIe", "NVIDIA H100 NVL", "NVIDIA H200",
# "NVIDIA H200 NVL", "NVIDIA A100-SXM4-80GB", "NVIDIA A100-PCIE-40GB", "NVIDIA A100 80GB PCIe".
_PARTS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bh200\b.*\bnvl\b"), "H200 NVL"),
    (re.compile(r"\bh200\b"), "H200 SXM"),
    (re.compile(r"\bh100\b.*\bnvl\b"), "H100 NVL"),
    (re.compile(r"\bh100\b.*\bpcie\b"), "H100 PCIe"),
    (re.compile(r"\bh100\b"), "H100 SXM"),
    (re.compile(r"\ba100\b.*\bpcie\b"), "A100 PCIe"),
    (re.compile(r"\ba100\b"), "A100 SXM"),
)

_PEAKS = {
    "H200 NVL": H200_NVL,
    "H200 SXM": H200_SXM,
    "H100 NVL": H100_NVL,
    "H100 PCIe": H100_PCIE,
    "H100 SXM": H100_SXM,
    "A100 PCIe": A100,
    "A100 SXM": A100,
}


def gpu_part(device_name: str) -> str | None:
    """The part a CUDA device name names (a key of this table and of link_peaks'), or None."""
    key = device_name.lower()
    return next((part for pattern, part in _PARTS if pattern.search(key)), None)


_FP8 = re.compile(r"^float8_")


def find_device(device_name: str) -> Peaks | None:
    """The table row for a CUDA device name, or None when the device is not in the table."""
    part = gpu_part(device_name)
    return _PEAKS[part] if part is not None else None


def tf32_enabled() -> bool:
    """Whether torch lets cuBLAS run float32 matmuls on TF32 Tensor Cores."""
    import torch

    matmul = torch.backends.cuda.matmul
    if getattr(matmul, "fp32_precision", "none") == "tf32":
        return True
    if getattr(matmul, "fp32_precision", "none") == "ieee":
        return False
    return bool(matmul.allow_tf32) or torch.get_float32_matmul_precision() != "highest"


def peak_flop_per_s(device_name: str | None, dtype: str | None, *, tf32: bool | None = None) -> tuple[float | None, str | None]:
    """``(peak FLOP/s, None)`` for a known device and dtype, else ``(None, reason)``.

    ``device_name`` None means the work ran on the CPU. ``dtype`` is a torch dtype name such as
    ``"bfloat16"``; ``"tf32"`` asks for the TF32 figure directly. ``tf32`` overrides the torch
    setting that decides between the FP32 and TF32 figures for ``"float32"``.
    """
    if device_name is None:
        return None, "no peak FLOP/s known for CPU"
    peaks = find_device(device_name)
    if peaks is None:
        return None, f"unknown accelerator {device_name!r}: no peak FLOP/s in the table"
    if dtype is None:
        return None, "no matmul-like op on this line, so no dtype to pick a peak for"
    if dtype == "float32":
        use_tf32 = tf32_enabled() if tf32 is None else tf32
        figure = peaks.tf32 if use_tf32 else peaks.float32
    elif dtype == "tf32":
        figure = peaks.tf32
    elif dtype in ("bfloat16", "float16"):
        figure = peaks.bfloat16
    elif _FP8.match(dtype):
        figure = peaks.fp8
    else:
        figure = None
    if figure is None:
        return None, f"no peak FLOP/s for {dtype} on {peaks.label} in the table"
    return figure, None
