"""Peak FLOP/s lookup: device-name matching, dtype figures from the datasheets, reasons for nulls."""

from __future__ import annotations

import pytest
import torch

from tracer.capture.peaks import find_device, peak_flop_per_s

TERA = 1e12


@pytest.mark.parametrize(
    "name, label",
    [
        ("NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM"),
        ("NVIDIA H100 PCIe", "NVIDIA H100 PCIe"),
        ("NVIDIA H100 NVL", "NVIDIA H100 NVL"),
        ("NVIDIA H200", "NVIDIA H200 SXM"),
        ("NVIDIA H200 NVL", "NVIDIA H200 NVL"),
        ("NVIDIA A100-SXM4-80GB", "NVIDIA A100"),
        ("NVIDIA A100-PCIE-40GB", "NVIDIA A100"),
        ("NVIDIA A100 80GB PCIe", "NVIDIA A100"),
    ],
)
def test_known_device_names(name, label):
    assert find_device(name).label == label


@pytest.mark.parametrize("name", ["NVIDIA A10G", "NVIDIA GeForce RTX 4090", "Tesla T4"])
def test_other_devices_are_unknown(name):
    assert find_device(name) is None
    peak, reason = peak_flop_per_s(name, "bfloat16")
    assert peak is None and reason.startswith(f"unknown accelerator {name!r}")


@pytest.mark.parametrize(
    "name, dtype, expected",
    [
        ("NVIDIA H100 80GB HBM3", "bfloat16", 989.5 * TERA),  # 1,979 with sparsity / 2
        ("NVIDIA H100 80GB HBM3", "float16", 989.5 * TERA),
        ("NVIDIA H100 80GB HBM3", "float8_e4m3fn", 1979 * TERA),
        ("NVIDIA H100 80GB HBM3", "tf32", 494.5 * TERA),
        ("NVIDIA H100 PCIe", "bfloat16", 756.5 * TERA),
        ("NVIDIA H100 PCIe", "float8_e5m2", 1513 * TERA),
        ("NVIDIA H200", "bfloat16", 989.5 * TERA),
        ("NVIDIA A100-SXM4-80GB", "bfloat16", 312 * TERA),
        ("NVIDIA A100-SXM4-80GB", "tf32", 156 * TERA),
    ],
)
def test_dense_tensor_core_figures(name, dtype, expected):
    assert peak_flop_per_s(name, dtype) == (expected, None)


def test_float32_uses_fp32_unless_tf32_is_on():
    assert peak_flop_per_s("NVIDIA H100 80GB HBM3", "float32", tf32=False) == (67 * TERA, None)
    assert peak_flop_per_s("NVIDIA H100 80GB HBM3", "float32", tf32=True) == (494.5 * TERA, None)
    assert peak_flop_per_s("NVIDIA A100-SXM4-80GB", "float32", tf32=False) == (19.5 * TERA, None)


def test_float32_follows_torch_tf32_setting():
    previous = torch.get_float32_matmul_precision()
    try:
        torch.set_float32_matmul_precision("highest")
        assert peak_flop_per_s("NVIDIA H100 PCIe", "float32")[0] == 51 * TERA
        torch.set_float32_matmul_precision("high")  # lets cuBLAS use TF32
        assert peak_flop_per_s("NVIDIA H100 PCIe", "float32")[0] == 378 * TERA
    finally:
        torch.set_float32_matmul_precision(previous)


def test_cpu_has_no_peak():
    assert peak_flop_per_s(None, "float32") == (None, "no peak FLOP/s known for CPU")


def test_missing_figures_say_why():
    peak, reason = peak_flop_per_s("NVIDIA A100-SXM4-80GB", "float8_e4m3fn")
    assert peak is None and "float8_e4m3fn" in reason and "A100" in reason
    peak, reason = peak_flop_per_s("NVIDIA H100 80GB HBM3", "float64")
    assert peak is None and "float64" in reason
    peak, reason = peak_flop_per_s("NVIDIA H100 80GB HBM3", None)
    assert peak is None and "dtype" in reason
