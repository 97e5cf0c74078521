"""Read mode of a distributed trace (tracer/site/pages/rank_cards.py via read_page): no JavaScript needed."""

from __future__ import annotations

import re

from helpers.traced import traced

from tracer.site.cards.render import HtmlRenderer

from tracer.site.cards.templates import template_env
from tracer.site.pages.read_page import build_read_page


def page_html() -> str:
    trace = traced("ranks_allreduce")
    env = template_env()
    page = build_read_page(trace, HtmlRenderer(trace, env), env)
    return "\n".join(str(slot) for slot in page.slots)


def rank_values(block: str) -> dict[int, list[str]]:
    """rank -> the numbers of its values grid, in one .lt-rank-cards block."""
    out = {}
    block = block.split('<div class="lt-rank-cards"')[0]
    for rank, card in re.findall(r'<div class="lt-rank-card" data-rank="(\d+)">(.*?)class="lt-stats"', block, re.S):
        grid = re.search(r'class="lt-grid"[^>]*>(.*?)</(?:pre|table)>', card, re.S).group(1)
        out[int(rank)] = re.sub(r"<[^>]+>", " ", grid).split()
    return out


def test_each_ranks_tensor_before_and_after_all_reduce_side_by_side():
    html = page_html()
    blocks = html.split('<div class="lt-rank-cards" data-name="x">')[1:]
    assert len(blocks) == 2  # line 16 (before) and line 17 (after the all_reduce)
    assert rank_values(blocks[0]) == {0: ["1.0", "2.0"], 1: ["2.0", "4.0"]}
    assert rank_values(blocks[1]) == {0: ["3.0", "6.0"], 1: ["3.0", "6.0"]}


def test_scalars_share_one_table_and_the_collective_has_its_card():
    html = page_html()
    table = re.search(r'<div class="lt-card lt-ranks-table"[^>]*>.*?</table>', html, re.S).group(0)
    assert re.findall(r'<th scope="col">rank (\d)</th>', table) == ["0", "1"]
    assert re.findall(r"<td>(.*?)</td>", table) == ['<code class="lt-scalar lt-type-float" title="float">9.0</code>'] * 2
    card = re.search(r'<div class="lt-card lt-collective" data-op="all_reduce">.*?</div>\s*</div>', html, re.S).group(0)
    assert "ring (gloo)" in card and "<b>8 B</b> per rank" in card
    rows = re.findall(r"<tr[^>]*><td>(\d)</td><td>([^<]*)</td><td>([^<]*)</td>", card)
    assert rows == [("0", "8 B", "8 B"), ("1", "8 B", "8 B")]  # 2(n-1)/n of 8 bytes each way, n = 2


def test_each_ranks_stderr_shows_apart_from_its_stdout():
    trace = traced("ranks_output")  # ranks print on line 18, write to stderr on 19, rank 1 warns on 21
    env = template_env()
    html = "\n".join(str(slot) for slot in build_read_page(trace, HtmlRenderer(trace, env), env).slots)
    stderr = dict(re.findall(r'<pre class="lt-stdout lt-stderr" data-rank="(\d)"[^>]*>(.*?)</pre>', html, re.S))
    stdout = dict(re.findall(r'<pre class="lt-stdout" data-rank="(\d)">(.*?)</pre>', html, re.S))
    assert stdout == {"0": "rank 0 says hello\n", "1": "rank 1 says hello\n"}
    assert stderr["0"] == "rank 0 complains on stderr\n"
    assert len(re.findall(r'<pre class="lt-stdout lt-stderr" data-rank="1"', html)) == 2  # line 19, and its warning on 21
    assert "UserWarning: rank 1 is running late" in html and "rank 1 · stderr" in html


def test_the_collective_card_splits_wait_from_transfer_and_shows_bus_bandwidth():
    html = page_html()
    card = re.search(r'<div class="lt-card lt-collective" data-op="all_reduce">.*?</div>\s*</div>', html, re.S).group(0)
    trace = traced("ranks_allreduce")
    records = {
        s["rank"]: c for s in trace["ranks"]["launches"][0]["streams"] for step in s["steps"] for c in step.get("collectives", [])
    }
    # the last rank to enter waited nothing; the other waited exactly the gap between their entries
    last = max(records.values(), key=lambda c: c["start_seconds"])
    first = min(records.values(), key=lambda c: c["start_seconds"])
    assert last["wait_seconds"] == 0.0
    assert abs(first["wait_seconds"] - min(first["seconds"], last["start_seconds"] - first["start_seconds"])) < 2e-6
    for c in records.values():  # all_reduce of 8 B on 2 ranks: busbw = algbw = 8 B / transfer
        assert c["busbw"] == c["algbw"] == round(8 / c["transfer_seconds"], 1)
    assert re.search(r'busbw <b class="lt-busbw">[\d.]+ K?B/s</b>', card)
    assert "no link peak (gloo over loopback)" in card  # gloo on one machine: no peak to hold it against
    assert len(re.findall(r'<td class="lt-wait">', card)) == 2 and 'class="lt-bar-wait"' in card


def test_a_known_link_shows_the_share_of_its_peak():
    from tracer.site.pages.rank_cards import collective_view
    from tracer.site.model.rank_model import CollectiveRow

    row = CollectiveRow(0, 0, "all_reduce", "bfloat16", [1 << 20], 2 << 20, "ring", "nccl")
    for rank, busbw in ((0, 300e9), (1, 225e9)):
        row.per_rank[rank] = {
            "op": "all_reduce",
            "sent_nbytes": 1,
            "received_nbytes": 1,
            "seconds": 1e-5,
            "wait_seconds": 0.0,
            "transfer_seconds": 1e-5,
            "algbw": busbw,
            "busbw": busbw,
            "peak": 450e9,
            "peak_share": busbw / 450e9,
            "group_size": 2,
        }
    view = collective_view(row, 2, {"label": "NVLink 4 (H100 SXM)", "bytes_per_s": 450e9})
    assert view["bandwidth"] == {
        "algbw": "225 GB/s",
        "busbw": "225 GB/s",
        "share": "50%",
        "link": "NVLink 4 (H100 SXM)",
        "peak": "450 GB/s",
    }


def test_a_ranks_heatmaps_reach_the_lecture_renderer_that_the_plugin_writes_out():
    from tracer.site.pages.rank_cards import RankCards

    trace = traced("ranks_allreduce")
    matrix = next(step["env"]["w"] for step in traced("classroom")["steps"] if "w" in step["env"])  # a real 2-D value
    env = template_env()
    lecture = HtmlRenderer(trace, env)
    card = RankCards(trace, env, lecture.heatmaps).renderer(0, 1).value("w", matrix, step_index=0)
    (name,) = re.findall(r'src="\{root\}assets/hm/([0-9a-f]+\.png)"', str(card))
    assert list(lecture.heatmaps) == [name] and lecture.heatmaps[name].startswith(b"\x89PNG")
