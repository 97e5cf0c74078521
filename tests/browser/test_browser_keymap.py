"""Step mode's keymap in a real browser: the help overlay, the button titles and the keys agree.

One table (COMMANDS in assets/viewer-core.js) makes all three, and the bar's buttons; these tests read the help as a user does and
press what it lists, check each button's title against the help, add a plugin's key binding through
the public addKeyBinding, and follow the step event. Fixture lecture: tests/lectures/classroom.py
(speaker notes) and nested_calls.py (calls to step over and out of), built into the real site.
"""

from __future__ import annotations

import re

import pytest

from helpers.site import served_fixture_site, viewer_context

KEY_OF = {"→": "ArrowRight", "←": "ArrowLeft", "↓": "ArrowDown", "↑": "ArrowUp", "Esc": "Escape", "Space": " "}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with served_fixture_site(tmp_path_factory.mktemp("site"), "nested_calls", "classroom") as url:
        yield url


@pytest.fixture
def page(browser):
    with viewer_context(browser, viewport={"width": 1280, "height": 720}) as context:
        yield context.new_page()


def open_step(page, site: str, step: int, name: str = "nested_calls", flags: str = "") -> None:
    page.goto(f"{site}lectures/{name}/#step={step}{flags}")
    page.wait_for_function(f"window.CHALKTRACE_READY !== undefined && CHALKTRACE_VIEWER.cur === {step}")


def cur(page) -> int:
    return page.evaluate("CHALKTRACE_VIEWER.cur")


def help_rows(page) -> list[dict]:
    """The help overlay as shown: each row's keys (split as the user reads them), words and command."""
    page.keyboard.press("?")
    assert page.is_visible(".lt-v-help")
    rows = page.evaluate("""() => Array.from(document.querySelectorAll('.lt-v-help tr'), (tr) => ({
        keys: tr.querySelector('kbd').textContent, help: tr.querySelector('td').textContent,
        command: tr.getAttribute('data-command')}))""")
    page.keyboard.press("Escape")
    assert not page.is_visible(".lt-v-help")
    return rows


def keys_of(label: str) -> list[str]:
    return [KEY_OF.get(k, k) for k in label.split(" / ")]


def test_every_step_key_in_the_help_goes_where_the_trace_says(page, site):
    open_step(page, site, 14)
    rows = {row["help"]: row for row in help_rows(page)}
    steps = page.evaluate("CHALKTRACE_VIEWER.s")
    wanted = {
        "step forward": "next",
        "step back": "prev",
        "step over (skip the call)": "over",
        "step back over": "back_over",
        "step out of this function": "out",
    }
    for words, array in wanted.items():
        for key in keys_of(rows[words]["keys"]):
            start = 14 if array != "out" else page.evaluate("CHALKTRACE_VIEWER.s.out.findIndex((t) => t >= 0)")
            page.evaluate(f"CHALKTRACE_VIEWER.go({start})")
            target = steps[array][start]
            assert target >= 0, (words, start)
            page.keyboard.press(key)
            assert cur(page) == target, (words, key, start)
    page.keyboard.press(keys_of(rows["last step"]["keys"])[0])
    assert cur(page) == page.evaluate("CHALKTRACE_VIEWER.lastVisible()")
    page.keyboard.press(keys_of(rows["first step"]["keys"])[0])
    assert cur(page) == page.evaluate("CHALKTRACE_VIEWER.firstVisible()")


def test_mode_keys_in_the_help_turn_their_modes_on_and_esc_goes_back_to_reading(page, site):
    open_step(page, site, 3, name="classroom")
    rows = {row["command"]: row for row in help_rows(page) if row["command"]}
    for command, flag in (("raw", "raw=1"), ("reveal", "reveal=1"), ("present", "present=1")):
        page.keyboard.press(keys_of(rows[command]["keys"])[0])
        page.wait_for_function(f"location.hash.includes('{flag}')")
        assert page.get_attribute(f".lt-v-b-{command}", "aria-pressed") == "true"
    assert "lt-present" in page.get_attribute(".lt-viewer", "class")
    blank = [row for row in help_rows(page) if row["command"] == "blank"][0]
    page.keyboard.press(keys_of(blank["keys"])[0])
    assert page.is_visible(".lt-v-blank")
    page.keyboard.press("Escape")  # the help: "present mode: show a blanked screen, else leave present mode"
    assert not page.is_visible(".lt-v-blank") and "lt-present" in page.get_attribute(".lt-viewer", "class")
    page.keyboard.press("Escape")
    page.wait_for_function("!location.hash.includes('present=1')")
    assert page.get_attribute(".lt-v-b-present", "aria-pressed") == "false"
    page.keyboard.press(keys_of(rows["close"]["keys"])[0])
    page.wait_for_function("!location.hash")
    assert not page.is_visible(".lt-viewer")
    # Back: the URL turns raw and reveal on again, and their buttons say so; the speaker button opens
    # a window (it turns nothing on here), so it is no switch
    page.go_back()
    page.wait_for_function("location.hash.includes('raw=1&reveal=1')")
    page.wait_for_selector(".lt-viewer:not([hidden])")
    assert page.get_attribute(".lt-v-b-raw", "aria-pressed") == "true"
    assert page.get_attribute(".lt-v-b-reveal", "aria-pressed") == "true"
    assert page.get_attribute(".lt-v-b-speaker", "aria-pressed") is None


def test_button_titles_name_the_keys_the_help_lists(page, site):
    open_step(page, site, 3, name="classroom")
    by_command = {}
    for row in help_rows(page):
        if row["command"]:
            by_command.setdefault(row["command"], set()).update(row["keys"].split(" / "))
    titles = page.evaluate("""() => Array.from(document.querySelectorAll('.lt-v-buttons button'), (b) => ({
        command: b.className.match(/lt-v-b-(\\w+)/)[1], title: b.title, label: b.getAttribute('aria-label')}))""")
    assert {t["command"] for t in titles} >= {
        "first",
        "prev",
        "next",
        "over",
        "back_over",
        "out",
        "last",
        "raw",
        "reveal",
        "present",
        "speaker",
        "help",
        "close",
    }
    # the bar's order (the table's rows with an icon), a mode's button only where it has its mode
    assert [t["command"] for t in titles if t["command"] != "quiz"] == [
        "first",
        "back_over",
        "prev",
        "next",
        "over",
        "out",
        "last",
        "raw",
        "reveal",
        "present",
        "speaker",
        "fullscreen",
        "play",
        "help",
        "close",
    ]  # no room buttons (rejoin, room): this page was not served by chalktrace present
    for button in titles:
        assert button["title"] == button["label"]
        keys = re.search(r"\(([^()]*)\)$", button["title"]).group(1).split(" or ")
        assert set(keys) <= by_command[button["command"]], button


def test_a_plugin_key_binding_runs_shows_in_the_help_and_can_take_a_key(page, site):
    open_step(page, site, 10)
    page.evaluate("""() => {
        window.marked = [];
        window.unbindX = CHALKTRACE_VIEWER.addKeyBinding({keys: ["x"], help: "mark this step"},
                                                         () => window.marked.push(CHALKTRACE_VIEWER.cur));
        window.unbindHome = CHALKTRACE_VIEWER.addKeyBinding({keys: ["Home"], help: "go to step 5"},
                                                            () => CHALKTRACE_VIEWER.go(5));
    }""")
    page.keyboard.press("x")
    assert page.evaluate("window.marked") == [10]
    page.keyboard.press("Home")
    assert cur(page) == 5
    rows = help_rows(page)
    assert {"keys": "x", "help": "mark this step", "command": None} in rows
    assert {"keys": "Home", "help": "go to step 5", "command": None} in rows
    assert not [row for row in rows if row["command"] == "first"]  # the plugin took its only key
    assert page.get_attribute(".lt-v-b-first", "title") == "first step"
    page.evaluate("window.unbindHome(); window.unbindX()")
    assert page.get_attribute(".lt-v-b-first", "title") == "first step (Home)"
    page.keyboard.press("x")
    page.keyboard.press("Home")
    assert page.evaluate("window.marked") == [10]
    assert cur(page) == page.evaluate("CHALKTRACE_VIEWER.firstVisible()")


def test_the_step_event_says_each_move_once_with_its_step(page, site):
    open_step(page, site, 10)
    page.evaluate("""() => {
        window.moves = [];
        document.addEventListener('chalktrace:step', (e) => window.moves.push([e.detail.previous, e.detail.step]));
    }""")
    page.keyboard.press("ArrowRight")
    first = cur(page)
    page.keyboard.press("ArrowDown")
    second = cur(page)
    page.evaluate(f"CHALKTRACE_VIEWER.go({second})")  # no move, no event
    page.click(".lt-v-b-last")
    third = cur(page)
    page.evaluate("location.hash = '#step=4'")
    page.wait_for_function("CHALKTRACE_VIEWER.cur === 4")
    assert page.evaluate("window.moves") == [[10, first], [first, second], [second, third], [third, 4]]
    assert len({10, first, second, third, 4}) == 5


def test_the_speaker_clock_runs_only_while_the_speaker_view_shows(page, site):
    open_step(page, site, 3, name="classroom", flags="&speaker=1")
    assert page.evaluate("CHALKTRACE_VIEWER.controllers.speaker.timer !== null")
    page.keyboard.press("Escape")
    page.wait_for_function("!location.hash")
    assert page.evaluate("CHALKTRACE_VIEWER.controllers.speaker.timer === null")
    page.click(".lt-step-enter")
    assert page.evaluate("CHALKTRACE_VIEWER.controllers.speaker.timer !== null")
