"""Step-mode data of a distributed trace (tracer/site/pages/rank_viewer.py)."""

from __future__ import annotations

from helpers.traced import traced

from tracer.site.cards.render import HtmlRenderer

from tracer.site.cards.templates import template_env
from tracer.site.pages.viewer_data import build_viewer_data


def data() -> dict:
    trace = traced("ranks_allreduce")
    return build_viewer_data(trace, HtmlRenderer(trace, template_env()))


def test_one_segment_per_rank_and_stepping_never_leaves_it():
    d = data()
    ranks = d["ranks"]
    assert ranks["world_size"] == 2 and [s[0] for s in ranks["segments"]] == [0, 1]
    assert ranks["segments"][-1][2] == d["count"] == len(ranks["x"]) == len(ranks["switch"])
    for _rank, start, end in ranks["segments"]:
        for key in ("next", "prev", "over", "back_over", "out"):
            assert all(t == -1 or start <= t < end for t in d["steps"][key][start:end]), key
        assert d["steps"]["next"][end - 1] == -1 and d["steps"]["prev"][start] == -1


def test_the_all_reduce_step_of_each_rank_shows_its_collective_card():
    d = data()
    cards = {int(k): html for k, html in d["compute"].items() if "lt-collective" in html}
    assert len(cards) == 2  # one per rank
    for step, html in cards.items():
        segment = next(k for k, (_r, start, end) in enumerate(d["ranks"]["segments"]) if start <= step < end)
        assert f'class="lt-this-rank"><td>{segment}</td>' in html
    [column] = d["ranks"]["collectives"]
    assert column["op"] == "all_reduce" and sorted(column["seconds"]) == ["0", "1"]
