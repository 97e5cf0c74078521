"""Step mode's values panel and layout in Chromium: it follows the step, folds cards to summaries,
marks new and changed values, fits a phone and a projector.

tests/lectures/many_variables.py sets thirty values in one frame, one a line; attention_view.py is
an attention lecture (a helper, long lines, a multi-line statement). Moves go through real key
presses; "in view" is measured with getBoundingClientRect against the panel and the window.
"""

from __future__ import annotations

import pytest

from helpers.site import served_fixture_site, viewer_context

VIEWPORTS = [(1280, 720), (1920, 1080), (390, 844)]

# Where the current line and the current line's first card are, and whether each is in view: inside
# its scrolling panel's visible box and inside the window.
IN_VIEW = """() => {
  const v = window.CHALKTRACE_VIEWER, values = v.controllers.values;
  const within = (el, box) => {
    const r = el.getBoundingClientRect();
    return r.height > 0 && r.top >= box.top - 1 && r.top < box.bottom - 8 &&
           r.top >= -1 && r.top < window.innerHeight - 8;
  };
  const side = document.querySelector('.lt-v-side').getBoundingClientRect();
  const lines = document.querySelector('.lt-v-lines').getBoundingClientRect();
  const first = values.focus.map(n => values.cardEl(n)).find(Boolean) || null;
  const line = v.controllers.code.currentEl;
  return {step: v.cur, focus: values.focus, card: first ? within(first, side) : null,
          line: line ? within(line, lines) : null, cards: document.querySelectorAll('.lt-v-vars .lt-v-card').length};
}"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with served_fixture_site(tmp_path_factory.mktemp("site"), "many_variables", "attention_view", "step_bar") as url:
        yield url


def open_page(browser, site, name, hash_, width, height, motion="reduce"):
    context = viewer_context(browser, viewport={"width": width, "height": height}, reduced_motion=motion)
    page = context.__enter__().new_page()
    page.goto(f"{site}lectures/{name}/{hash_}")
    page.wait_for_function("window.CHALKTRACE_READY !== undefined")
    return context, page


def walk_every_step(page) -> list[dict]:
    """Press → from the first step to the last, recording what is in view at each step."""
    seen = [page.evaluate(IN_VIEW)]
    last = page.evaluate("CHALKTRACE_VIEWER.lastVisible()")
    while seen[-1]["step"] != last:
        page.keyboard.press("ArrowRight")
        seen.append(page.evaluate(IN_VIEW))
    return seen


@pytest.mark.parametrize("width,height", VIEWPORTS)
@pytest.mark.parametrize("mode", ["", "&present=1"])
def test_the_current_lines_first_card_is_in_view_at_every_step(browser, site, width, height, mode):
    if mode and width < 1000:
        pytest.skip("present mode is for a projector; the phone is covered in step mode")
    context, page = open_page(browser, site, "many_variables", "#step=0" + mode, width, height)
    try:
        seen = walk_every_step(page)
        assert max(s["cards"] for s in seen) == 30
        with_cards = [s for s in seen if s["focus"]]
        assert len(with_cards) >= 30
        assert [s["step"] for s in with_cards if not s["card"]] == []  # the value just computed is in view
        assert [s["step"] for s in seen if not s["line"]] == []  # and so is its line
        # back again, by jumps: End, then Home
        page.keyboard.press("End")
        assert page.evaluate(IN_VIEW)["card"]
        page.keyboard.press("Home")
        page.keyboard.press("ArrowRight")
        assert page.evaluate(IN_VIEW)["card"]
    finally:
        context.__exit__(None, None, None)


def test_a_panel_scrolled_by_hand_follows_again_from_the_next_step(browser, site):
    context, page = open_page(browser, site, "many_variables", "#step=0", 1280, 720)
    try:
        last = page.evaluate("CHALKTRACE_VIEWER.lastVisible()")
        page.keyboard.press("End")
        page.keyboard.press("ArrowLeft")
        page.keyboard.press("ArrowLeft")
        assert page.evaluate(IN_VIEW)["card"]
        page.mouse.move(1000, 300)
        page.mouse.wheel(0, -5000)  # the student scrolls the panel to its top
        page.wait_for_function("document.querySelector('.lt-v-side').scrollTop === 0")
        assert not page.evaluate(IN_VIEW)["card"]
        page.wait_for_timeout(400)
        assert page.evaluate("document.querySelector('.lt-v-side').scrollTop") == 0  # left where the hand put it
        page.keyboard.press("ArrowRight")
        state = page.evaluate(IN_VIEW)
        assert state["step"] <= last and state["card"]
    finally:
        context.__exit__(None, None, None)


# A step dispatched and measured in one task: an instant scroll has happened by then, a smooth one not yet.
STEP_AND_MEASURE = """() => {
  const side = document.querySelector('.lt-v-side'), before = side.scrollTop;
  document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight', bubbles: true}));
  return [before, side.scrollTop];
}"""


@pytest.mark.parametrize("motion", ["reduce", "no-preference"])
def test_scrolling_is_instant_under_reduced_motion_and_smooth_otherwise(browser, site, motion):
    context, page = open_page(browser, site, "many_variables", "#step=0", 1280, 720, motion=motion)
    try:
        page.keyboard.press("End")
        page.keyboard.press("Home")
        page.keyboard.press("ArrowRight")
        page.wait_for_timeout(600)  # past the held-key window: the next step is a single press
        # step on until one needs the panel to scroll down
        for _ in range(40):
            page.wait_for_timeout(350)  # past the held-key window: each step is a single press
            before, after = page.evaluate(STEP_AND_MEASURE)
            page.wait_for_timeout(900)
            settled = page.evaluate("document.querySelector('.lt-v-side').scrollTop")
            if settled > before + 20:
                break
        else:
            pytest.fail("no step scrolled the panel")
        if motion == "reduce":
            assert after == settled  # at once
        else:
            assert after < settled  # still on its way when the step's task ended
        assert page.evaluate(IN_VIEW)["card"]
    finally:
        context.__exit__(None, None, None)


def test_the_frames_values_fit_one_screen_as_summaries_with_the_current_one_open(browser, site):
    context, page = open_page(browser, site, "attention_view", "#step=0", 1280, 720)
    try:
        page.keyboard.press("End")
        while page.evaluate("CHALKTRACE_VIEWER.controllers.values.focus").count("attn_gib") == 0:
            page.keyboard.press("ArrowLeft")
        cards = page.evaluate("""() => [...document.querySelectorAll('.lt-v-vars .lt-v-card')].map(c => ({
            name: c.dataset.name, open: c.classList.contains('lt-open'), summarised: c.classList.contains('lt-summarised'),
            bottom: c.getBoundingClientRect().bottom, top: c.getBoundingClientRect().top}))""")
        assert len(cards) >= 25
        tensors = [c for c in cards if c["summarised"]]
        assert len(tensors) >= 15 and not any(c["open"] for c in tensors)  # folded: one line each
        side = page.evaluate("document.querySelector('.lt-v-side').getBoundingClientRect().bottom")
        assert max(c["bottom"] for c in cards) <= side and min(c["top"] for c in cards) >= 0  # all on one screen
        summary = page.inner_text(".lt-v-card[data-name='scores'] .lt-v-sum")
        assert summary.startswith("scores tensor float32 (8, 8) [")
        # the current line's tensor is open in full
        page.keyboard.press("Home")
        while "scores" not in page.evaluate("CHALKTRACE_VIEWER.controllers.values.focus"):
            page.keyboard.press("ArrowRight")
        card = ".lt-v-card[data-name='scores']"
        assert "lt-open" in page.get_attribute(card, "class") and page.is_visible(f"{card} .lt-anatomy")
        assert not page.is_visible(f"{card} .lt-v-sum")
        page.keyboard.press("ArrowRight")  # the next line's card opens, this one folds
        assert not page.is_visible(f"{card} .lt-anatomy") and page.is_visible(f"{card} .lt-v-sum")
    finally:
        context.__exit__(None, None, None)


def test_new_and_changed_values_are_marked_and_exposed(browser, site):
    context, page = open_page(browser, site, "many_variables", "#step=0", 1280, 720)
    try:
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")  # b = a * 2
        assert page.evaluate("CHALKTRACE_VIEWER.controllers.values.focus") == ["b"]
        assert page.get_attribute(".lt-v-card[data-name='b']", "data-change") == "new"
        assert page.get_attribute(".lt-v-card[data-name='a']", "data-change") is None
        assert page.get_attribute(".lt-v-card[data-name='b']", "aria-label") == "b (new on this step)"
        page.keyboard.press("End")  # text("The end."): nothing new, its frame's latest value still in focus
        assert page.query_selector_all(".lt-v-card[data-change]") == []
        assert page.evaluate("CHALKTRACE_VIEWER.controllers.values.focus") == ["a"]
        page.keyboard.press("ArrowLeft")
        # a = a + 100: changed, and the announcement's API says so
        assert page.get_attribute(".lt-v-card[data-name='a']", "data-change") == "changed"
        assert page.evaluate("[...CHALKTRACE_VIEWER.controllers.values.changesAt(CHALKTRACE_VIEWER.cur)]") == [["a", "changed"]]
        assert "changed" in page.evaluate(
            "getComputedStyle(document.querySelector(\".lt-v-card[data-name='a']\"), '::after').content"
        )
    finally:
        context.__exit__(None, None, None)


def test_phone_layout_controls_at_the_bottom_and_code_wraps_with_a_hanging_indent(browser, site):
    context, page = open_page(browser, site, "attention_view", "#step=0", 390, 844)
    try:
        bar = page.query_selector(".lt-v-bar").bounding_box()
        progress = page.query_selector(".lt-v-progress").bounding_box()
        assert abs(bar["y"] + bar["height"] - 844) <= 1  # at the bottom, under the thumbs
        assert bar["height"] + progress["height"] <= 0.15 * 844
        for button in (".lt-v-b-prev", ".lt-v-b-next", ".lt-v-b-over"):
            box = page.query_selector(button).bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= 390 and box["width"] >= 30
        lines = page.evaluate("""() => { const l = document.querySelector('.lt-v-lines');
            return [l.scrollWidth, l.clientWidth]; }""")
        assert lines[0] <= lines[1]  # nothing sticks out sideways
        # a wrapped line: its later rows start right of where the line's code starts
        rows = page.evaluate("""() => {
            const code = [...document.querySelectorAll('.lt-v-file:not([hidden]) .lt-scode')]
              .find(c => c.textContent.includes('reference_output = torch.nn'));
            const range = document.createRange(); range.selectNodeContents(code);
            const rects = [...range.getClientRects()];
            const text = code.textContent, indent = text.length - text.trimStart().length;
            return {rows: new Set(rects.map(r => Math.round(r.top))).size, first: rects[0].left,
                    rest: Math.min(...rects.filter(r => r.top > rects[0].top + 2).map(r => r.left)),
                    ch: rects[0].width / Math.max(1, code.textContent.length), indent};
        }""")
        assert rows["rows"] >= 2
        assert rows["rest"] > rows["first"] + 3 * 7  # hangs past the statement's own indent (4 spaces)
        # the current line and its value on one screen, at every step
        seen = walk_every_step(page)
        assert [s["step"] for s in seen if s["focus"] and not (s["card"] and s["line"])] == []
    finally:
        context.__exit__(None, None, None)


def test_present_mode_fits_the_projector(browser, site):
    context, page = open_page(browser, site, "attention_view", "#step=0&present=1", 1280, 720)
    try:
        longest = page.evaluate("""() => Math.max(...[...document.querySelectorAll('.lt-v-file:not([hidden]) .lt-scode')]
            .map(c => c.textContent.trimEnd().length))""")
        assert longest >= 100
        cut = page.evaluate("""() => [...document.querySelectorAll('.lt-v-file:not([hidden]) .lt-scode')]
            .filter(c => c.scrollWidth > c.clientWidth + 1 || c.getBoundingClientRect().right >
                          document.querySelector('.lt-v-lines').getBoundingClientRect().right + 1)
            .map(c => c.textContent)""")
        assert cut == []
        seen = walk_every_step(page)
        assert [s["step"] for s in seen if s["focus"] and not s["card"]] == []
    finally:
        context.__exit__(None, None, None)
    context, page = open_page(browser, site, "attention_view", "#step=5&present=1", 700, 800)
    try:  # below 48em: one column, the values under the code
        code = page.query_selector(".lt-v-code").bounding_box()
        side = page.query_selector(".lt-v-side").bounding_box()
        assert side["y"] >= code["y"] + code["height"] - 1 and side["width"] >= 680
    finally:
        context.__exit__(None, None, None)


def test_values_panel_and_full_screen_keys(browser, site):
    context, page = open_page(browser, site, "attention_view", "#step=5", 1280, 720)
    try:
        assert page.is_visible(".lt-v-side")
        page.keyboard.press("v")
        assert not page.is_visible(".lt-v-side")
        assert page.query_selector(".lt-v-code").bounding_box()["width"] >= 1270
        page.wait_for_function("location.hash === '#step=5&values=0'")  # a link keeps it
        page.keyboard.press("v")
        assert page.is_visible(".lt-v-side")
        page.wait_for_function("location.hash === '#step=5'")  # shown is how the panel starts: no flag
        page.keyboard.press("f")
        page.wait_for_function("document.fullscreenElement !== null")
        page.keyboard.press("f")
        page.wait_for_function("document.fullscreenElement === null")
        page.keyboard.press("?")
        help_rows = page.eval_on_selector_all(".lt-v-help tr", "rows => rows.map(r => r.innerText)")
        assert any(row.startswith("v") and "values panel" in row for row in help_rows)
        assert any(row.startswith("f") and "full screen" in row for row in help_rows)
    finally:
        context.__exit__(None, None, None)


def test_a_link_hides_the_values_panel_and_an_older_link_still_does(browser, site):
    # &values=0 is how the panel is hidden; links written before the mode had that name say &novalues=1
    for flags, shown in (("&values=0", False), ("&novalues=1", False), ("&novalues=0", True), ("&values=1", True)):
        context, page = open_page(browser, site, "attention_view", "#step=5" + flags, 1280, 720)
        try:
            page.wait_for_selector(".lt-viewer:not([hidden])")
            assert page.is_visible(".lt-v-side") is shown, flags
            page.keyboard.press("ArrowRight")
            page.wait_for_function("!/^#step=5(&|$)/.test(location.hash)")
            assert page.evaluate("location.hash").endswith("&values=0") is not shown, flags
        finally:
            context.__exit__(None, None, None)


def test_speaker_view_shows_the_whole_next_statement(browser, site):
    context, page = open_page(browser, site, "attention_view", "#step=0&speaker=1", 960, 720)
    try:
        page.keyboard.press("End")
        page.keyboard.press("ArrowLeft")
        while "The attention map" not in page.inner_text(".lt-sp-next"):
            page.keyboard.press("ArrowLeft")
        text = page.inner_text(".lt-sp-next")
        assert "The attention map of a long sequence" in text and "costs memory quadratic in its length." in text
    finally:
        context.__exit__(None, None, None)


def test_whole_tensor_heatmaps_name_the_element_or_block_under_the_pointer(browser, site):
    context, page = open_page(browser, site, "attention_view", "#step=0", 1280, 900)
    try:
        page.keyboard.press("End")
        for name, cell, expected in (("pooled", (5, 0), "[10\u201311, 0\u20131]"), ("big", (10, 3), "[10, 3]")):
            while name not in page.evaluate("CHALKTRACE_VIEWER.controllers.values.focus"):
                page.keyboard.press("ArrowLeft")
            whole = f'.lt-viewer .lt-card[data-name="{name}"] .lt-hm-whole'  # the current line's card, open
            rows, cols = map(int, page.get_attribute(whole, "data-cells").split(","))
            image = page.locator(f"{whole} img")
            image.scroll_into_view_if_needed()
            box = image.bounding_box()
            # hover waits until the image is visible, stable and the one the pointer reaches (a single
            # mouse move at a point measured while the panel was still laying out could miss it)
            image.hover(position={"x": (cell[1] + 0.5) * box["width"] / cols, "y": (cell[0] + 0.5) * box["height"] / rows})
            page.wait_for_selector(".lt-hm-tip:not([hidden])")
            assert page.inner_text(".lt-hm-tip") == expected
            page.mouse.move(0, 0)
    finally:
        context.__exit__(None, None, None)


@pytest.mark.parametrize("width,height", VIEWPORTS)
def test_the_step_bar_keeps_one_height_while_stepping(browser, site, width, height):
    """A long section name, the "calling" badge and a growing step counter never wrap the bar (the
    panels under it would jump); on a phone it is at most 15% of the screen with one row of buttons."""
    context, page = open_page(browser, site, "step_bar", "#step=0", width, height)
    try:
        heights: dict[int, int] = {}
        calling = False
        for step in range(page.evaluate("CHALKTRACE_VIEWER.count")):
            page.evaluate(f"location.hash = '#step={step}'")
            page.wait_for_function(f"CHALKTRACE_VIEWER.cur === {step}")
            bar = page.query_selector(".lt-v-bar").bounding_box()
            heights.setdefault(round(bar["height"]), step)
            calling = calling or page.is_visible(".lt-v-call")
        assert calling and page.evaluate("CHALKTRACE_VIEWER.count") >= 100  # the bar's contents did change
        assert len(heights) == 1, heights
        tops = page.evaluate(
            "[...document.querySelectorAll('.lt-v-btn')].filter(b => b.getClientRects().length)"
            ".map(b => Math.round(b.getBoundingClientRect().top))"
        )
        assert len(set(tops)) == 1  # one row of buttons (it scrolls sideways when the window is narrow)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        if width < 600:
            progress = page.query_selector(".lt-v-progress").bounding_box()
            assert bar["height"] + progress["height"] <= 0.15 * height
    finally:
        context.__exit__(None, None, None)
