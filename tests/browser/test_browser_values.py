"""The value cards in Chromium: whole-tensor heatmaps drawn pixel-true, exact numbers on hover and
in raw mode, def-line values kept in step mode, a table() on a phone, long grids folded (by keyboard,
in step mode, on paper). Real site, real browser."""

from __future__ import annotations

import pytest

from helpers.site import served_fixture_site, viewer_context

LECTURE = "exact_values"
FOLDED = "folded_rows"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with served_fixture_site(tmp_path_factory.mktemp("site"), LECTURE, FOLDED) as url:
        yield url


def open_page(context, site: str, hash_: str = "", lecture: str = LECTURE):
    page = context.new_page()
    page.goto(f"{site}lectures/{lecture}/{hash_}")
    page.wait_for_function("window.CHALKTRACE_READY !== undefined")
    if not hash_:  # read mode: scroll past every annotation so that its lazy body is put in place
        page.evaluate("""async () => { for (const a of document.querySelectorAll('.lt-annotation')) {
            a.scrollIntoView(); await new Promise(done => setTimeout(done, 40)); } }""")
        page.wait_for_function("document.querySelectorAll('.lt-lazy').length === 0")
    return page


# The heatmap image's cells, read back from its pixels: the mean luminance of each cell (0 dark, 255 light).
CELLS = """async ([name, rows, cols]) => {
    const img = document.querySelector(`.lt-card[data-name="${name}"] .lt-hm-whole img`);
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
    const ctx = canvas.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const data = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    const cw = canvas.width / cols, ch = canvas.height / rows, out = [];
    for (let r = 0; r < rows; r++) {
        const row = [];
        for (let c = 0; c < cols; c++) {
            const x = Math.floor((c + 0.5) * cw), y = Math.floor((r + 0.5) * ch), k = 4 * (y * canvas.width + x);
            row.push(Math.round(0.299 * data[k] + 0.587 * data[k + 1] + 0.114 * data[k + 2]));
        }
        out.push(row);
    }
    return out;
}"""


def test_a_64_by_64_causal_mask_is_a_triangle_and_a_512_identity_a_diagonal(browser, site):
    with viewer_context(browser, viewport={"width": 1280, "height": 720}) as context:
        page = open_page(context, site)
        page.query_selector('.lt-card[data-name="eye"]').scroll_into_view_if_needed()
        mask = page.evaluate(CELLS, ["mask", 64, 64])
        dark, light = (
            max(v for r, row in enumerate(mask) for c, v in enumerate(row) if c <= r),
            min(v for r, row in enumerate(mask) for c, v in enumerate(row) if c > r),
        )
        assert dark + 100 < light  # every 1 (on and below the diagonal) darker than every 0 above it
        eye = page.evaluate(CELLS, ["eye", 128, 128])  # 512 x 512 pooled into 128 x 128 block means
        on = max(eye[k][k] for k in range(128))
        off = min(v for r, row in enumerate(eye) for c, v in enumerate(row) if r != c)
        assert on + 20 < off  # the diagonal, and only the diagonal, stands out
        legend = page.inner_text('.lt-card[data-name="eye"] .lt-hm-whole')
        assert "mean of 4×4 blocks" in legend and "max |x| 1.0" in legend


def test_rounded_cells_show_their_exact_value_on_hover_and_raw_mode_shows_the_exact_grid(browser, site):
    with viewer_context(browser, viewport={"width": 1280, "height": 720}) as context:
        page = open_page(context, site)
        card = '.lt-card[data-name="rounded"]'
        assert page.text_content(f"{card} pre.lt-rounded u >> nth=0") == "0.3333"  # marked as rounded
        grid = page.locator(f"{card} pre.lt-rounded")
        grid.scroll_into_view_if_needed()
        page.evaluate(FRAMES)
        box = grid.bounding_box()
        page.mouse.move(box["x"] + 20, box["y"] + 10)  # the first cell
        assert page.inner_text(".lt-hm-tip") == "[0, 0] = 0.33333334 (shown as 0.3333)"
        summary = page.locator(f"{card} details.lt-exact > summary")
        summary.focus()
        page.keyboard.press("Enter")  # the exact grid is one key away
        assert page.inner_text(f"{card} details.lt-exact pre").split() == ["0.33333334", "2.0", "1000.1", "7.0"]
        line = page.evaluate("window.CHALKTRACE_DATA.steps.line").index(23)
        page.goto(f"{site}lectures/{LECTURE}/#step={line}")
        page.wait_for_function("document.querySelector('.lt-viewer') !== null")
        page.keyboard.press("r")
        viewer_card = f".lt-viewer {card}"
        page.wait_for_function("document.querySelector('.lt-viewer.lt-raw')")
        page.click('.lt-viewer .lt-v-card[data-name="rounded"] .lt-v-sum')  # not this line's value: open it
        assert not page.is_visible(f"{viewer_card} pre.lt-rounded")
        assert page.locator(f"{viewer_card} details.lt-exact pre").is_visible()


def test_numbers_cards_and_def_line_values_in_step_mode(browser, site):
    with viewer_context(browser, viewport={"width": 1280, "height": 720}) as context:
        page = open_page(context, site)
        text = page.text_content(".md-content")  # textContent: cards off screen skip rendering (content-visibility)
        for exact in ("4,611,686,018,427,387,904", "-9,223,372,036,854,775,808", "1000.1", "9,007,199,254,740,992", "5e-324"):
            assert exact in text
        data = page.evaluate(
            "(() => { const d = window.CHALKTRACE_DATA; return [d.steps.line, d.steps.fn.map(k => d.functions[k])]; })()"
        )
        body = next(i for i, (line, fn) in enumerate(zip(*data)) if fn == "attention" and line == 12)
        page.goto(f"{site}lectures/{LECTURE}/#step={body}")
        page.wait_for_function("document.querySelector('.lt-viewer') !== null")
        names = page.evaluate("[...document.querySelectorAll('.lt-viewer .lt-card.lt-value')].map(c => c.dataset.name)")
        assert {"q", "k", "v", "scores"} <= set(names)  # the def line's values, still in view


def test_a_table_fits_a_phone(browser, site):
    with viewer_context(browser, viewport={"width": 390, "height": 844}) as context:
        page = open_page(context, site)
        table = page.locator("table.lt-table").first
        table.scroll_into_view_if_needed()
        assert table.is_visible() and page.inner_text("table.lt-table thead").split() == ["dtype", "bits", "eps"]
        assert page.evaluate("document.documentElement.scrollWidth") <= 390


TIP = "(document.querySelector('.lt-hm-tip:not([hidden])') && document.querySelector('.lt-hm-tip').textContent)"
# two frames: a card scrolled into view is laid out and hit-testable (annotations skip rendering off screen)
FRAMES = "new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"


def test_every_cell_of_a_big_rounded_grid_names_its_exact_value_by_keyboard_and_by_mouse(browser, site):
    # 30 x 20 sevenths: a 400-cell preview (rows 0-9, "…", rows 20-29), every cell rounded to 4 digits
    with viewer_context(browser, viewport={"width": 1280, "height": 720}) as context:
        page = open_page(context, site)
        grid = page.locator('.lt-card[data-name="sevenths"] pre.lt-rounded')
        assert grid.get_attribute("data-exact") is not None  # read mode: the exact copy is in exact.js
        assert page.evaluate("window.CHALKTRACE_EXACT === undefined")  # not loaded until needed
        grid.scroll_into_view_if_needed()
        page.evaluate(FRAMES)
        box = grid.bounding_box()
        # the keyboard: the grid takes focus, the arrow keys move a cell cursor, the label is read out
        grid.focus()
        page.wait_for_function(TIP + " && !" + TIP + ".includes('loading')")
        assert page.evaluate(TIP) == "[0, 0] = 0.0"
        for key in ["ArrowRight", "ArrowRight", "ArrowDown"]:
            page.keyboard.press(key)
        assert page.evaluate(TIP) == "[1, 2] = 3.142857 (shown as 3.143)"  # 22 / 7 in float32
        assert page.get_attribute(".lt-hm-tip", "aria-live") == "polite"
        cell = page.locator(".lt-cell-cursor").bounding_box()  # drawn around the cell's text, where it is drawn
        text = grid.evaluate("""pre => { const node = pre.firstChild, at = node.textContent.indexOf('3.143');
            const range = document.createRange(); range.setStart(node, at); range.setEnd(node, at + 5);
            const r = range.getBoundingClientRect(); return {x: r.x, y: r.y, right: r.right, bottom: r.bottom}; }""")
        assert cell["x"] <= text["x"] and text["right"] <= cell["x"] + cell["width"]
        assert cell["y"] <= text["y"] + 2 and text["bottom"] <= cell["y"] + cell["height"] + 2
        assert abs(cell["height"] * 21 - box["height"]) < 3  # 21 rows: 20 and the elision
        page.keyboard.press("End")
        assert page.evaluate(TIP) == "[1, 19] = 5.571429 (shown as 5.571)"
        for _ in range(9):
            page.keyboard.press("ArrowDown")  # onto the elided row (rows 10-19 are not in the preview)
        assert "not shown" in page.evaluate(TIP)
        page.keyboard.press("Escape")
        assert page.evaluate(TIP) is None
        # the mouse, over the last row (the tensor's row 29, counted back from its shape), column 2
        page.mouse.move(box["x"] + 2.5 * cell["width"], box["y"] + 20.5 * cell["height"])
        assert page.evaluate(TIP) == "[29, 2] = 83.14286 (shown as 83.14)"
        # step mode: the same labels, from the card's own exact copy (raw mode shows it whole)
        line = page.evaluate("window.CHALKTRACE_DATA.steps.line").index(25)
        page.goto(f"{site}lectures/{LECTURE}/#step={line}")
        page.wait_for_function("document.querySelector('.lt-viewer .lt-card[data-name=sevenths] pre.lt-rounded') !== null")
        step_grid = page.locator(".lt-viewer .lt-card[data-name=sevenths] pre.lt-rounded")
        step_grid.focus()
        page.keyboard.press("ArrowRight")
        assert page.evaluate(TIP) == "[0, 1] = 0.14285715 (shown as 0.1429)"
        assert page.evaluate("location.hash") == f"#step={line}"  # the arrow moved the cursor, not the step


# Present mode's geometry at 1280x720 (a projector): what is on the screen, where.
PRESENT_GEOMETRY = """() => {
    const rect = e => e.getBoundingClientRect();
    const on_top = e => { const r = rect(e); const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return hit !== null && e.contains(hit); };
    const side = rect(document.querySelector('.lt-v-side'));
    const head = document.querySelector('.lt-v-vars > h3');
    const card = document.querySelector('.lt-v-card[data-name="sevenths"]');
    const pre = card.querySelector('.lt-values > pre.lt-grid');
    const values = pre.parentElement, p = rect(pre), scale = p.width / pre.offsetWidth;
    // where the grid stops showing: its own box, or the card's scroller around it
    let right = p.left + (pre.clientLeft + pre.clientWidth) * scale;
    if (values.scrollWidth > values.clientWidth) right = Math.min(right, rect(values).right);
    const probe = pre.appendChild(document.createElement('span'));
    probe.textContent = '0'.repeat(100);
    const ch = probe.offsetWidth / 100 * scale;
    probe.remove();
    const cell = parseInt(pre.style.getPropertyValue('--lt-col'), 10) * ch;
    const cells = (right - p.left - ch / 2) / cell;  // the first cell starts half a character in
    const goto = document.querySelector('.lt-v-goto');
    return {head: rect(head), side, headOnTop: on_top(head), cardTop: rect(card).top, cells, more: pre.scrollWidth > pre.clientWidth,
            gotoShown: on_top(goto.querySelector('input'))};
}"""


def test_present_mode_at_1280_keeps_its_heading_whole_the_goto_box_off_the_prose_and_grids_in_whole_cells(browser, site):
    with viewer_context(browser, viewport={"width": 1280, "height": 720}) as context:
        page = open_page(context, site, "#step=7&present=1")  # sevenths: a 30x20 grid, far wider than the card
        page.wait_for_function("document.querySelector('.lt-viewer.lt-present')")
        page.wait_for_timeout(400)  # the panel's smooth follow to the new card
        shown = page.evaluate(PRESENT_GEOMETRY)
        head, side = shown["head"], shown["side"]
        # the VARIABLES heading whole inside the panel, on top, and the followed card below it
        assert head["top"] >= side["top"] - 0.5 and head["bottom"] <= side["bottom"] and shown["headOnTop"], shown
        assert shown["cardTop"] >= head["bottom"] - 0.5, shown
        # the grid shows whole cells only, the rest a scroll away (no rounded number cut through)
        assert shown["more"] and shown["cells"] >= 1 and abs(shown["cells"] - round(shown["cells"])) < 0.05, shown
        # the go-to-line box is not over the code until asked for (g), then on top of it
        assert not shown["gotoShown"], shown
        page.keyboard.press("g")
        assert page.evaluate(PRESENT_GEOMETRY)["gotoShown"]
        page.keyboard.type("18")
        page.keyboard.press("Enter")  # went to line 18: the box goes again
        assert page.evaluate("CHALKTRACE_VIEWER.cur") == 1
        assert (
            page.evaluate("""() => { const r = document.querySelector('.lt-v-goto input').getBoundingClientRect();
            return document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2).closest('.lt-v-goto'); }""")
            is None
        )


def test_a_long_grid_folds_after_its_preview_rows_opens_by_keyboard_and_stays_folded_on_paper(browser, site):
    with viewer_context(browser, viewport={"width": 1280, "height": 720}) as context:
        page = open_page(context, site, lecture=FOLDED)
        fold = page.locator('.lt-card[data-name="x"] details.lt-fold')
        summary = fold.locator("summary")
        assert summary.text_content() == "120 more rows" and summary.is_visible()
        assert not fold.locator("pre").is_visible()
        row = (page.locator('.lt-card[data-name="x"] pre.lt-grid').first.bounding_box()["height"] - 1) / 8  # 1 px: its rule
        # the keyboard opens it (a <summary> is a button to screen readers: "120 more rows, collapsed")
        summary.focus()
        page.keyboard.press("Enter")
        assert fold.get_attribute("open") is not None and fold.locator("pre").is_visible()
        assert abs(fold.locator("pre").bounding_box()["height"] - 1 - 120 * row) < 2  # rows as tall as those shown
        # a cell of the rest names its place in the whole tensor and its exact value
        rest = page.locator('.lt-card[data-name="wide"] details.lt-fold')
        rest.locator("summary").focus()
        page.keyboard.press(" ")
        rest.locator("pre").focus()
        page.wait_for_function(TIP + " && !" + TIP + ".includes('loading')")
        assert page.evaluate(TIP) == "[32, 0] = 9.142858 (shown as 9.143)"
        page.keyboard.press("ArrowRight")
        assert page.evaluate(TIP) == "[32, 1] = 9.285714 (shown as 9.286)"
        page.keyboard.press("Escape")
        # the heatmap beside a folded grid is kept near its height, at its own width
        image = page.locator('.lt-card[data-name="x"] img.lt-hm-folded').bounding_box()
        assert image["height"] <= 256 and image["width"] == 8
        # printing opens every other disclosure and leaves the rest of a folded grid out, even opened:
        # its summary is the handout's note
        page.emulate_media(media="print")
        page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
        assert page.evaluate("[...document.querySelectorAll('details.lt-exact')].every(d => d.open)")
        assert summary.is_visible() and not fold.locator("pre").is_visible()
        assert not page.locator('.lt-card[data-name="small"] details').count()
        page.evaluate("window.dispatchEvent(new Event('afterprint'))")
        page.emulate_media(media="screen")
        # step mode folds alike
        line = page.evaluate("window.CHALKTRACE_DATA.steps.line").index(12)
        page.goto(f"{site}lectures/{FOLDED}/#step={line}")
        page.wait_for_function("document.querySelector('.lt-viewer .lt-card[data-name=x] details.lt-fold') !== null")
        step_fold = page.locator(".lt-viewer .lt-card[data-name=x] details.lt-fold")
        assert step_fold.locator("summary").text_content() == "120 more rows"
        assert not step_fold.locator("pre").is_visible()
