"""A real NCCL run (one rank on an H100, tests/courses/nccl_course): its collective cards name NCCL
and the NVLink peak, and carry busbw."""

from __future__ import annotations

import re
from pathlib import Path

from tracer.contract.trace_reading import load_trace
from tracer.site.cards.render import HtmlRenderer
from tracer.site.cards.templates import template_env
from tracer.site.pages.read_page import build_read_page

TRACE = Path(__file__).resolve().parents[2] / "courses" / "nccl_course" / "site" / "traces" / "nccl_one.json"


def _cards() -> list[str]:
    trace = load_trace(TRACE)
    env = template_env()
    html = "\n".join(str(slot) for slot in build_read_page(trace, HtmlRenderer(trace, env), env).slots)
    return re.findall(r'<div class="lt-card lt-collective" data-op="[^"]+">.*?</table>', html, re.S)


def test_the_trace_is_a_cuda_run_through_nccl():
    trace = load_trace(TRACE)
    assert trace["environment"]["device"] == "cuda" and trace["status"] == "ok"
    launch = trace["ranks"]["launches"][0]
    assert launch["backend"] == "nccl" and launch["link"]["label"].startswith("NVLink")


def test_collective_cards_name_nccl_and_nvlink_and_show_busbw():
    cards = _cards()
    ops = [re.search(r'data-op="([^"]+)"', card).group(1) for card in cards]
    assert ops[:5] == ["all_reduce"] * 4 + ["all_gather_into_tensor"]
    for card in cards[:5]:
        text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", card))
        assert "(NCCL)" in text and "(nccl)" not in text
        assert re.search(r"busbw [\d.]+ [KMGT]?B/s", text)
        assert "of NVLink 4 (H100 SXM)'s 450 GB/s" in text
        assert re.search(r'<b class="lt-busbw">[^<]+</b>', card)
