"""Step mode and read mode with the keyboard alone and through the accessibility tree, in Chromium.

tests/lectures/a11y_demo.py has 7 steps: 0 a heading, 1 ``x`` (a (2, 3) float32 tensor) appears, 2 ``y = 1``,
3 ``y = y + 1``, 4 ``x = x * 2``, 5 a line longer than a phone is wide, 6 a heading. nested_calls is the
longer lecture of test_browser.py. What is checked: the Tab order (skip links first, line numbers and
chart points out of it), focus into step mode and back to its opener, no trap, single-key shortcuts
off on a link or button and by the setting, the progress slider, the live region over 5 steps, the
accessibility tree of step mode, and reflow at 320 CSS px.
"""

from __future__ import annotations

import re

import pytest

from helpers.site import goto_lecture, served_fixture_site, viewer_context

LIVE = ".lt-viewer .lt-v-live[aria-live=polite]"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with served_fixture_site(tmp_path_factory.mktemp("site"), "a11y_demo", "nested_calls", "site_basics") as url:
        yield url


def open_lecture(page, site: str, hash_: str = "", name: str = "a11y_demo") -> None:
    goto_lecture(page, site, name, hash_)


def cur(page) -> int:
    return page.evaluate("CHALKTRACE_VIEWER.cur")


def focused(page) -> str:
    """The focused element, as 'tag.class "text"'."""
    return page.evaluate("""() => { const e = document.activeElement;
        return e.tagName.toLowerCase() + "." + (e.getAttribute("class") || "") + ' "' + (e.textContent || "").trim().slice(0, 40) + '"'; }""")


def tab_stops(page, count: int) -> list[str]:
    stops = []
    for _ in range(count):
        page.keyboard.press("Tab")
        stops.append(focused(page))
    return stops


def test_skip_links_come_before_the_page_and_line_numbers_are_out_of_the_tab_order(page, site):
    open_lecture(page, site, name="site_basics")
    assert page.evaluate("document.querySelectorAll('.lt-read .lt-ln').length") > 5
    # none of them takes focus (they are anchors, not links)
    assert page.evaluate(
        "[...document.querySelectorAll('.lt-ln')].every(a => { a.focus(); return document.activeElement !== a; })"
    )
    points = page.evaluate("[...document.querySelectorAll('.lt-memory-point')].map(a => a.tabIndex)")
    assert len(points) > 1 and points.count(0) == 1  # the chart is one Tab stop
    stops = tab_stops(page, 25)
    lecture = next(k for k, s in enumerate(stops) if "Skip to the lecture" in s)
    step_mode = next(k for k, s in enumerate(stops) if "lt-skip-step" in s)
    enter = next(k for k, s in enumerate(stops) if "lt-step-enter" in s)
    assert lecture < step_mode < enter
    assert not any("lt-ln" in s for s in stops)
    # the skip link to step mode lands on the button; the one to the lecture on the lecture
    page.keyboard.press("Shift+Tab")
    while "lt-skip-step" not in focused(page):
        page.keyboard.press("Shift+Tab")
    page.keyboard.press("Enter")
    assert "lt-step-enter" in focused(page)


def test_the_memory_charts_points_move_with_arrow_keys(page, site):
    open_lecture(page, site, name="site_basics")
    page.focus(".lt-memory-point:not([tabindex='-1'])")
    first = page.evaluate("document.activeElement.textContent")  # its name: the point's <title>
    page.keyboard.press("ArrowRight")
    second = page.evaluate("document.activeElement.textContent")
    assert first != second and re.match(r"step \d+: ", second)
    assert page.evaluate("[...document.querySelectorAll('.lt-memory-point')].filter(a => a.tabIndex === 0).length") == 1
    assert page.evaluate("document.activeElement.tabIndex") == 0


def test_focus_moves_into_step_mode_and_back_to_its_opener(page, site):
    open_lecture(page, site)
    page.focus(".lt-step-enter")
    page.keyboard.press("Enter")
    page.wait_for_function("CHALKTRACE_VIEWER.active")
    dialog = page.get_by_role("dialog", name=re.compile("^Step through "))
    assert dialog.get_attribute("aria-modal") == "true"
    assert page.evaluate("document.activeElement === document.querySelector('.lt-viewer')")
    assert page.evaluate("document.querySelector('.md-container').inert")  # the page behind is inert
    # the help is a dialog in the dialog: focus goes in, and back where it was
    page.keyboard.press("?")
    assert page.is_visible(".lt-v-help")
    assert page.evaluate("document.querySelector('.lt-v-help').contains(document.activeElement)")
    assert page.evaluate("document.querySelector('.lt-v-main').inert")
    page.keyboard.press("Escape")
    assert not page.is_visible(".lt-v-help")
    assert page.evaluate("document.activeElement === document.querySelector('.lt-viewer')")
    assert not page.evaluate("document.querySelector('.lt-v-main').inert")
    page.keyboard.press("Escape")
    page.wait_for_function("!CHALKTRACE_VIEWER.active")
    page.wait_for_function("document.activeElement.classList.contains('lt-step-enter')")
    assert not page.evaluate("document.querySelector('.md-container').inert")


def test_tab_goes_through_step_mode_and_nothing_traps_it(page, site):
    open_lecture(page, site, "#step=1")
    page.wait_for_function("CHALKTRACE_VIEWER.active")
    page.focus(".lt-viewer")
    stops = tab_stops(page, 30)
    inside = [s for s in stops if s != 'body. ""']
    # the bar's buttons, the slider, the line control, the code and the values panel are all reached
    for part in ("lt-v-b-next", "lt-v-progress", "input.", "lt-v-lines", "lt-v-side"):
        assert any(part in s for s in inside), (part, stops)
    # Tab moves on from every stop (no element keeps it), and it comes round again
    assert all(a != b for a, b in zip(stops, stops[1:]))
    assert len(set(stops)) < len(stops)
    # Esc leaves from wherever focus is, even the slider
    page.focus(".lt-v-progress")
    page.keyboard.press("Escape")
    page.wait_for_function("!CHALKTRACE_VIEWER.active")


def test_single_key_shortcuts_do_nothing_on_a_button_or_link_and_can_be_turned_off(page, site):
    open_lecture(page, site, "#step=1")
    page.wait_for_function("CHALKTRACE_VIEWER.active")
    page.focus(".lt-v-b-next")
    page.keyboard.press("l")
    assert cur(page) == 1  # "l" on a button: not a shortcut
    page.keyboard.press("Enter")  # the button itself
    assert cur(page) == 2
    page.focus(".lt-v-frames button")
    page.keyboard.press("h")
    assert cur(page) == 2
    page.focus(".lt-viewer")
    page.keyboard.press("l")
    assert cur(page) == 3  # in the viewer, on nothing that takes letters: a shortcut
    # the setting (in the help) turns letters off; arrow keys still step
    page.keyboard.press("?")
    box = page.get_by_label("single-key shortcuts (letters, Space)")
    assert box.is_checked()
    box.uncheck()
    page.keyboard.press("Escape")
    page.focus(".lt-viewer")
    page.keyboard.press("h")
    assert cur(page) == 3
    page.keyboard.press("ArrowLeft")
    assert cur(page) == 2
    page.reload()
    page.wait_for_function("CHALKTRACE_VIEWER && CHALKTRACE_VIEWER.active")
    page.focus(".lt-viewer")
    before = cur(page)
    page.keyboard.press("h")
    assert cur(page) == before  # the setting is kept across visits


def test_the_progress_bar_is_a_slider(page, site):
    open_lecture(page, site, "#step=0", name="nested_calls")
    page.wait_for_function("CHALKTRACE_VIEWER.active")
    slider = page.get_by_role("slider", name="position in the lecture")
    count = page.evaluate("CHALKTRACE_VIEWER.count")
    assert slider.get_attribute("aria-valuenow") == "0" and slider.get_attribute("aria-valuemax") == str(count - 1)
    slider.focus()
    page.keyboard.press("ArrowRight")
    assert cur(page) == 1 and slider.get_attribute("aria-valuenow") == "1"
    assert slider.get_attribute("aria-valuetext") == f"step 1 of {count - 1}"
    page.keyboard.press("End")
    assert cur(page) == page.evaluate("CHALKTRACE_VIEWER.lastVisible()")
    page.keyboard.press("PageDown")
    assert cur(page) < page.evaluate("CHALKTRACE_VIEWER.lastVisible()")
    page.keyboard.press("Home")
    assert cur(page) == page.evaluate("CHALKTRACE_VIEWER.firstVisible()")
    assert "lt-v-progress" in focused(page)  # the slider keeps focus while it moves


def test_the_live_region_reads_five_steps(page, site):
    open_lecture(page, site, "#step=0")
    page.wait_for_function("CHALKTRACE_VIEWER.active")
    page.focus(".lt-viewer")
    lines = page.evaluate("CHALKTRACE_DATA.files[0].lines.length")
    said = []
    for step in range(1, 6):
        page.keyboard.press("ArrowRight")
        page.wait_for_function(f"document.querySelector('{LIVE}').textContent.startsWith('Step {step} of 6,')")
        said.append(page.evaluate(f"document.querySelector('{LIVE}').textContent"))
    line = [int(re.match(r"Step \d of 6, line (\d+): ", s).group(1)) for s in said]
    assert all(0 < n <= lines for n in line) and line == sorted(line)
    assert "x = torch.arange(6, dtype=torch.float32).reshape(2, 3)" in said[0]
    assert said[0].endswith("x: tensor (2, 3) float32, new.")
    assert said[1].endswith("y: 1, new.")
    assert said[2].endswith("y: 2, changed.")
    assert said[3].endswith("x: tensor (2, 3) float32, changed.")
    assert said[4].endswith(", new.") and "a_long_name_that" in said[4]
    # the quiet setting stops them
    page.evaluate("CHALKTRACE_VIEWER.controllers.announce.setQuiet(true)")
    page.keyboard.press("ArrowLeft")
    page.wait_for_timeout(400)
    assert page.evaluate(f"document.querySelector('{LIVE}').textContent") == said[4]


def test_a_held_key_is_announced_once_where_it_stops(page, site):
    open_lecture(page, site, "#step=0", name="nested_calls")
    page.wait_for_function("CHALKTRACE_VIEWER.active")
    page.focus(".lt-viewer")
    page.evaluate(f"""() => {{ window.ANNOUNCED = []; new MutationObserver(() => ANNOUNCED.push(
        document.querySelector('{LIVE}').textContent)).observe(document.querySelector('{LIVE}'), {{childList: true}}); }}""")
    for _ in range(8):
        page.keyboard.press("ArrowRight")
    page.wait_for_function("ANNOUNCED.length > 0")
    page.wait_for_timeout(300)
    assert page.evaluate("ANNOUNCED.length") == 1 and page.evaluate("ANNOUNCED[0]").startswith(f"Step {cur(page)} of ")


def test_step_mode_in_the_accessibility_tree(page, site):
    open_lecture(page, site, "#step=4")
    page.wait_for_function("CHALKTRACE_VIEWER.active && CHALKTRACE_VIEWER.cur === 4")
    snapshot = page.locator(".lt-viewer").aria_snapshot()
    assert '- slider "position in the lecture"' in snapshot
    assert '- region "code"' in snapshot
    assert '- complementary "values, call stack and output"' in snapshot
    assert '- group "x (changed on this step)"' in snapshot  # the changed value is named so
    assert '- group "y"' in snapshot  # and the unchanged one is not
    assert '- group "values of x"' in snapshot
    current = page.locator(".lt-viewer .lt-sline[aria-current=step]")
    assert current.count() == 1 and "x = x * 2" in current.inner_text()
    assert current.get_attribute("data-line") == str(page.evaluate("CHALKTRACE_DATA.steps.line[4]"))


def test_reflow_at_320_css_pixels(browser, site):
    with viewer_context(browser, viewport={"width": 320, "height": 256}) as context:
        page = context.new_page()
        for mode in ("", "&present=1"):
            open_lecture(page, site, f"#step=5{mode}")
            page.wait_for_function("CHALKTRACE_VIEWER.active && CHALKTRACE_VIEWER.cur === 5")
            page.wait_for_timeout(100)
            # nothing scrolls sideways: not the page, not the code panel
            assert page.evaluate("document.documentElement.scrollWidth") <= 320
            assert page.evaluate(
                "(() => { const b = document.querySelector('.lt-v-lines'); return b.scrollWidth <= b.clientWidth; })()"
            )
            # the current line (the long one, wrapped) and its value are on screen
            line = page.locator(".lt-viewer .lt-sline[aria-current=step]").bounding_box()
            assert line["x"] >= 0 and line["x"] + line["width"] <= 320, mode
            assert line["y"] + line["height"] > 20 and line["y"] + 10 <= 256, mode  # on screen (a wrapped line may be taller)
            # its value: in the values panel, reached by scrolling that panel down only
            card = page.locator(".lt-v-card[data-name^=a_long_name]").bounding_box()
            assert card is not None and card["x"] >= 0 and card["x"] + card["width"] <= 320, mode
            assert page.evaluate(
                "(() => { const b = document.querySelector('.lt-v-side'); return b.scrollWidth <= b.clientWidth; })()"
            )
            side = page.locator(".lt-v-side").bounding_box()
            assert side["y"] < 256 and side["height"] >= 60, mode  # the panel itself is on screen
            bar = page.locator(".lt-v-bar").bounding_box()
            assert mode or bar["height"] <= 96  # a third of the screen at most (it was 180 px)
        page.goto(f"{site}lectures/a11y_demo/")
        page.wait_for_function("window.CHALKTRACE_READY !== undefined")
        assert page.evaluate("document.documentElement.scrollWidth") <= 320
        assert page.evaluate("[...document.querySelectorAll('pre.lt-code')].every(p => p.scrollWidth <= p.clientWidth)")
