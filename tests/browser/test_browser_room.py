"""The lecture room in a real browser: a real ``chalktrace present`` (child process), one presenter
(1280x720) and two audience phones (390x844), each its own browser context. Checks that the
presenter's steps reach both phones, that a phone's own key press moves only that phone and pauses
its following, that rejoining catches up, that a late joiner lands on the live step, that a phone
whose socket the server dropped reconnects and catches up, that the speaker view gets its notes from
the room, and that no audience page ever receives a note (every WebSocket frame is recorded)."""

from __future__ import annotations

import json
import time

import pytest

from helpers.present import presenting

pytest.importorskip("aiohttp")

READY = "window.CHALKTRACE_READY !== undefined"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def serious_violations(page) -> list[str]:
    """axe-core's serious and critical WCAG 2.1 AA violations on the page as it stands."""
    axe = pytest.importorskip("axe_playwright_python.sync_playwright")
    results = axe.Axe().run(page, options={"runOnly": {"type": "tag", "values": AXE_TAGS}, "resultTypes": ["violations"]})
    return [f"{v['id']}: {len(v['nodes'])}" for v in results.response["violations"] if v["impact"] in ("serious", "critical")]


def cur(page) -> int:
    return page.evaluate("CHALKTRACE_VIEWER ? CHALKTRACE_VIEWER.cur : -1")


def follow(page, what: str):
    return page.evaluate(f"CHALKTRACE_VIEWER.controllers.follow.{what}")


def wait_step(page, step: int) -> None:
    page.wait_for_function(f"CHALKTRACE_VIEWER && CHALKTRACE_VIEWER.cur === {step}", timeout=10_000)


@pytest.fixture(scope="module")
def room(tmp_path_factory):
    with presenting(tmp_path_factory.mktemp("course")) as room:
        yield room


def recorded(context, frames: list[str]):
    """Record every WebSocket frame any page of ``context`` receives."""

    def on_page(page):
        page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(str(payload))))

    context.on("page", on_page)


def test_one_presenter_and_two_phones(browser, room):
    frames: dict[str, list[str]] = {"presenter": [], "one": [], "two": []}
    errors: list[str] = []
    contexts = {
        "presenter": browser.new_context(viewport={"width": 1280, "height": 720}, bypass_csp=True),
        "one": browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, bypass_csp=True),
        "two": browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, bypass_csp=True),
    }
    for name, context in contexts.items():
        recorded(context, frames[name])
        context.on("page", lambda page: page.on("pageerror", lambda exc: errors.append(str(exc))))
    try:
        presenter = contexts["presenter"].new_page()
        presenter.goto(room.presenter_url)  # sets the presenter's cookie, lands on the lecture
        assert presenter.url == room.audience_url
        presenter.wait_for_function(READY)
        presenter.evaluate("location.hash = '#step=0'")
        wait_step(presenter, 0)
        presenter.wait_for_function("CHALKTRACE_VIEWER.controllers.follow.role === 'presenter'")
        assert presenter.inner_text(".lt-v-room") == "presenting to the room"

        one = contexts["one"].new_page()
        one.goto(room.audience_url)
        one.wait_for_function(READY)
        wait_step(one, 0)  # joined the room on its live step: step mode opened there
        assert follow(one, "role") == "audience" and one.inner_text(".lt-v-room") == "following the lecturer"

        for _ in range(3):
            presenter.keyboard.press("ArrowRight")
        target = cur(presenter)
        assert target > 0
        wait_step(one, target)
        assert one.get_attribute(".lt-sline.lt-current", "aria-current") == "step"
        one.wait_for_function("document.querySelector('.lt-v-live[aria-live=polite]').textContent.startsWith('Step ')")

        two = contexts["two"].new_page()  # a late joiner lands on the live step
        two.goto(room.audience_url)
        two.wait_for_function(READY)
        wait_step(two, target)

        # a phone's own key press moves that phone only, and pauses its following
        one.keyboard.press("ArrowLeft")
        own = cur(one)
        assert own < target
        one.wait_for_function("document.querySelector('.lt-v-room').textContent === 'following paused'")
        one.wait_for_function("[...document.querySelectorAll('.lt-v-live')].some(e => e.textContent.includes('Press t'))")
        assert not one.is_disabled(".lt-v-b-rejoin")
        time.sleep(0.5)
        assert cur(presenter) == target and cur(two) == target

        presenter.keyboard.press("ArrowRight")
        presenter.keyboard.press("ArrowRight")
        target = cur(presenter)
        wait_step(two, target)
        time.sleep(0.3)
        assert cur(one) == own  # paused: stays where the student went

        one.keyboard.press("t")  # rejoin: back on the live step, following again
        wait_step(one, target)
        assert one.inner_text(".lt-v-room") == "following the lecturer" and one.is_disabled(".lt-v-b-rejoin")
        one.keyboard.press("ArrowRight")  # the button rejoins too
        one.wait_for_function("!document.querySelector('.lt-v-b-rejoin').disabled")
        one.click(".lt-v-b-rejoin")
        wait_step(one, target)

        # the presenter's room panel, from the keyboard: the link, the QR code, how many follow
        presenter.keyboard.press("i")
        presenter.wait_for_function("document.querySelector('.lt-room-qr').naturalWidth > 0")
        assert room.audience_url in presenter.inner_text(".lt-room-link")
        assert presenter.inner_text(".lt-room-count") == "2 devices follow"
        assert presenter.evaluate("document.activeElement.textContent") == "Close"
        assert serious_violations(presenter) == []
        presenter.keyboard.press("Escape")
        assert not presenter.is_visible(".lt-v-roompanel") and presenter.is_visible(".lt-viewer")
        one.keyboard.press("ArrowLeft")  # the phone, paused and following, passes axe too
        one.wait_for_function("document.querySelector('.lt-v-room').textContent === 'following paused'")
        assert serious_violations(one) == []
        one.keyboard.press("t")
        wait_step(one, target)
        assert serious_violations(one) == []

        # the server drops phone two's socket (an oversized message); the presenter moves meanwhile;
        # phone two reconnects (after a backoff of 2 s or more here) and catches up from the hello
        sockets_before = sum('"t": "hello"' in f for f in frames["two"])
        two.evaluate("""() => { const f = CHALKTRACE_VIEWER.controllers.follow;
                                f.tries = 3; f.ws.send('x'.repeat(4096)); }""")
        two.wait_for_function("CHALKTRACE_VIEWER.controllers.follow.ws === null")
        assert two.inner_text(".lt-v-room") == "reconnecting\u2026"
        presenter.keyboard.press("End")
        target = cur(presenter)
        wait_step(one, target)
        assert cur(two) != target
        wait_step(two, target)
        hellos = [json.loads(f) for f in frames["two"] if '"t": "hello"' in f]
        assert len(hellos) == sockets_before + 1 and hellos[-1]["step"] == target  # caught up from the hello
        assert two.inner_text(".lt-v-room") == "following the lecturer"

        # the presenter's speaker view gets the notes from the room
        with contexts["presenter"].expect_page() as opened:
            presenter.keyboard.press("s")
        speaker = opened.value
        speaker.wait_for_function(READY)
        speaker.wait_for_function(
            "document.querySelector('.lt-sp-notes') && "
            "document.querySelector('.lt-sp-notes').textContent.includes('SECRET-NOTE-2')"
        )
        assert speaker.inner_text(".lt-sp-notes strong") == "the loop"  # markdown
        speaker.keyboard.press("Home")  # the speaker view moves the room too
        wait_step(one, 0)
        wait_step(two, 0)
        speaker.keyboard.press("ArrowRight")
        speaker.wait_for_function("document.querySelector('.lt-sp-notes').textContent.includes('SECRET-NOTE-1')")

        # on the wire: presenters got the notes, the audience never
        assert any("SECRET-NOTE-1" in f for f in frames["presenter"])
        for name in ("one", "two"):
            assert frames[name] and not any("SECRET-NOTE" in f or '"notes"' in f for f in frames[name]), name
            assert "SECRET-NOTE" not in contexts[name].pages[0].content()
    finally:
        for context in contexts.values():
            context.close()
    assert errors == []


def test_a_phone_over_the_cap_gets_the_room_full_page(browser, tmp_path_factory):
    with presenting(tmp_path_factory.mktemp("full"), "--max-audience", "1") as room:
        context = browser.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True)
        try:
            first = context.new_page()
            first.goto(room.audience_url)
            first.wait_for_function("CHALKTRACE_VIEWER && CHALKTRACE_VIEWER.controllers.follow.role === 'audience'")
            # no presenter yet: the read page says so beside "Step through"
            assert first.inner_text("#lt-stepper .lt-v-room") == "waiting for the lecturer"
            assert first.get_attribute("#lt-stepper .lt-v-room", "role") == "status"
            second = context.new_page()
            response = second.goto(room.audience_url)
            assert response.status == 503
            assert second.inner_text("h1") == "The room is full"
            assert "--max-audience" in second.inner_text("main")
        finally:
            context.close()
