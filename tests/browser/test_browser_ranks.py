"""The ranks of a distributed trace in a real browser: the real site build of the 2-rank gloo trace.

Read mode must show every rank's values without JavaScript; step mode follows one rank, switches
with ``]``/``[``/digits (keeping the place: the same collective), and Home stays in the rank.
"""

from __future__ import annotations

import pytest

from helpers.site import build_site, serve
from helpers.traced import trace_all, trace_path, traced

from tracer.site.model.rank_model import rank_timelines

CURRENT = ".lt-viewer .lt-sline.lt-current"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    trace_all("ranks_allreduce", "ranks_output")
    built = build_site(tmp_path_factory.mktemp("site"), [trace_path("ranks_allreduce"), trace_path("ranks_output")])
    with serve(built) as url:
        yield url


def open_context(browser, javascript: bool):
    """A fresh 1280x800 browser context (closed by the fixture), and the page errors it collects."""
    # bypass_csp: wait_for_function polls with eval() in the page, which the pages' CSP refuses
    context = browser.new_context(java_script_enabled=javascript, viewport={"width": 1280, "height": 800}, bypass_csp=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return context, page, errors


@pytest.fixture
def js_page(browser):
    context, page, errors = open_context(browser, javascript=True)
    yield page, errors
    context.close()


@pytest.fixture
def nojs_page(browser):
    context, page, _errors = open_context(browser, javascript=False)
    yield page
    context.close()


def test_read_mode_shows_each_ranks_tensor_without_javascript(site, nojs_page):
    page = nojs_page
    page.goto(f"{site}lectures/ranks_allreduce/")
    blocks = page.query_selector_all('.lt-rank-cards[data-name="x"]')
    assert len(blocks) == 2
    values = [
        {
            card.get_attribute("data-rank"): card.query_selector(".lt-grid").inner_text().split()
            for card in block.query_selector_all(".lt-rank-card")
        }
        for block in blocks
    ]
    assert values == [{"0": ["1.0", "2.0"], "1": ["2.0", "4.0"]}, {"0": ["3.0", "6.0"], "1": ["3.0", "6.0"]}]
    assert page.query_selector('.lt-collective[data-op="all_reduce"]').is_visible()


def test_step_mode_follows_one_rank_and_switches_with_a_key(site, js_page):
    page, errors = js_page
    trace = traced("ranks_allreduce")
    # rank 0's timeline: main's two lines, the spawn call, then the rank's lines 13..19: line 17 is index 7
    page.goto(f"{site}lectures/ranks_allreduce/#step=7")
    page.wait_for_function("window.CHALKTRACE_VIEWER && window.CHALKTRACE_VIEWER.cur === 7")
    page.wait_for_function("document.documentElement.getAttribute('data-rank') === '0'")
    assert page.get_attribute(CURRENT, "data-line") == "17"
    assert page.query_selector(".lt-rankbar button[aria-pressed=true]").inner_text() == "rank 0"
    rank_0_end = page.evaluate("window.CHALKTRACE_DATA.ranks.segments[0][2]")
    assert page.inner_text(".lt-v-pos") == f"rank 0 · step 7 / {rank_0_end - 1}"
    assert "3.0" in page.inner_text(".lt-v-vars") and "lt-collective" in page.inner_html(".lt-viewer")
    page.keyboard.press("]")
    page.wait_for_function("document.documentElement.getAttribute('data-rank') === '1'")
    segments = page.evaluate("window.CHALKTRACE_DATA.ranks.segments")
    cur = page.evaluate("window.CHALKTRACE_VIEWER.cur")
    assert segments[1][1] <= cur < segments[1][2]
    assert page.get_attribute(CURRENT, "data-line") == "17"  # the same collective, on rank 1
    # the counter counts within rank 1's own timeline, not after rank 0's steps
    assert page.inner_text(".lt-v-pos") == f"rank 1 · step {cur - segments[1][1]} / {segments[1][2] - segments[1][1] - 1}"
    page.keyboard.press("ArrowLeft")
    page.wait_for_function(f"window.CHALKTRACE_VIEWER.cur === {cur - 1}")
    assert "2.0" in page.inner_text(".lt-v-vars")  # rank 1's x before the all_reduce: [2.0, 4.0]
    page.keyboard.press("Home")
    page.wait_for_function(f"window.CHALKTRACE_VIEWER.cur === {segments[1][1]}")  # Home stays in rank 1
    page.keyboard.press("0")
    page.wait_for_function("document.documentElement.getAttribute('data-rank') === '0'")
    assert page.evaluate("window.CHALKTRACE_VIEWER.cur") == 0
    rows = page.query_selector_all(".lt-rank-timeline .lt-tl-row")
    assert len(rows) == len(trace["ranks"]["launches"][0]["streams"]) == 2
    assert [row.get_attribute("class") for row in rows] == ["lt-tl-row lt-tl-current", "lt-tl-row"]
    assert not errors, errors


def test_home_and_lecture_pages_count_the_steps_a_reader_steps_through(site, browser):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    own = len(traced("ranks_allreduce")["steps"])
    page.goto(site)
    assert f"{own} steps + 2 ranks × 7" in page.inner_text(".lt-lecture-meta")  # 7: worker's lines 13..19
    page.goto(f"{site}lectures/ranks_allreduce/")
    assert page.inner_text(".lt-steps") == f"{own} steps + 2 ranks × 7"
    context.close()


# tests/lectures/ranks_output.py: each rank writes to sys.stderr on line 19; rank 1 alone warns on line 21;
# rank 0 holds 1 KiB of tensors, rank 1 2 KiB


def test_read_mode_shows_each_ranks_stderr_apart_from_its_stdout_without_javascript(site, nojs_page):
    page = nojs_page
    page.goto(f"{site}lectures/ranks_output/")
    stderr = {
        el.get_attribute("data-rank"): el.inner_text().strip()
        for el in page.query_selector_all(".lt-rank-stderr pre.lt-stderr")
        if "complains" in el.inner_text()
    }
    assert stderr == {"0": "rank 0 complains on stderr", "1": "rank 1 complains on stderr"}
    warning = page.query_selector('.lt-rank-stderr pre.lt-stderr[data-rank="1"]:has-text("running late")')
    assert warning.is_visible() and "UserWarning: rank 1 is running late" in warning.inner_text()
    stdout = page.query_selector('.lt-rank-stdout:not(.lt-rank-stderr) pre.lt-stdout[data-rank="1"]')
    assert stdout.inner_text().strip() == "rank 1 says hello"
    # stderr is set apart as the launcher's is: a red rule stdout does not have
    colours = page.evaluate("""() => [".lt-rank-stderr pre", ".lt-rank-stdout:not(.lt-rank-stderr) pre"].map(
        s => getComputedStyle(document.querySelector(s)).borderLeftColor)""")
    assert colours[0] == "rgb(198, 40, 40)" and colours[1] != colours[0]


def test_step_mode_shows_the_followed_ranks_stderr_on_its_step(site, js_page):
    page, errors = js_page
    page.goto(f"{site}lectures/ranks_output/#step=0")
    page.wait_for_function("window.CHALKTRACE_VIEWER && window.CHALKTRACE_DATA.ranks")
    segments = page.evaluate("window.CHALKTRACE_DATA.ranks.segments")
    timelines = [[s["stack"][-1]["line"] for s in t.steps] for t in rank_timelines(traced("ranks_output"))]
    for rank, line, text in (
        (0, 19, "rank 0 complains on stderr"),
        (1, 19, "rank 1 complains on stderr"),
        (1, 21, "UserWarning: rank 1 is running late"),
    ):
        step = segments[rank][1] + timelines[rank].index(line)
        page.evaluate(f"window.CHALKTRACE_VIEWER.go({step})")
        page.wait_for_function(f"document.documentElement.getAttribute('data-rank') === '{rank}'")
        assert page.get_attribute(CURRENT, "data-line") == str(line)
        shown = page.query_selector(".lt-viewer .lt-v-err")
        assert shown.is_visible() and text in shown.inner_text()
        assert "says hello" not in shown.inner_text()  # stdout stays in its own box
    step = segments[0][1] + timelines[0].index(18)  # the print: stdout only
    page.evaluate(f"window.CHALKTRACE_VIEWER.go({step})")
    page.wait_for_function(f"window.CHALKTRACE_VIEWER.cur === {step}")
    assert not page.query_selector(".lt-viewer .lt-v-err").is_visible()
    assert not errors, errors


def test_the_memory_chart_draws_a_line_per_rank_and_its_points_open_that_ranks_step(site, js_page):
    page, _errors = js_page
    page.goto(f"{site}lectures/ranks_output/")
    series = page.query_selector_all(".lt-memory .lt-memory-series")
    assert [s.get_attribute("data-ranks") for s in series] == ["0", "1"]
    legend = page.inner_text(".lt-memory-legend")
    assert "rank 0: peak 1.0 KiB" in legend and "rank 1: peak 2.0 KiB" in legend
    strokes = page.evaluate("""() => [...document.querySelectorAll('.lt-memory-series .lt-memory-line')].map(
        l => getComputedStyle(l).stroke)""")
    assert strokes[0] != strokes[1]
    # rank 1's highest point: its 2 KiB, a step in rank 1's own timeline
    point = page.query_selector('.lt-memory-series[data-ranks="1"] a.lt-memory-point:has(title:has-text("2.0 KiB"))')
    point.click()
    page.wait_for_function("document.documentElement.getAttribute('data-rank') === '1'")
    assert "mine" in page.inner_text(".lt-v-vars")
    assert page.get_attribute(CURRENT, "data-line") in ("22", "23", "24")  # where rank 1 holds its 2 KiB
    # the other page: both ranks hold the same bytes at every step, so one line stands for both
    page.goto(f"{site}lectures/ranks_allreduce/")
    assert [s.get_attribute("data-ranks") for s in page.query_selector_all(".lt-memory .lt-memory-series")] == ["0 1"]
    assert "ranks 0–1 (the same on each)" in page.inner_text(".lt-memory-legend")


@pytest.fixture(scope="module")
def desync_site(tmp_path_factory):
    trace_all("ranks_desync", "ranks_allreduce")  # ranks_desync: rank 0 calls a 4th collective, rank 1 returns
    built = build_site(tmp_path_factory.mktemp("desync-site"), [trace_path("ranks_desync"), trace_path("ranks_allreduce")])
    with serve(built) as url:
        yield url


def test_a_desynchronised_run_shows_each_ranks_last_collective_side_by_side(desync_site, nojs_page):
    page = nojs_page
    page.goto(f"{desync_site}lectures/ranks_desync/")
    card = page.query_selector(".lt-desync")
    assert card is not None and card.is_visible()
    assert "rank 0 of 2 waits in all_reduce #4; rank 1 never called it" in card.inner_text()
    ranks = card.query_selector_all(".lt-desync-rank")
    assert [r.get_attribute("data-rank") for r in ranks] == ["0", "1"]
    boxes = [r.bounding_box() for r in ranks]
    assert boxes[0]["y"] == boxes[1]["y"] and boxes[0]["x"] + boxes[0]["width"] <= boxes[1]["x"]  # side by side
    waiting, other = (r.inner_text() for r in ranks)
    assert "waits in" in waiting and "all_reduce #4" in waiting and "ranks_desync.py:23" in waiting
    assert "dist.all_reduce(x)" in waiting  # the line it stood on, with its code
    assert "last collective" in other and "barrier #3" in other and "returned" in other


def test_collective_cards_show_bus_bandwidth_and_the_timeline_splits_wait_from_transfer(desync_site, js_page):
    page, errors = js_page
    page.goto(f"{desync_site}lectures/ranks_allreduce/")
    card = page.query_selector('.lt-collective[data-op="all_reduce"]')
    assert "busbw" in card.inner_text() and "no link peak (gloo over loopback)" in card.inner_text()
    assert len(card.query_selector_all("td.lt-wait")) == 2
    page.goto(f"{desync_site}lectures/ranks_allreduce/#step=7")
    page.wait_for_function("document.documentElement.getAttribute('data-rank') === '0'")
    assert len(page.query_selector_all(".lt-rank-timeline rect.lt-tl-transfer")) == 2  # one per rank
    waited = [c["wait"] for c in page.evaluate("window.CHALKTRACE_DATA.ranks.collectives")]
    assert len(waited) == 1 and sorted(waited[0]) == ["0", "1"] and min(waited[0].values()) == 0.0
    # the rank that waited has an outlined wait bar before its transfer
    assert len(page.query_selector_all(".lt-rank-timeline rect.lt-tl-wait")) == sum(1 for w in waited[0].values() if w > 0)
    assert errors == []
