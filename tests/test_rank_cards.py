"""Read mode of a distributed trace (tracer/site/rank_cards.py via read_page): no JavaScript needed."""

from __future__ import annotations

import re

from traced import traced

from tracer.site.cards import HtmlRenderer, template_env
from tracer.site.read_page import build_read_page


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
    table = re.search(r'<div class="lt-card lt-ranks-table">.*?</table>', html, re.S).group(0)
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


def test_a_ranks_heatmaps_reach_the_lecture_renderer_that_the_plugin_writes_out():
    from tracer.site.rank_cards import RankCards

    trace = traced("ranks_allreduce")
    matrix = next(step["env"]["w"] for step in traced("classroom")["steps"] if "w" in step["env"])  # a real 2-D value
    env = template_env()
    lecture = HtmlRenderer(trace, env)
    card = RankCards(trace, env, lecture.heatmaps).renderer(0, 1).value("w", matrix, step_index=0)
    (name,) = re.findall(r'src="\{root\}assets/hm/([0-9a-f]+\.png)"', str(card))
    assert list(lecture.heatmaps) == [name] and lecture.heatmaps[name].startswith(b"\x89PNG")
