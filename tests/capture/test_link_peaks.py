"""The link peaks table (tracer/capture/link_peaks.py)."""

from tracer.capture.link_peaks import NVLINK_3, NVLINK_4_H100, PCIE_4, PCIE_5, ethernet, gpu_link, link_for


def test_gpus_map_to_their_links_one_way():
    assert gpu_link("NVIDIA H100 80GB HBM3") == NVLINK_4_H100 and NVLINK_4_H100.bytes_per_s == 450e9
    assert gpu_link("NVIDIA H100 PCIe") == PCIE_5 and gpu_link("NVIDIA H100 NVL") == PCIE_5
    assert gpu_link("NVIDIA A100-SXM4-80GB") == NVLINK_3 and gpu_link("NVIDIA A100-PCIE-40GB") == PCIE_4
    assert gpu_link("NVIDIA GeForce RTX 4090") is None


def test_ethernet_by_port_speed():
    link = ethernet(100_000)
    assert link is not None and (link.label, link.bytes_per_s) == ("100 GbE", 12.5e9)
    assert ethernet(123) is None


def test_gloo_on_loopback_has_no_link_and_nccl_across_machines_neither():
    assert link_for("gloo", environ={"MASTER_ADDR": "127.0.0.1"}) is None
    assert link_for("gloo", environ={}) is None
    assert link_for("gloo", environ={"MASTER_ADDR": "10.0.0.2"}) is None  # no interface named: unknown
    assert link_for("nccl", device_name="NVIDIA H100 80GB HBM3", environ={}) == NVLINK_4_H100
    assert link_for("nccl", device_name="NVIDIA H100 80GB HBM3", one_machine=False, environ={}) is None
