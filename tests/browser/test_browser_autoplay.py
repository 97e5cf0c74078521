"""Autoplay in a real browser (fixture tests/lectures/autoplay.py): o, Space and the bar's button start
and stop it; it steps at the help's pace, holds a step of text long enough to read it, stops on a
marked step (a section's first step) and on any move of the reader's own; under
prefers-reduced-motion a step stays up at least three seconds."""

from __future__ import annotations

import time

import pytest

from helpers.site import goto_lecture, served_fixture_site, viewer_context


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with served_fixture_site(tmp_path_factory.mktemp("site"), "autoplay") as url:
        yield url


def open_at_pace(context, site: str, pace_ms: int = 500):
    page = context.new_page()
    goto_lecture(page, site, "autoplay", "#step=0")
    page.evaluate(f"localStorage.setItem('chalktrace-autoplay-ms', '{pace_ms}')")
    page.reload()
    page.wait_for_function("window.CHALKTRACE_READY !== undefined")
    return page


def cur(page) -> int:
    return page.evaluate("CHALKTRACE_VIEWER.cur")


def playing(page) -> bool:
    return page.evaluate("CHALKTRACE_VIEWER.controllers.autoplay.playing")


def test_autoplay_steps_holds_text_and_stops_on_the_next_section(browser, site):
    with viewer_context(browser, viewport={"width": 1280, "height": 720}) as context:
        page = open_at_pace(context, site)
        assert page.get_attribute(".lt-v-b-play", "aria-pressed") in (None, "false")
        page.keyboard.press("o")
        assert page.get_attribute(".lt-v-b-play", "aria-pressed") == "true"
        page.wait_for_function("CHALKTRACE_VIEWER.cur === 4", timeout=5000)  # the paragraph's step
        held_from = time.monotonic()
        page.wait_for_function("CHALKTRACE_VIEWER.cur === 5", timeout=15000)
        assert time.monotonic() - held_from > 3.0  # about twenty words: held for reading, not the 0.5 s pace
        page.wait_for_function("!CHALKTRACE_VIEWER.controllers.autoplay.playing", timeout=5000)
        assert cur(page) == page.evaluate("CHALKTRACE_DATA.sections[0][0]")  # stopped on "Part two"
        page.wait_for_function("[...document.querySelectorAll('.lt-v-live')].some(e => e.textContent.includes('marked step'))")
        assert page.get_attribute(".lt-v-b-play", "aria-pressed") == "false"

        page.keyboard.press("Space")  # Space goes on, outside present mode
        page.wait_for_function(f"CHALKTRACE_VIEWER.cur > {cur(page)}", timeout=3000)
        page.keyboard.press("ArrowLeft")  # a move of the reader's own stops it
        stopped_at = cur(page)
        assert not playing(page)
        time.sleep(1.0)
        assert cur(page) == stopped_at

        page.click(".lt-v-b-play")  # the button starts and stops it
        assert playing(page)
        page.click(".lt-v-b-play")
        assert not playing(page)
        page.wait_for_function("[...document.querySelectorAll('.lt-v-live')].some(e => e.textContent === 'Autoplay stopped.')")


def test_space_still_steps_in_present_mode_and_o_plays_there(browser, site):
    with viewer_context(browser, viewport={"width": 1280, "height": 720}) as context:
        page = open_at_pace(context, site)
        page.keyboard.press("p")
        page.keyboard.press("Space")
        assert cur(page) == 1 and not playing(page)
        page.keyboard.press("o")
        page.wait_for_function("CHALKTRACE_VIEWER.cur === 2", timeout=3000)
        page.keyboard.press("o")
        assert not playing(page)


def test_reduced_motion_slows_autoplay_to_three_seconds_a_step(browser, site):
    with viewer_context(browser, viewport={"width": 1280, "height": 720}, reduced_motion="reduce") as context:
        page = open_at_pace(context, site)
        page.keyboard.press("o")
        time.sleep(1.5)
        assert cur(page) == 0 and playing(page)  # the 0.5 s pace is not taken
        page.wait_for_function("CHALKTRACE_VIEWER.cur === 1", timeout=4000)
        page.keyboard.press("o")
