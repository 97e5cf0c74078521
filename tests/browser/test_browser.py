"""Step mode in a real browser: the real site build of fixture traces, served over HTTP, in Chromium.

Step numbers below refer to tests/lectures/nested_calls.py's trace (see test_viewer_data.py for
how they follow from the lecture): main's first line is 19, line 21 calls helper (line 12...),
which calls inner (line 7...).
"""

from __future__ import annotations

import io
import json
import re

import pytest
from PIL import Image, ImageStat

from tracer.contract.trace_reading import load_trace

from helpers.polling import settles
from helpers.site import REPO, build_site, goto_lecture, serve, served_fixture_site, viewer_context

CURRENT = ".lt-viewer .lt-sline.lt-current"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with served_fixture_site(
        tmp_path_factory.mktemp("site"), "nested_calls", "site_basics", "site_error", "authoring_site", "numbered_lists"
    ) as url:
        yield url


def open_lecture(page, site: str, hash_: str = "", name: str = "nested_calls") -> None:
    goto_lecture(page, site, name, hash_)


def current_line(page) -> int:
    return int(page.get_attribute(CURRENT, "data-line"))


def variables(page) -> dict[str, str]:
    cards = page.query_selector_all(".lt-v-vars .lt-v-card")
    return {card.get_attribute("data-name"): card.inner_text() for card in cards if card.is_visible()}


def step_in_url(page) -> int | None:
    """The step in the address bar, once the viewer has written its (throttled) URL update."""
    page.wait_for_function("!window.CHALKTRACE_VIEWER || !window.CHALKTRACE_VIEWER.controllers.location.timer")
    match = re.match(r"#step=(\d+)", page.evaluate("location.hash"))
    return int(match.group(1)) if match else None


def test_step_through_button_and_keys(page, site):
    open_lecture(page, site)
    assert not page.is_visible(".lt-viewer")
    page.click("text=Step through")
    assert page.is_visible(".lt-viewer")
    assert current_line(page) == 19 and step_in_url(page) == 0
    page.keyboard.press("ArrowRight")
    assert current_line(page) == 20
    assert list(variables(page)) == ["a"] and "2" in variables(page)["a"]
    page.keyboard.press("l")
    assert current_line(page) == 21 and step_in_url(page) == 2
    page.keyboard.press("ArrowRight")  # into helper: its own frame, its own variables
    assert current_line(page) == 12 and list(variables(page)) == ["total"]
    assert [f.strip() for f in page.inner_text(".lt-v-frames").splitlines() if f.strip()][-1].startswith("helper")
    page.keyboard.press("h")
    page.keyboard.press("ArrowLeft")
    assert current_line(page) == 20


def test_step_over_a_call(page, site):
    open_lecture(page, site, "#step=2")
    assert current_line(page) == 21
    page.keyboard.press("ArrowDown")  # one press leaves the line: the next line, b's value kept
    assert current_line(page) == 22 and step_in_url(page) == 11  # the call step of line 22
    values = variables(page)
    assert list(values) == ["a", "b"] and "5" in values["b"]
    page.keyboard.press("ArrowUp")  # back over: line 21 once helper returned
    assert current_line(page) == 21 and step_in_url(page) == 10
    page.keyboard.press("ArrowUp")  # and the line before it, past line 21's call step
    assert current_line(page) == 20 and step_in_url(page) == 1
    page.keyboard.press("j")
    page.keyboard.press("j")
    assert current_line(page) == 22 and step_in_url(page) == 11
    page.keyboard.press("j")
    assert current_line(page) == 23  # c = helper(a) + helper(b): both runs and the line's completion skipped


def test_step_out_and_call_stack(page, site):
    open_lecture(page, site, "#step=5")  # inner(): square = n * n
    assert current_line(page) == 7 and list(variables(page)) == ["square"]
    frames = page.query_selector_all(".lt-v-frames button")
    assert [f.inner_text().split()[0] for f in frames] == ["main", "helper", "inner"]
    page.keyboard.press("u")
    assert current_line(page) == 13 and step_in_url(page) == 7 and "4" in variables(page)["total"]
    page.keyboard.press("u")
    assert current_line(page) == 21 and step_in_url(page) == 10
    open_lecture(page, site, "#step=5")
    page.click(".lt-v-frames li:first-child button")  # main's frame: the step where its line is current
    assert step_in_url(page) == 2 and current_line(page) == 21


def test_cards_that_leave_for_a_call_come_back_as_the_same_elements(page, site):
    open_lecture(page, site, "#step=2")  # main, line 21: a = 2 shown
    page.evaluate("document.querySelector(\".lt-v-card[data-name='a']\").ltMark = 1")
    page.keyboard.press("ArrowRight")  # into helper: main's cards leave the panel
    assert list(variables(page)) == ["total"] and page.query_selector(".lt-v-card[data-name='a']") is None
    page.keyboard.press("u")  # back in main with a and b: a's card is the one that left, not a re-parsed copy
    assert current_line(page) == 21 and list(variables(page)) == ["a", "b"] and "2" in variables(page)["a"]
    assert page.evaluate("document.querySelector(\".lt-v-card[data-name='a']\").ltMark") == 1


def test_deep_link_clear_and_stdout(page, site):
    open_lecture(page, site, "#step=36")
    assert page.is_visible(".lt-viewer") and current_line(page) == 26
    assert page.inner_text(".lt-v-out") == "done 5\n"
    assert list(variables(page)) == ["a", "b", "c"]
    page.keyboard.press("ArrowRight")  # del b  # @clear b
    assert list(variables(page)) == ["a", "c"]
    assert not page.is_visible(".lt-v-out")
    page.reload()
    page.wait_for_function("window.CHALKTRACE_READY !== undefined")
    assert step_in_url(page) == 37 and current_line(page) == 27


def test_back_and_forward(page, site):
    open_lecture(page, site, "#step=0")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")  # the same burst: one history entry
    assert step_in_url(page) == 2
    page.wait_for_timeout(900)
    page.keyboard.press("ArrowRight")  # a new burst: a new entry
    assert step_in_url(page) == 3
    page.go_back()
    page.wait_for_function("location.hash === '#step=2'")
    assert current_line(page) == 21
    page.go_back()
    page.wait_for_function("location.hash === '#step=0'")
    assert current_line(page) == 19
    page.go_forward()
    page.wait_for_function("location.hash === '#step=2'")
    assert current_line(page) == 21
    page.keyboard.press("Escape")
    assert not page.is_visible(".lt-viewer") and step_in_url(page) is None
    page.go_back()
    page.wait_for_function("location.hash === '#step=2'")
    assert page.is_visible(".lt-viewer")


def test_read_mode_step_links_open_step_mode(page, site):
    open_lecture(page, site)
    page.click(".lt-step-link >> nth=0")
    page.wait_for_selector(".lt-viewer", state="visible")
    assert step_in_url(page) is not None and current_line(page) > 0


def test_raw_mode_and_reveal(page, site):
    open_lecture(page, site, "#step=1")
    heading = ".lt-sline[data-line='19'] .lt-srender"
    code = ".lt-sline[data-line='19'] .lt-scode"
    assert page.is_visible(heading) and "Setup" in page.inner_text(heading)
    assert not page.is_visible(code)
    page.keyboard.press("r")
    assert page.is_visible(code) and "text(" in page.inner_text(code)
    assert not page.is_visible(heading)
    page.keyboard.press("r")
    assert page.is_visible(heading)
    page.keyboard.press("a")  # presenting: lines below the furthest reached one are not shown yet
    assert page.is_visible(".lt-sline[data-line='20']")
    assert not page.is_visible(".lt-sline[data-line='22']")
    for _ in range(2):  # over line 20, then over line 21's call (one press): line 22 is reached
        page.keyboard.press("ArrowDown")
    assert step_in_url(page) == 11 and page.is_visible(".lt-sline[data-line='22']")
    page.keyboard.press("?")
    assert page.is_visible(".lt-v-help") and "step over" in page.inner_text(".lt-v-help")
    page.keyboard.press("Escape")
    assert not page.is_visible(".lt-v-help") and page.is_visible(".lt-viewer")


def test_buttons_name_their_keys_and_progress_bar_jumps(page, site):
    open_lecture(page, site, "#step=0")
    titles = page.eval_on_selector_all(".lt-v-bar button", "bs => bs.map(b => b.title)")
    for key in ("→", "←", "↓", "↑", "(u)", "Home", "End", "(r)", "(a)", "(?)", "Esc"):
        assert any(key in title for title in titles), key
    assert page.query_selector_all(".lt-v-tick").__len__() == 2  # sections: Setup, Loop
    box = page.query_selector(".lt-v-progress").bounding_box()
    page.mouse.click(box["x"] + box["width"] - 1, box["y"] + box["height"] / 2)
    assert step_in_url(page) == page.evaluate("CHALKTRACE_DATA.count - 1") and current_line(page) == 29
    page.click(".lt-v-b-first")
    assert step_in_url(page) == 0


def test_hidden_line_is_not_shown_or_stepped_on(page, site):
    open_lecture(page, site, "#step=0", name="site_basics")
    assert "secret_setup" not in page.inner_text(".lt-v-lines")
    seen = set()
    for _ in range(30):
        seen.add(current_line(page))
        page.keyboard.press("ArrowRight")
    assert 23 not in seen and {22, 24}.issubset(seen)  # line 23 is `secret_setup = 42  # @hide`


def test_tensor_cards_in_step_mode(page, site):
    open_lecture(page, site, "#step=5", name="site_basics")
    current = page.evaluate("CHALKTRACE_VIEWER.controllers.values.focus")
    folded = [n for n in ("x", "y") if n not in current]
    assert folded, current
    card = f".lt-v-vars .lt-v-card[data-name='{folded[0]}']"
    # not the current line's: a one-line summary (name, kind, dtype, shape, first values), the card folded
    summary = page.inner_text(f"{card} .lt-v-sum")
    assert summary.startswith(f"{folded[0]} tensor float32 " + ("(3, 2) [" if folded[0] == "x" else "(2, 3) ["))
    assert not page.is_visible(f"{card} .lt-kind-tensor")
    page.click(f"{card} .lt-v-sum")  # on demand: the whole card, and it stays open from step to step
    assert page.is_visible(f"{card} .lt-kind-tensor") and "stride" in page.inner_text(f"{card} .lt-kind-tensor")
    page.keyboard.press("ArrowDown")  # the next line of this frame
    assert page.is_visible(f"{card} .lt-kind-tensor")
    page.click(f"{card} .lt-v-fold")
    assert not page.is_visible(f"{card} .lt-kind-tensor") and page.is_visible(f"{card} .lt-v-sum")


def test_error_step_shows_the_error(page, site):
    open_lecture(page, site, "", name="site_error")
    page.keyboard.press("End")
    assert not page.is_visible(".lt-viewer")  # keys do nothing in read mode
    page.click("text=Step through")
    page.keyboard.press("End")
    assert current_line(page) == 9 and "lt-error-line" in page.get_attribute(CURRENT, "class")
    assert page.is_visible(".lt-v-error") and "ValueError" in page.inner_text(".lt-v-error")
    page.keyboard.press("ArrowLeft")
    assert not page.is_visible(".lt-v-error")


def test_narrow_screen_stacks_values_below_code(browser, site):
    context = browser.new_context(viewport={"width": 400, "height": 800}, bypass_csp=True)
    page = context.new_page()
    open_lecture(page, site, "#step=1")
    code = page.query_selector(".lt-v-code").bounding_box()
    side = page.query_selector(".lt-v-side").bounding_box()
    assert side["y"] >= code["y"] + code["height"] - 1 and side["width"] > 300
    context.close()


def test_pages_without_a_stepper_are_untouched(page, site):
    page.goto(site)
    page.wait_for_load_state("load")
    assert page.query_selector(".lt-viewer") is None
    assert page.evaluate("window.CHALKTRACE_READY === undefined")


def test_read_mode_without_javascript(browser, site):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{site}lectures/nested_calls/")
    assert page.is_visible("h2:has-text('Setup')")  # prose
    assert page.is_visible("#L20") and re.search(r"\b20\s+a = 2", page.inner_text(".lt-read"))  # code, numbered
    assert page.is_visible(".lt-value[data-name='a']")  # values
    assert not page.is_visible(".lt-stepper")  # no button that would do nothing
    context.close()


def click_line_number(page, line: int) -> None:
    box = page.query_selector(f".lt-v-file:not([hidden]) .lt-sline[data-line='{line}']").bounding_box()
    page.mouse.click(box["x"] + 12, box["y"] + box["height"] / 2)  # the number is the line's left gutter


def test_click_a_line_number_goes_to_its_next_run(page, site):
    # authoring_site.py: line 32 (total = step * 2) runs at steps 7, 9 and 11 (the named_link helper is not stepped into)
    open_lecture(page, site, "#step=5", name="authoring_site")
    click_line_number(page, 32)
    assert step_in_url(page) == 7 and current_line(page) == 32
    click_line_number(page, 32)
    assert step_in_url(page) == 9
    click_line_number(page, 32)
    click_line_number(page, 32)  # past the last run: around to the first
    assert step_in_url(page) == 7
    page.click(".lt-v-file:not([hidden]) .lt-sline[data-line='32'] .lt-scode")  # a click on the code itself
    assert step_in_url(page) == 7


def test_url_keeps_raw_and_reveal_and_old_links_work(page, site):
    open_lecture(page, site, "#step=3&raw=1&reveal=1", name="authoring_site")
    assert current_line(page) == 28
    assert "lt-raw" in page.get_attribute(".lt-viewer", "class")
    assert page.get_attribute(".lt-v-b-reveal", "aria-pressed") == "true"
    assert not page.is_visible(".lt-sline[data-line='33']")  # not revealed yet
    page.keyboard.press("r")
    page.wait_for_function("location.hash === '#step=3&reveal=1'")
    page.keyboard.press("a")
    page.wait_for_function("location.hash === '#step=3'")
    page.keyboard.press("r")
    page.keyboard.press("ArrowRight")
    assert step_in_url(page) == 4 and page.evaluate("location.hash") == "#step=4&raw=1"
    open_lecture(page, site, "#step=4", name="authoring_site")  # a link from before these flags
    assert current_line(page) == 29 and "lt-raw" not in page.get_attribute(".lt-viewer", "class")


def test_raw_mode_shows_directives_and_exact_numbers(page, site):
    open_lecture(page, site, "#step=6", name="authoring_site")
    line = ".lt-sline[data-line='30'] .lt-scode"
    assert page.inner_text(line).strip() == "flops = 6 * params  # six FLOPs per parameter"
    assert "@inspect" not in page.inner_text(".lt-v-lines")
    assert "40,000,000,000" in variables(page)["params"]
    page.keyboard.press("r")
    assert page.inner_text(line).strip() == "flops = 6 * params  # six FLOPs per parameter @inspect flops"
    scalar = ".lt-v-vars .lt-v-card[data-name='params'] .lt-scalar"
    assert not page.is_visible(scalar + " > span")  # the readable form gives way to the exact repr
    assert page.evaluate(f"getComputedStyle(document.querySelector(\"{scalar}\"), '::after').content") == '"40000000000.0"'


def test_citation_panel_opens_on_hover_and_focus_without_javascript(browser, site):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{site}lectures/authoring_site/")
    panel = ".lt-read .lt-cite-panel"
    assert page.inner_text(".lt-read .lt-cite-label") == "[Kaplan+ 2020]" and not page.is_visible(panel)
    page.hover(".lt-read .lt-cite-label")
    assert page.is_visible(panel) and "Scaling Laws for Neural Language Models" in page.inner_text(panel)
    page.mouse.move(0, 0)
    assert not page.is_visible(panel)
    page.focus(".lt-read .lt-cite-label")  # keyboard users get the same panel
    assert page.is_visible(panel) and "Jared Kaplan, Sam McCandlish" in page.inner_text(panel)
    context.close()


# --- the published lecture's budgets (bytes and elements, bench/README.md): sizes are stable, so they are tested; times are
# not, so bench/bench_viewer.py measures those.

# The page holds text alternatives (the memory chart's table, heatmap and stride descriptions) and
# marks rounded cells; the exact copies of big rounded grids load on demand from exact.js.
HTML_BUDGET_BYTES = 500_000
DOM_BUDGET_ELEMENTS = 10_000


PUBLISHED_TRACE = REPO / "site" / "traces" / "lecture_02.json"
PUBLISHED_GPU_RUN = REPO / "site" / "traces" / "gpu" / "lecture_02.json"


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    built = build_site(
        tmp_path_factory.mktemp("published"),
        [PUBLISHED_TRACE],
        gpu_runs=[PUBLISHED_GPU_RUN] if PUBLISHED_GPU_RUN.exists() else [],
    )
    with serve(built) as url:
        yield built, f"{url}lectures/lecture_02/"


@pytest.fixture(scope="module")
def published_steps():
    """(path, line) of each step of the published trace, so tests find steps by what they are."""
    trace = load_trace(PUBLISHED_TRACE)
    return [(step["stack"][-1]["path"], step["stack"][-1]["line"]) for step in trace["steps"]]


@pytest.mark.parametrize("page_dir", ["lecture_02", "lecture_02/gpu"])
def test_published_pages_fit_the_html_size_budget(published, page_dir):
    built, _url = published
    html = built / "lectures" / page_dir / "index.html"
    if not html.exists():
        pytest.skip("no kept GPU run is committed")
    assert html.stat().st_size <= HTML_BUDGET_BYTES, f"{page_dir} is {html.stat().st_size:,} bytes of HTML"


def test_published_lecture_fits_its_size_and_dom_budgets(page, published):
    built, url = published
    page.goto(url)
    page.wait_for_load_state("load")
    elements = page.evaluate("document.getElementsByTagName('*').length")
    assert elements <= DOM_BUDGET_ELEMENTS, f"lecture_02 has {elements:,} elements before scrolling"
    # the page is still all there: heavy annotation bodies wait as text, each near the top is in place
    waiting = page.evaluate("document.querySelectorAll('.lt-lazy').length")
    assert waiting > 50
    last = page.query_selector_all(".lt-annotation")[-1]
    last.scroll_into_view_if_needed()
    page.wait_for_function("document.querySelectorAll('.lt-lazy').length < %d" % waiting)
    assert page.evaluate("document.querySelector('.lt-annotation:last-of-type .lt-lazy') === null")


def test_published_lecture_without_javascript_shows_every_card(browser, published):
    _built, url = published
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(url)
    cards = page.query_selector_all(".lt-value.lt-kind-tensor")
    assert len(cards) > 90  # the tensor cards are ordinary markup for a reader without JavaScript
    cards[-1].scroll_into_view_if_needed()
    assert cards[-1].is_visible() and cards[-1].query_selector("svg.lt-stride-svg").is_visible()
    shared = page.query_selector("svg.lt-stride-svg use")  # a drawing several cards share, held once
    assert shared is not None and page.query_selector(shared.get_attribute("href")) is not None
    context.close()


def test_step_mode_takes_the_read_page_out_of_layout_and_gives_it_back(page, published):
    _built, url = published
    page.goto(url)
    page.wait_for_function("window.CHALKTRACE_READY !== undefined")
    link = page.query_selector_all(".lt-step-link")[20]
    link.scroll_into_view_if_needed()
    page.wait_for_timeout(300)  # lazy bodies near the viewport are put in place
    assert page.evaluate("window.scrollY") > 1000
    reading_at = link.bounding_box()["y"]
    link.click()
    page.wait_for_selector(".lt-viewer", state="visible")
    assert page.evaluate("document.querySelector('.md-container').getClientRects().length") == 0  # display: none
    page.keyboard.press("Escape")
    assert page.evaluate("document.querySelector('.md-container').getClientRects().length") == 1
    assert settles(lambda: abs(link.bounding_box()["y"] - reading_at) < 40)  # back where the reader was


def test_a_step_link_without_step_data_falls_back_to_the_read_page(page, published):
    built, url = published
    # the same page without its data.js beside it: the early #step=N hiding must be undone
    copy = built / "lectures" / "no_step_data"
    copy.mkdir(exist_ok=True)
    (copy / "index.html").write_bytes((built / "lectures" / "lecture_02" / "index.html").read_bytes())
    page.goto(url.replace("lecture_02", "no_step_data") + "#step=5")
    page.wait_for_load_state("load")
    page.wait_for_function("!document.documentElement.classList.contains('lt-stepping')")
    assert page.is_visible("h1") and page.query_selector(".lt-viewer") is None


def test_a_deep_step_link_shows_its_line_in_a_long_file(page, published, published_steps):
    _built, url = published
    deep = next(i for i, (path, line) in enumerate(published_steps) if path.endswith("lecture_02.py") and line > 250)

    def line_in_view():
        return page.evaluate("""() => {
          const panel = document.querySelector('.lt-v-lines').getBoundingClientRect();
          const line = document.querySelector('.lt-sline.lt-current').getBoundingClientRect();
          return line.top >= panel.top && line.bottom <= panel.bottom;
        }""")

    page.goto(url + f"#step={deep}")  # far down a file of several hundred lines
    page.wait_for_function("window.CHALKTRACE_READY !== undefined")
    assert settles(line_in_view)
    page.keyboard.press("End")
    assert settles(line_in_view)
    page.keyboard.press("Home")
    assert settles(line_in_view)


def test_tab_from_the_code_to_the_values_passes_only_this_sections_links(page, published, published_steps):
    # lecture_02's code panel holds the whole file, with two dozen links in its renderings
    _built, url = published
    page.goto(url + "#step=12")
    page.wait_for_function("window.CHALKTRACE_READY !== undefined")
    ends = page.evaluate("window.CHALKTRACE_DATA.sections.map(s => s[0])")[1:] + [len(published_steps)]
    passed_links = 0
    for end in ends:
        last = next(k for k in range(end - 1, -1, -1) if published_steps[k][0].endswith("lecture_02.py"))
        page.evaluate(f"CHALKTRACE_VIEWER.go({last})")
        page.wait_for_timeout(100)
        # the lines this section ran in the file shown: a link passed on the way must be on one of them
        # or in a rendering between two of them
        section = page.evaluate("CHALKTRACE_DATA.steps.section[CHALKTRACE_VIEWER.cur]")
        lines = [
            line
            for (path, line), sec in zip(published_steps, page.evaluate("CHALKTRACE_DATA.steps.section"))
            if sec == section and path.endswith("lecture_02.py")
        ]
        page.focus(".lt-v-lines")
        for _ in range(40):
            page.keyboard.press("Tab")
            where = page.evaluate("""(() => { const e = document.activeElement, line = e.closest('.lt-sline');
                return e.closest('.lt-v-side') ? 'values' : line ? +line.dataset.line : 'other'; })()""")
            if where == "values":
                break
            assert isinstance(where, int) and min(lines) <= where <= max(lines) + 1, (section, where)
            passed_links += 1
        assert where == "values"
    assert passed_links > 0  # the sections' own links are still Tab stops


def test_stepping_into_a_helper_file_and_back_shows_only_the_current_file(page, published, published_steps):
    _built, url = published
    # a lecture_02.py step whose next step is in _accounting.py (get_memory_usage) and whose step after returns
    before = next(
        i
        for i in range(len(published_steps) - 2)
        if published_steps[i][0].endswith("lecture_02.py")
        and published_steps[i + 1][0].endswith("_accounting.py")
        and published_steps[i + 2][0].endswith("lecture_02.py")
    )
    page.goto(url + f"#step={before}")
    page.wait_for_function("window.CHALKTRACE_READY !== undefined")
    for expected in ("_accounting.py", "lecture_02.py"):
        page.keyboard.press("ArrowRight")
        assert page.inner_text(".lt-v-path").endswith(expected)
        shown = page.evaluate("""() => [...document.querySelectorAll('.lt-v-file')].map((box) => {
          const rect = box.getBoundingClientRect();
          return [box.hidden, rect.height > 0, !!box.querySelector('.lt-current')];
        })""")
        assert sorted(shown) == [[False, True, True], [True, False, False]]  # the hidden file takes no room
        assert page.is_visible(CURRENT)


def test_the_kept_gpu_run_steps_with_its_gpu_values_and_links_back(page, published):
    built, url = published
    if not (built / "lectures" / "lecture_02" / "gpu").exists():
        pytest.skip("no kept GPU run is committed")
    gpu_run = json.loads(PUBLISHED_GPU_RUN.read_text())
    device = gpu_run["environment"]["gpu_name"]
    copy = next(i for i, step in enumerate(gpu_run["steps"]) if "memory_after" in step["env"])  # after y = x.to("cuda")
    page.goto(url)
    page.click(f"text=Open the {device} run")
    page.wait_for_url("**/lectures/lecture_02/gpu/")
    assert page.is_visible(f"text=An earlier run on {device}")
    page.goto(url + f"gpu/#step={copy}")
    page.wait_for_function("window.CHALKTRACE_READY !== undefined")
    shown = variables(page)
    assert "memory_after" in shown and "y" in shown, shown
    assert page.inner_text(".lt-v-title") == f"PyTorch and resource accounting (run on {device})"
    assert "cuda" in page.inner_text(".lt-viewer")  # the tensor copied to the GPU
    page.goto(url + "gpu/")
    page.click("text=Read the current lecture")
    page.wait_for_url("**/lectures/lecture_02/")
    assert page.is_visible("text=Traced without a GPU")


def test_lists_keep_the_authors_numbers_in_read_and_step_mode(page, site):
    """A list numbered from 0 shows 0., 1. at every depth (not Material's letters: "0., a."), in
    read mode as in step mode; a nested list numbered from 1 keeps Material's letters."""
    lists = """ols => ols.map(ol => [ol.firstElementChild.firstChild.textContent.trim(), ol.start,
        getComputedStyle(ol).listStyleType])"""
    expected = [
        ["Tokenize", 0, "decimal"],
        ["split into bytes", 0, "decimal"],
        ["Train", 1, "decimal"],
        ["forward", 1, "lower-alpha"],
    ]
    open_lecture(page, site, name="numbered_lists")
    assert page.eval_on_selector_all(".lt-read ol", lists) == expected
    open_lecture(page, site, "#step=2", name="numbered_lists")
    assert page.eval_on_selector_all(".lt-viewer .lt-v-lines ol", lists) == expected


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_charts_are_drawn_for_the_scheme_they_are_shown_in(browser, site, scheme):
    """On the dark (slate) scheme a chart is the dark drawing on the page's own background, not a white box."""
    with viewer_context(browser, viewport={"width": 1280, "height": 720}, color_scheme=scheme) as context:
        page = context.new_page()
        open_lecture(page, site, name="authoring_site")
        assert page.get_attribute("body", "data-md-color-scheme") == ("slate" if scheme == "dark" else "default")
        chart = page.locator(".lt-plot-img:visible").first
        chart.scroll_into_view_if_needed()
        page.wait_for_function(
            "[...document.querySelectorAll('.lt-plot-img')].filter(i => i.offsetParent).every(i => i.complete && i.naturalWidth)"
        )
        shown = page.eval_on_selector_all(".lt-plot-img", "imgs => imgs.filter(i => i.offsetParent).map(i => i.src)")
        assert shown and all(src.endswith("-dark.svg") == (scheme == "dark") for src in shown)
        luminance = ImageStat.Stat(Image.open(io.BytesIO(chart.screenshot())).convert("L")).mean[0]
        assert luminance < 80 if scheme == "dark" else luminance > 200, luminance
        page.emulate_media(media="print")  # on paper, dark ink on white whatever the scheme
        printed = Image.open(io.BytesIO(chart.screenshot())).convert("L")
        assert ImageStat.Stat(printed).mean[0] > 200 and printed.getextrema()[0] < 60, ImageStat.Stat(printed).mean


# Material's primary palettes (its palette stylesheet has them all).
PRIMARIES = ["red", "pink", "purple", "deep-purple", "indigo", "blue", "light-blue", "cyan", "teal", "green",
             "light-green", "lime", "yellow", "amber", "orange", "deep-orange", "brown", "grey", "blue-grey"]  # fmt: skip

# The contrast of the step bar's text (its title, position and buttons) on the bar, as painted (any
# CSS colour syntax read back through a canvas), for one palette.
BAR_CONTRAST = """primary => {
    document.body.setAttribute('data-md-color-primary', primary);
    const ctx = document.createElement('canvas').getContext('2d', {willReadFrequently: true});
    const rgb = css => { ctx.clearRect(0, 0, 1, 1); ctx.fillStyle = '#000'; ctx.fillStyle = css; ctx.fillRect(0, 0, 1, 1);
        return [...ctx.getImageData(0, 0, 1, 1).data].slice(0, 3); };
    const lum = c => { const [r, g, b] = c.map(v => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
    const bar = document.querySelector('.lt-v-bar'), bg = lum(rgb(getComputedStyle(bar).backgroundColor));
    return [...bar.querySelectorAll('.lt-v-title, .lt-v-pos, .lt-v-btn:not([aria-pressed=true]):not(:disabled)')]
        .map(e => { const fg = lum(rgb(getComputedStyle(e).color)); return (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05); });
}"""


def test_the_step_bar_reads_on_every_primary_palette(page, site):
    """Deep orange (white on it: 2.8:1) and every other Material primary: the bar's text is at least 4.5:1."""
    open_lecture(page, site, "#step=2")
    for primary in PRIMARIES:
        ratios = page.evaluate(BAR_CONTRAST, primary)
        assert ratios and min(ratios) >= 4.5, (primary, min(ratios))
