"""The ranks of a distributed trace in a real browser: the real site build of the 2-rank gloo trace.

Read mode must show every rank's values without JavaScript; step mode follows one rank, switches
with ``]``/``[``/digits (keeping the place: the same collective), and Home stays in the rank.
"""

from __future__ import annotations

import pytest

from conftest import build_site, serve
from traced import trace_path, traced

CURRENT = ".lt-viewer .lt-sline.lt-current"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    built = build_site(tmp_path_factory.mktemp("site"), [trace_path("ranks_allreduce")])
    with serve(built) as url:
        yield url


def test_read_mode_shows_each_ranks_tensor_without_javascript(site, browser):
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(f"{site}lectures/ranks_allreduce/")
    blocks = page.query_selector_all('.lt-rank-cards[data-name="x"]')
    assert len(blocks) == 2
    values = [{card.get_attribute("data-rank"): card.query_selector(".lt-grid").inner_text().split()
               for card in block.query_selector_all(".lt-rank-card")} for block in blocks]
    assert values == [{"0": ["1.0", "2.0"], "1": ["2.0", "4.0"]}, {"0": ["3.0", "6.0"], "1": ["3.0", "6.0"]}]
    assert page.query_selector('.lt-collective[data-op="all_reduce"]').is_visible()
    context.close()


def test_step_mode_follows_one_rank_and_switches_with_a_key(site, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    trace = traced("ranks_allreduce")
    # rank 0's timeline: main's two lines, the spawn call, then the rank's lines 13..19: line 17 is index 7
    page.goto(f"{site}lectures/ranks_allreduce/#step=7")
    page.wait_for_function("window.LECTRACE_VIEWER && window.LECTRACE_VIEWER.cur === 7")
    page.wait_for_function("document.documentElement.getAttribute('data-rank') === '0'")
    assert page.get_attribute(CURRENT, "data-line") == "17"
    assert page.query_selector(".lt-rankbar button[aria-pressed=true]").inner_text() == "rank 0"
    rank_0_end = page.evaluate("window.LECTRACE_DATA.ranks.segments[0][2]")
    assert page.inner_text(".lt-v-pos") == f"rank 0 · step 7 / {rank_0_end - 1}"
    assert "3.0" in page.inner_text(".lt-v-vars") and "lt-collective" in page.inner_html(".lt-viewer")
    page.keyboard.press("]")
    page.wait_for_function("document.documentElement.getAttribute('data-rank') === '1'")
    segments = page.evaluate("window.LECTRACE_DATA.ranks.segments")
    cur = page.evaluate("window.LECTRACE_VIEWER.cur")
    assert segments[1][1] <= cur < segments[1][2]
    assert page.get_attribute(CURRENT, "data-line") == "17"  # the same collective, on rank 1
    # the counter counts within rank 1's own timeline, not after rank 0's steps
    assert page.inner_text(".lt-v-pos") == f"rank 1 · step {cur - segments[1][1]} / {segments[1][2] - segments[1][1] - 1}"
    page.keyboard.press("ArrowLeft")
    page.wait_for_function(f"window.LECTRACE_VIEWER.cur === {cur - 1}")
    assert "2.0" in page.inner_text(".lt-v-vars")  # rank 1's x before the all_reduce: [2.0, 4.0]
    page.keyboard.press("Home")
    page.wait_for_function(f"window.LECTRACE_VIEWER.cur === {segments[1][1]}")  # Home stays in rank 1
    page.keyboard.press("0")
    page.wait_for_function("document.documentElement.getAttribute('data-rank') === '0'")
    assert page.evaluate("window.LECTRACE_VIEWER.cur") == 0
    rows = page.query_selector_all(".lt-rank-timeline .lt-tl-row")
    assert len(rows) == len(trace["ranks"]["launches"][0]["streams"]) == 2
    assert [row.get_attribute("class") for row in rows] == ["lt-tl-row lt-tl-current", "lt-tl-row"]
    assert not errors, errors
    context.close()


def test_home_and_lecture_pages_count_the_steps_a_reader_steps_through(site, browser):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    own = len(traced("ranks_allreduce")["steps"])
    page.goto(site)
    assert f"{own} steps + 2 ranks × 7" in page.inner_text(".lt-lecture-meta")  # 7: worker's lines 13..19
    page.goto(f"{site}lectures/ranks_allreduce/")
    assert page.inner_text(".lt-steps") == f"{own} steps + 2 ranks × 7"
    context.close()
