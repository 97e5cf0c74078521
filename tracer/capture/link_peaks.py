"""Peak bandwidth of the links collectives run over, for holding a measured busbw against it.

A small table of per-direction link bandwidth in bytes/s (busbw, as nccl-tests defines it, is
compared with what one link carries one way): NVLink and PCIe generations by GPU (the link NCCL
uses between the GPUs of one machine), Ethernet generations by port speed. ``link_for`` picks the
row for a rank from what it can see: the backend, the GPU's CUDA name, whether all ranks share one
machine, and the network interface gloo was told to use. Gloo over loopback (the default on one
machine) has no link and so no peak. This module must not measure anything or import torch: the
caller passes the device name in.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from tracer.capture.peaks import gpu_part

GB = 1e9


class LinkPeak(NamedTuple):
    label: str
    bytes_per_s: float  # one direction


# NVLink: "NVIDIA A100 Tensor Core GPU" datasheet (2021), SXM: NVLink 600 GB/s (both directions of
# 12 third-generation links); "NVIDIA H100 Tensor Core GPU" datasheet (2023), SXM: NVLink 900 GB/s
# (18 fourth-generation links); "NVIDIA H200" datasheet (2024), SXM: NVLink 900 GB/s. Halved: one way.
NVLINK_3 = LinkPeak("NVLink 3 (A100 SXM)", 300 * GB)
NVLINK_4_H100 = LinkPeak("NVLink 4 (H100 SXM)", 450 * GB)
NVLINK_4_H200 = LinkPeak("NVLink 4 (H200 SXM)", 450 * GB)
# PCIe x16, one way: Gen4 16 GT/s and Gen5 32 GT/s per lane with 128b/130b encoding, 31.5 / 63 GB/s.
PCIE_4 = LinkPeak("PCIe Gen4 x16", 31.5 * GB)
PCIE_5 = LinkPeak("PCIe Gen5 x16", 63 * GB)

# By the part peaks.gpu_part recognises. NVL parts pair GPUs with bridges, which link only two of
# them: their row is their PCIe slot.
_LINKS = {
    "H200 NVL": PCIE_5,
    "H200 SXM": NVLINK_4_H200,
    "H100 NVL": PCIE_5,
    "H100 PCIe": PCIE_5,
    "H100 SXM": NVLINK_4_H100,
    "A100 PCIe": PCIE_4,
    "A100 SXM": NVLINK_3,
}

# Ethernet by port speed (Mb/s, as /sys/class/net/IFACE/speed says): the line rate, one way.
ETHERNET = {
    speed: LinkPeak(f"{speed // 1000} GbE", speed * 1e6 / 8)
    for speed in (1_000, 10_000, 25_000, 40_000, 50_000, 100_000, 200_000, 400_000, 800_000)
}

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def gpu_link(device_name: str) -> LinkPeak | None:
    """The link between the GPUs of one machine for a CUDA device name, or None if not in the table."""
    part = gpu_part(device_name)
    return _LINKS[part] if part is not None else None


def ethernet(speed_mbps: int) -> LinkPeak | None:
    return ETHERNET.get(speed_mbps)


def interface_speed(name: str, root: Path = Path("/sys/class/net")) -> int | None:
    try:
        return int((root / name / "speed").read_text().strip())
    except (OSError, ValueError):
        return None


def link_for(
    backend: str | None, *, device_name: str | None = None, one_machine: bool = True, environ: dict[str, str] | None = None
) -> LinkPeak | None:
    """The link a rank's collectives cross, when the table knows it (see the module docstring)."""
    env = os.environ if environ is None else environ
    if backend == "nccl":
        return gpu_link(device_name) if device_name and one_machine else None
    if backend == "gloo":
        if env.get("MASTER_ADDR", "127.0.0.1") in LOOPBACK or not env.get("GLOO_SOCKET_IFNAME"):
            return None  # loopback: memory copies between processes, no link
        speed = interface_speed(env["GLOO_SOCKET_IFNAME"].split(",")[0])
        return ethernet(speed) if speed else None
    return None
