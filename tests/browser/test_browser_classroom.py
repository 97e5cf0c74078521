"""Presenting in a real browser: present mode, the speaker view kept in sync over a
BroadcastChannel, speaker notes, heatmaps, phone and tablet widths, touch, printing.

The fixture lecture is tests/lectures/classroom.py, built into the real site and served over HTTP.
"""

from __future__ import annotations

import re

import pytest

from helpers.site import REPO, build_site, goto_lecture, serve, served_fixture_site, viewer_context

CURRENT = ".lt-viewer .lt-sline.lt-current"
NOTE_1 = "what does a weight matrix look like"
NOTE_2 = "attention maps are"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with served_fixture_site(tmp_path_factory.mktemp("site"), "classroom", "nested_calls") as url:
        yield url


@pytest.fixture
def context(browser):
    with viewer_context(browser, viewport={"width": 1280, "height": 720}) as context:
        yield context


def open_lecture(page, site: str, hash_: str = "", name: str = "classroom") -> None:
    goto_lecture(page, site, name, hash_)


def cur(page) -> int:
    return page.evaluate("CHALKTRACE_VIEWER.cur")


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
    for key in ["PageDown"] * 25 + ["PageUp"] * 20:
        page.keyboard.press(key)
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
    speaker.wait_for_function("window.CHALKTRACE_READY !== undefined && CHALKTRACE_VIEWER.mode('speaker')")
    assert "speaker=1" in speaker.url
    other = context.new_page()  # another tab presenting the same lecture follows too
    open_lecture(other, site, "#step=0&present=1")
    reader = context.new_page()  # a tab in plain step mode does not
    open_lecture(reader, site, "#step=0")

    for _ in range(4):
        presenter.keyboard.press("PageDown")
    target = cur(presenter)
    speaker.wait_for_function(f"CHALKTRACE_VIEWER.cur === {target}")
    other.wait_for_function(f"CHALKTRACE_VIEWER.cur === {target}")
    assert cur(reader) == 0

    speaker.keyboard.press("ArrowRight")  # driven from the speaker view
    speaker.keyboard.press("ArrowRight")
    target = cur(speaker)
    presenter.wait_for_function(f"CHALKTRACE_VIEWER.cur === {target}")
    other.wait_for_function(f"CHALKTRACE_VIEWER.cur === {target}")
    assert cur(reader) == 0

    panel = speaker.inner_text(".lt-v-speaker")
    assert re.search(r"step \d+ / \d+", panel)
    assert re.search(r"\d:\d\d:\d\d", speaker.inner_text(".lt-sp-elapsed"))
    assert re.fullmatch(r"\d\d:\d\d", speaker.inner_text(".lt-sp-clock"))
    line = presenter.get_attribute(CURRENT, "data-line")
    assert f"classroom.py:{line}" in speaker.inner_text(".lt-sp-now")
    assert speaker.inner_text(".lt-sp-next").strip()


def test_a_published_site_has_no_notes_and_its_speaker_view_says_where_they_are(context, site):
    speaker = context.new_page()
    open_lecture(speaker, site, "#step=0&speaker=1")
    speaker.keyboard.press("ArrowRight")  # w = ...: the first note's step has passed
    said = speaker.inner_text(".lt-sp-notes")
    assert "chalktrace present" in said and NOTE_1 not in said
    assert speaker.evaluate("'speaker_notes' in CHALKTRACE_DATA") is False

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


def card(name: str) -> str:
    return f".lt-read .lt-card[data-name='{name}']"


def test_heatmaps_are_drawn_without_javascript_with_the_right_scale(browser, site):
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.goto(f"{site}lectures/classroom/")
    page.wait_for_load_state("load")
    loaded = "img => img.complete && img.naturalWidth > 0"
    w = page.query_selector(f"{card('w')} .lt-hm")
    assert "d" in w.get_attribute("class").split() and w.eval_on_selector("img", loaded)  # signed: diverging
    assert [t.inner_text() for t in w.query_selector_all("i")] == ["-1.5", "1.5"]  # legend: min and max
    counts = page.query_selector(f"{card('counts')} .lt-hm")
    assert "s" in counts.get_attribute("class").split() and counts.eval_on_selector("img", loaded)
    assert [t.inner_text() for t in counts.query_selector_all("i")] == ["0", "11"]
    grid = page.query_selector(f"{card('w')} .lt-grid").bounding_box()
    image = page.query_selector(f"{card('w')} .lt-hm img").bounding_box()
    assert image["x"] > grid["x"] + grid["width"] - 1 and abs(image["y"] - grid["y"]) < 20  # beside the grid
    assert len(page.query_selector_all(f"{card('cube')} .lt-hm")) == 2  # one per shown slice of the last two dims
    # a 64x64 map is drawn whole, one cell per element, not from the preview's corners
    scores = page.query_selector(f"{card('scores')} .lt-hm")
    assert "sampled" not in scores.text_content() and scores.get_attribute("data-r") is None
    whole = page.query_selector(f"{card('scores')} .lt-hm-whole")
    assert whole.get_attribute("data-shape") == "64,64" and whole.get_attribute("data-cells") == "64,64"
    bad = page.text_content(f"{card('bad')} .lt-hm")
    assert "NaN" in bad and "Inf" in bad
    context.close()


def test_heatmap_colours_and_hover(context, site):
    page = context.new_page()
    open_lecture(page, site)
    # Read pixels only once the heatmaps have decoded: the viewer is ready (DOMContentLoaded) before images load.
    page.evaluate("() => Promise.all(Array.from(document.querySelectorAll('.lt-read .lt-hm img'), (img) => img.decode()))")
    colours = page.evaluate("""() => {
        const read = (sel, x, y) => {
            const img = document.querySelector(sel);
            const canvas = document.createElement('canvas');
            canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
            const ctx = canvas.getContext('2d');
            ctx.drawImage(img, 0, 0);
            return Array.from(ctx.getImageData(x, y, 1, 1).data).slice(0, 3);
        };
        const last = (sel) => { const img = document.querySelector(sel); return [img.naturalWidth - 2, img.naturalHeight - 2]; };
        const w = ".lt-read .lt-card[data-name='w'] .lt-hm img", c = ".lt-read .lt-card[data-name='counts'] .lt-hm img";
        return {wFirst: read(w, 1, 1), wLast: read(w, ...last(w)), cFirst: read(c, 1, 1), cLast: read(c, ...last(c))};
    }""")
    assert colours["wFirst"][2] > colours["wFirst"][0] + 60  # the most negative value: blue
    assert colours["wLast"][0] > colours["wLast"][2] + 60  # the most positive value: orange
    assert sum(colours["cFirst"]) > sum(colours["cLast"]) + 300  # sequential: light to dark
    img = page.query_selector(f"{card('w')} .lt-hm img")
    img.scroll_into_view_if_needed()
    box = img.bounding_box()
    page.mouse.move(box["x"] + box["width"] * 7 / 8, box["y"] + box["height"] * 5 / 6)  # row 2, column 3
    assert page.inner_text(".lt-hm-tip") == "[2, 3] = 1.5"
    scores = page.query_selector(f"{card('scores')} .lt-hm img")
    scores.scroll_into_view_if_needed()
    box = scores.bounding_box()
    page.mouse.move(box["x"] + box["width"] - 2, box["y"] + box["height"] - 2)  # the last drawn cell is [63, 63]
    # a heatmap of the whole tensor: the element by index (its value is in the colours, not the page)
    assert page.inner_text(".lt-hm-tip") == "[63, 63]"


# --- phones and tablets -------------------------------------------------------------------------------

CLIP_JS = """() => {
    // Scroll boxes are allowed to hold wider content (code, value grids and heatmaps, storage
    // drawings, charts, the phone's row of step-mode buttons); a value's one-line summary ends in "…"
    // by design; anything else whose content is wider than its box, or that reaches past the
    // viewport's right edge, clips.
    const scrollBoxes = "pre.lt-code, .lt-values, figure.lt-stride, .lt-memory-scroll, .lt-math-display, "
        + ".lt-plot-spec pre, .highlight pre, .md-typeset__scrollwrap, .lt-v-lines, .lt-v-buttons, .lt-v-sum, "
        // text for screen readers only: a 1 px box by design (site.css), as are skip links until focused
        + ".lt-visually-hidden, .lt-skip";
    const clipped = [];
    for (const el of document.querySelectorAll(".md-content *, .lt-viewer *")) {
        if (el.matches(scrollBoxes) || el.parentElement.closest(scrollBoxes)) continue;
        const style = getComputedStyle(el);
        if (style.display === "none" || style.display === "inline" || !el.getClientRects().length) continue;
        if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1) clipped.push(el.className + " " + el.scrollWidth + ">" + el.clientWidth);
        else if (el.getBoundingClientRect().right > innerWidth + 1) clipped.push(el.className + " ends at " + el.getBoundingClientRect().right);
    }
    return clipped;
}"""

FILL_ALL_JS = """() => {
    document.querySelectorAll('.lt-lazy').forEach(box => {
        const source = box.querySelector('noscript');
        box.classList.remove('lt-lazy');
        if (source) box.innerHTML = source.textContent;
    });
    document.querySelectorAll('.lt-annotation, .lt-code').forEach(e => { e.style.contentVisibility = 'visible'; });
}"""


@pytest.fixture(scope="module")
def lecture_02_site(tmp_path_factory):
    built = build_site(tmp_path_factory.mktemp("l02"), [REPO / "site" / "traces" / "lecture_02.json"])
    with serve(built) as url:
        yield url


@pytest.mark.parametrize("width", [390, 768])
def test_nothing_clips_on_phones_and_tablets(browser, lecture_02_site, site, width):
    context = browser.new_context(
        viewport={"width": width, "height": 844}, is_mobile=width < 500, has_touch=True, bypass_csp=True
    )
    page = context.new_page()
    page.goto(f"{lecture_02_site}lectures/lecture_02/")
    page.wait_for_load_state("load")
    page.evaluate(FILL_ALL_JS)  # every card in place, every block laid out
    assert page.query_selector_all(".lt-read .lt-kind-tensor").__len__() > 90
    assert page.evaluate(CLIP_JS) == []
    # the field table stacks on a phone: one label/value pair a row
    columns = page.eval_on_selector(".lt-read dl.lt-anatomy", "dl => getComputedStyle(dl).gridTemplateColumns.split(' ').length")
    assert columns == (2 if width < 500 else 4)
    # step mode too: cards in the values panel reflow
    open_lecture(page, site, "#step=8")
    page.eval_on_selector_all(".lt-v-sum", "sums => sums.forEach(s => s.click())")  # every card open in full
    assert page.is_visible(".lt-v-vars .lt-kind-tensor") and page.evaluate(CLIP_JS) == []
    context.close()


def swipe(page, selector: str, dx: float) -> None:
    """A one-finger horizontal swipe over ``selector`` (Chromium's touch events, through CDP)."""
    box = page.query_selector(selector).bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for k in range(1, 6):
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x + dx * k / 5, "y": y + 2}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def test_step_mode_works_by_touch(browser, site):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, bypass_csp=True)
    page = context.new_page()
    open_lecture(page, site)
    page.tap("text=Step through")
    assert page.is_visible(".lt-viewer") and cur(page) == 0
    page.tap(".lt-v-b-next")
    first = cur(page)
    page.tap(".lt-v-b-next")
    second = cur(page)
    assert 0 < first < second
    page.tap(".lt-v-b-prev")
    assert cur(page) == first
    size = page.query_selector(".lt-v-b-next").bounding_box()
    assert size["width"] >= 36 and size["height"] >= 32  # a finger's target
    swipe(page, ".lt-v-code", -120)  # right to left: forward
    page.wait_for_function(f"CHALKTRACE_VIEWER.cur === {second}")
    swipe(page, ".lt-v-code", 120)
    page.wait_for_function(f"CHALKTRACE_VIEWER.cur === {first}")
    swipe(page, ".lt-v-code", 20)  # too short: a tap or a scroll, not a step
    page.wait_for_timeout(100)
    assert cur(page) == first
    context.close()


# --- printing -----------------------------------------------------------------------------------------


def test_printing_gives_a_clean_handout(context, lecture_02_site, site):
    page = context.new_page()
    page.goto(f"{lecture_02_site}lectures/lecture_02/")
    page.wait_for_load_state("load")
    assert page.evaluate("document.querySelectorAll('.lt-lazy').length") > 0
    # listeners run in the order they were added: this one sees the page as it is printed
    page.evaluate(
        "addEventListener('beforeprint', () => { window.ltAtPrint = ["
        "document.querySelectorAll('.md-content details:not([open])').length, "
        "document.querySelectorAll('.md-content details[open]').length]; })"
    )
    pdf = page.pdf(format="A4")  # Chromium's own print path: beforeprint, print media, pagination
    assert pdf[:5] == b"%PDF-" and len(pdf) > 100_000
    assert page.evaluate("document.querySelectorAll('.lt-lazy').length") == 0  # every card was put in place
    page.emulate_media(media="print")
    hidden = page.evaluate("""() => ['.md-header', '.md-sidebar--primary', '.md-footer', '.lt-stepper', '.lt-step-link']
        .map(s => document.querySelector(s)).filter(e => e && getComputedStyle(e).display !== 'none').length""")
    assert hidden == 0  # no site or viewer chrome
    code = page.evaluate("getComputedStyle(document.querySelector('.lt-code')).whiteSpace")
    assert code == "pre-wrap"  # long code lines wrap instead of being cut at the page edge
    assert page.evaluate("getComputedStyle(document.querySelector('.lt-code')).contentVisibility") == "visible"
    assert page.query_selector_all(".lt-read .lt-hm img").__len__() > 20

    # a card's folded parts (a module's repr) print expanded, and fold again afterwards
    page = context.new_page()
    page.goto(f"{site}lectures/classroom/")
    page.wait_for_load_state("load")
    assert page.evaluate("document.querySelectorAll('.md-content details.lt-repr:not([open])').length") == 1
    assert page.evaluate("document.querySelectorAll('.md-content details.lt-exact:not([open])').length") == 1
    # A folded grid's rest and the memory table never print (site.css), so whether they are open on
    # paper does not matter: Material opens the ones it saw at load, a lazy body may bring one later.
    printed = ".md-content details:not(.lt-fold):not(.lt-memory-table)"
    folded = page.evaluate(f"document.querySelectorAll('{printed}:not([open])').length")
    assert folded >= 2
    page.evaluate(
        "addEventListener('beforeprint', () => { window.ltAtPrint = ["
        f"document.querySelectorAll('{printed}:not([open])').length, "
        f"document.querySelectorAll('{printed}[open]').length]; }})"
    )
    page.pdf(format="A4")
    assert page.evaluate("window.ltAtPrint") == [0, folded]  # the repr, the rounded grid's exact values and all
    assert page.evaluate("document.querySelectorAll('.md-content details[open]').length") == 0
    page.emulate_media(media="print")
    assert page.query_selector_all(".md-content details.lt-fold")  # the lazy body was put in place
    assert page.evaluate("""() => [...document.querySelectorAll('.md-content details.lt-fold > pre')]
        .every(pre => getComputedStyle(pre).display === 'none')""")  # the summary stands for the rows
    # and reads the same whether Material opened the fold or not: no open or closed marker on paper
    markers = page.evaluate("""() => [false, true].map(open => {
        const fold = document.querySelector('.md-content details.lt-fold');
        fold.open = open;
        return getComputedStyle(fold.querySelector('summary'), '::before').content; })""")
    assert markers == ["none", "none"]


def test_a_held_key_moves_as_far_as_its_repeats_with_one_render_a_frame(context, site):
    page = context.new_page()
    open_lecture(page, site, "#step=0", name="nested_calls")
    expected = page.evaluate(
        "(() => { let k = CHALKTRACE_VIEWER.cur; for (let i = 0; i < 12; i++) k = CHALKTRACE_VIEWER.s.next[k]; return k; })()"
    )
    page.evaluate(
        "() => { window.renders = 0; const v = CHALKTRACE_VIEWER, render = v.render;"
        "v.render = function (step) { window.renders++; return render.call(this, step); }; }"
    )
    page.evaluate("""() => { for (let k = 0; k < 12; k++) window.dispatchEvent(new KeyboardEvent('keydown',
        {key: 'ArrowRight', repeat: k > 0, bubbles: true, cancelable: true})); }""")
    page.evaluate("new Promise(done => requestAnimationFrame(() => setTimeout(done, 0)))")
    assert cur(page) == expected and page.evaluate("window.renders") == 2  # the first press, then one frame's
    page.keyboard.down("ArrowLeft")  # a real held key: playwright marks the later downs as repeats
    for _ in range(5):
        page.keyboard.down("ArrowLeft")
    page.keyboard.up("ArrowLeft")
    page.evaluate("new Promise(done => requestAnimationFrame(() => setTimeout(done, 0)))")
    back = page.evaluate(
        f"(() => {{ let k = {expected}; for (let i = 0; i < 6; i++) k = CHALKTRACE_VIEWER.s.prev[k]; return k; }})()"
    )
    assert cur(page) == back
    page.keyboard.press("Home")  # a plain press after a held key: shown at once
    assert cur(page) == page.evaluate("CHALKTRACE_VIEWER.firstVisible()")


def test_windows_stay_in_sync_under_chalktrace_serve(browser, tmp_path):
    """The same two windows under ``chalktrace serve`` (MkDocs' dev server, with its live-reload script)."""
    import os
    import shutil
    import subprocess
    import sys
    import time

    from helpers.network import fetch, free_port
    from helpers.projects import make_project

    lecture = (
        "from tracer import speaker_note, text\n\ndef main():\n    text('# Served')\n"
        "    speaker_note('Served **note**')\n    a = 1  # @inspect a\n    b = a + 1  # @inspect b\n"
        "    c = b + 1  # @inspect c\n    d = c + 1  # @inspect d\n"
    )
    root = make_project(tmp_path, {"served.py": lecture})
    shutil.copy(REPO / "mkdocs.yml", root / "mkdocs.yml")
    shutil.copytree(REPO / "site" / "docs", root / "site" / "docs")
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "tracer", "serve", "-a", f"127.0.0.1:{port}"],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
    )
    url = f"http://127.0.0.1:{port}/lectures/served/"
    context = browser.new_context(viewport={"width": 1280, "height": 720}, bypass_csp=True)
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and "Served" not in (fetch(url) or ""):
            time.sleep(0.5)
        presenter = context.new_page()
        presenter.goto(url + "#step=0&present=1")
        presenter.wait_for_function("window.CHALKTRACE_READY !== undefined")
        speaker = context.new_page()
        speaker.goto(url + "#step=0&speaker=1")
        speaker.wait_for_function("window.CHALKTRACE_READY !== undefined")
        presenter.keyboard.press("PageDown")
        presenter.keyboard.press("PageDown")
        speaker.wait_for_function(f"CHALKTRACE_VIEWER.cur === {cur(presenter)}")
        notes = speaker.inner_text(".lt-sp-notes")  # serve publishes what a build does: no notes
        assert "chalktrace present" in notes and "Served note" not in notes
        speaker.keyboard.press("ArrowRight")
        presenter.wait_for_function(f"CHALKTRACE_VIEWER.cur === {cur(speaker)}")
    finally:
        context.close()
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
