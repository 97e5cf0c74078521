"""Presenting in a real browser (issue 18): present mode, the speaker view kept in sync over a
BroadcastChannel, speaker notes, heatmaps, phone and tablet widths, touch, printing.

The fixture lecture is tests/lectures/classroom.py, built into the real site and served over HTTP.
"""

from __future__ import annotations

import re

import pytest

from conftest import build_site, serve
from traced import trace_all, trace_path

CURRENT = ".lt-viewer .lt-sline.lt-current"
NOTE_1 = "what does a weight matrix look like"
NOTE_2 = "attention maps are"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    names = ("classroom", "nested_calls")
    trace_all(*names)
    built = build_site(tmp_path_factory.mktemp("site"), [trace_path(name) for name in names])
    with serve(built) as url:
        yield url


@pytest.fixture
def context(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    errors: list[str] = []
    context.on("page", lambda p: p.on("pageerror", lambda exc: errors.append(str(exc))))
    yield context
    context.close()
    assert not errors, errors


def open_lecture(page, site: str, hash_: str = "", name: str = "classroom") -> None:
    page.goto(f"{site}lectures/{name}/{hash_}")
    page.wait_for_function("window.LECTRACE_READY !== undefined")


def cur(page) -> int:
    return page.evaluate("LECTRACE_VIEWER.cur")


def line_metrics(page) -> dict:
    """Rendered sizes (CSS px on screen) of the current code line and the first value card's name."""
    return page.evaluate("""() => {
        const line = document.querySelector('.lt-viewer .lt-sline.lt-current .lt-scode');
        const name = document.querySelector('.lt-v-vars .lt-v-card .lt-name');
        return {line: line.getBoundingClientRect().height, card: name.getBoundingClientRect().height,
                cardWidth: name.getBoundingClientRect().width};
    }""")


def test_present_mode_is_larger_hides_chrome_and_takes_clicker_keys(context, site):
    page = context.new_page()
    open_lecture(page, site, "#step=3")  # counts = ... : w and counts shown
    step_mode = line_metrics(page)
    assert page.is_visible(".lt-v-bar")
    page.keyboard.press("p")
    page.wait_for_function("location.hash.includes('present=1')")
    assert "lt-present" in page.get_attribute(".lt-viewer", "class")
    present = line_metrics(page)
    assert present["line"] >= 1.4 * step_mode["line"], (present, step_mode)
    assert present["card"] >= 1.4 * step_mode["card"] and present["cardWidth"] >= 1.4 * step_mode["cardWidth"]
    assert not page.is_visible(".lt-v-bar") and not page.is_visible(".md-header")
    start = cur(page)
    page.keyboard.press("PageDown")
    assert cur(page) > start
    after_pagedown = cur(page)
    page.keyboard.press("Space")
    assert cur(page) > after_pagedown
    page.keyboard.press("Shift+Space")
    assert cur(page) == after_pagedown
    page.keyboard.press("PageUp")
    assert cur(page) == start
    page.keyboard.press("b")
    assert page.is_visible(".lt-v-blank")
    page.keyboard.press("b")
    assert not page.is_visible(".lt-v-blank")
    page.keyboard.press("Escape")  # leaves present mode, stays in step mode
    assert "lt-present" not in page.get_attribute(".lt-viewer", "class") and page.is_visible(".lt-v-bar")
    page.wait_for_function("!location.hash.includes('present=1')")


def test_present_mode_keeps_the_current_line_in_the_middle_third(context, site):
    page = context.new_page()
    open_lecture(page, site, "#step=0&present=1")
    assert "lt-present" in page.get_attribute(".lt-viewer", "class")
    for _ in range(25):
        page.keyboard.press("PageDown")
        box = page.query_selector(".lt-v-lines").bounding_box()
        line = page.query_selector(CURRENT).bounding_box()
        middle = line["y"] + line["height"] / 2 - box["y"]
        assert box["height"] / 3 - 1 <= middle <= 2 * box["height"] / 3 + 1, (middle, box["height"])


def test_speaker_view_and_presenter_stay_on_one_step_both_ways(context, site):
    presenter = context.new_page()
    open_lecture(presenter, site, "#step=0&present=1")
    with context.expect_page() as opened:
        presenter.keyboard.press("s")
    speaker = opened.value
    speaker.wait_for_function("window.LECTRACE_READY !== undefined && LECTRACE_VIEWER.speaker")
    assert "speaker=1" in speaker.url
    other = context.new_page()  # another tab presenting the same lecture follows too
    open_lecture(other, site, "#step=0&present=1")
    reader = context.new_page()  # a tab in plain step mode does not
    open_lecture(reader, site, "#step=0")

    for _ in range(4):
        presenter.keyboard.press("PageDown")
    target = cur(presenter)
    speaker.wait_for_function(f"LECTRACE_VIEWER.cur === {target}")
    other.wait_for_function(f"LECTRACE_VIEWER.cur === {target}")
    assert cur(reader) == 0

    speaker.keyboard.press("ArrowRight")  # driven from the speaker view
    speaker.keyboard.press("ArrowRight")
    target = cur(speaker)
    presenter.wait_for_function(f"LECTRACE_VIEWER.cur === {target}")
    other.wait_for_function(f"LECTRACE_VIEWER.cur === {target}")
    assert cur(reader) == 0

    panel = speaker.inner_text(".lt-v-speaker")
    assert re.search(r"step \d+ / \d+", panel)
    assert re.search(r"\d:\d\d:\d\d", speaker.inner_text(".lt-sp-elapsed"))
    assert re.fullmatch(r"\d\d:\d\d", speaker.inner_text(".lt-sp-clock"))
    line = presenter.get_attribute(CURRENT, "data-line")
    assert f"classroom.py:{line}" in speaker.inner_text(".lt-sp-now")
    assert speaker.inner_text(".lt-sp-next").strip()


def test_speaker_notes_show_only_in_the_speaker_view(context, site):
    speaker = context.new_page()
    open_lecture(speaker, site, "#step=0&speaker=1")
    assert "No notes" in speaker.inner_text(".lt-sp-notes")
    speaker.keyboard.press("ArrowRight")  # w = ...: the first note's step has passed
    assert NOTE_1 in speaker.inner_text(".lt-sp-notes")
    assert speaker.query_selector(".lt-sp-notes strong").inner_text() == "question"  # markdown
    speaker.keyboard.press("ArrowRight")
    assert NOTE_1 in speaker.inner_text(".lt-sp-notes")  # shown until the next note
    speaker.keyboard.press("End")
    notes = speaker.inner_text(".lt-sp-notes")
    assert NOTE_2 in notes and NOTE_1 not in notes

    page = context.new_page()
    page.goto(f"{site}lectures/classroom/")
    html = page.content()
    assert NOTE_1 not in html and NOTE_2 not in html and "speaker_note(" not in page.inner_text(".lt-read")
    open_lecture(page, site, "#step=0&present=1")
    for _ in range(12):
        page.keyboard.press("PageDown")
        text = page.inner_text(".lt-viewer")
        assert NOTE_1 not in text and NOTE_2 not in text and "speaker_note(" not in text
    page.keyboard.press("r")  # raw code: the note's line still takes no room
    assert "speaker_note(" not in page.inner_text(".lt-viewer")
