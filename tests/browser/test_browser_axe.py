"""axe-core (through axe-playwright-python) over every page and mode of a real site build, in Chromium.

The site holds the repository's own lectures (lecture_02: tensor cards, heatmaps, stride diagrams,
the memory chart; collectives: the ranks), the quiz fixture and the building blocks' fixture (code,
diff, columns, callouts, image focus). Each page and mode is audited at a
desktop and a phone width, in the light and the dark scheme (Material picks its palette from
``prefers-color-scheme``). WCAG 2.1 A/AA rules; a serious or critical violation fails the test, with
the rule, the count and the first few elements named.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from helpers.site import REPO, build_site, serve, viewer_context
from helpers.traced import trace_all, trace_path

axe_playwright = pytest.importorskip("axe_playwright_python.sync_playwright", reason="pip install axe-playwright-python")

TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
SCHEMES = ["light", "dark"]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    trace_all("quiz_demo", "building_blocks")
    traces = [REPO / "site" / "traces" / f"{name}.json" for name in ("lecture_02", "collectives", "hello")]
    traces += [trace_path("quiz_demo"), trace_path("building_blocks")]
    gpu_run = REPO / "site" / "traces" / "gpu" / "lecture_02.json"  # its page links to it from a sentence
    with serve(build_site(tmp_path_factory.mktemp("site"), traces, gpu_runs=[gpu_run])) as url:
        yield url


def wait_ready(page: Any) -> None:
    page.wait_for_function("window.CHALKTRACE_READY !== undefined")


def step_with(page: Any, *needles: str) -> int:
    """The first step whose variables panel holds every one of ``needles`` (CSS classes in the cards' HTML)."""
    return page.evaluate(
        """needles => {
        const v = window.CHALKTRACE_VIEWER;
        for (let step = 0; step < v.count; step++) {
            const values = v.controllers.values;
            const html = [...values.envAt(step).values()].map(card => values.cardHtml(card)).join("");
            if (needles.every(n => html.includes(n))) return step;
        }
        return -1;
    }""",
        list(needles),
    )


def open_step(page: Any, site: str, lecture: str, needles: tuple[str, ...], flags: str = "") -> None:
    page.goto(f"{site}lectures/{lecture}/")
    wait_ready(page)
    step = step_with(page, *needles)
    assert step >= 0, f"no step of {lecture} shows {needles}"
    page.goto(f"{site}lectures/{lecture}/#step={step}{flags}")
    page.wait_for_function(f"CHALKTRACE_VIEWER.cur === {step} && CHALKTRACE_VIEWER.active")


def open_ranks_step(page: Any, site: str) -> None:
    """Step mode of the four-rank lecture, following rank 1, at its first collective."""
    page.goto(f"{site}lectures/collectives/")
    wait_ready(page)
    step = page.evaluate("""() => {
        const d = window.CHALKTRACE_DATA;
        const first = Object.keys(d.compute).map(Number).sort((a, b) => a - b)
            .find(k => d.compute[k].includes("lt-collective"));
        return d.ranks.switch[first][1];
    }""")
    page.goto(f"{site}lectures/collectives/#step={step}")
    page.wait_for_function(f"CHALKTRACE_VIEWER.cur === {step} && CHALKTRACE_VIEWER.active")


def open_read(page: Any, site: str, lecture: str) -> None:
    """The read page as a reader leaves it: scrolled through to the end (every lazy card in place,
    laid out at this width), then back at the top."""
    page.goto(f"{site}lectures/{lecture}/")
    wait_ready(page)
    height = page.viewport_size["height"]
    y = 0
    while y < page.evaluate("document.documentElement.scrollHeight"):
        page.evaluate(f"window.scrollTo(0, {y})")
        page.wait_for_timeout(20)
        y += height
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_timeout(200)
    assert page.evaluate("document.querySelectorAll('.lt-lazy').length") == 0


def open_quiz_question(page: Any, site: str) -> None:
    page.goto(f"{site}lectures/quiz_demo/#step=0&quiz=1")
    wait_ready(page)
    for _ in range(80):
        if page.is_visible(".lt-viewer [data-question]"):
            return
        page.keyboard.press("ArrowRight")
    raise AssertionError("no quiz question opened")


def open_blocks_step(page: Any, site: str) -> None:
    """Step mode of the building blocks' lecture (code, diff, columns, callouts, image focus), at its last step."""
    page.goto(f"{site}lectures/building_blocks/#step=10")
    page.wait_for_function("CHALKTRACE_VIEWER.cur === 10 && CHALKTRACE_VIEWER.active")


TENSOR_STEP = ("lt-kind-tensor", "lt-hm", "lt-stride")
TARGETS: dict[str, Callable[[Any, str], None]] = {
    "home": lambda page, site: page.goto(site),
    "read": lambda page, site: open_read(page, site, "lecture_02"),
    "read (ranks)": lambda page, site: open_read(page, site, "collectives"),
    "source.html": lambda page, site: page.goto(f"{site}lectures/lecture_02/source.html"),
    "step": lambda page, site: open_step(page, site, "lecture_02", TENSOR_STEP),
    "raw": lambda page, site: open_step(page, site, "lecture_02", TENSOR_STEP, "&raw=1"),
    "present": lambda page, site: open_step(page, site, "lecture_02", TENSOR_STEP, "&present=1"),
    "speaker": lambda page, site: open_step(page, site, "lecture_02", TENSOR_STEP, "&speaker=1"),
    "quiz": open_quiz_question,
    "ranks (step)": open_ranks_step,
    "blocks (read)": lambda page, site: open_read(page, site, "building_blocks"),
    "blocks (step)": open_blocks_step,
}


def audit(page: Any) -> list[dict]:
    """axe's serious and critical violations on the page as it stands."""
    results = axe_playwright.Axe().run(page, options={"runOnly": {"type": "tag", "values": TAGS}, "resultTypes": ["violations"]})
    return [v for v in results.response["violations"] if v["impact"] in ("serious", "critical")]


def summary(violations: list[dict]) -> str:
    return "; ".join(
        f"{v['id']} ({v['impact']}, {len(v['nodes'])} nodes: {', '.join(str(n['target'][0]) for n in v['nodes'][:3])})"
        for v in violations
    )


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("width", list(VIEWPORTS))
def test_no_serious_or_critical_violation_on_any_page_or_mode(browser, site, width, scheme):
    failures = {}
    with viewer_context(browser, viewport=VIEWPORTS[width], color_scheme=scheme) as context:
        for name, open_target in TARGETS.items():
            page = context.new_page()
            open_target(page, site)
            if "lectures/" in page.url and "source.html" not in page.url or page.url == site:
                want = "slate" if scheme == "dark" else "default"
                assert page.get_attribute("body", "data-md-color-scheme") == want
            found = audit(page)
            if found:
                failures[name] = summary(found)
            page.close()
    assert not failures, "\n".join(f"{name}: {text}" for name, text in failures.items())


def test_a_value_grid_that_scrolls_sideways_is_one_tab_stop_and_one_that_fits_is_none(browser, site):
    """Read mode on a phone: each value grid wider than its box takes one Tab stop (the arrow keys
    then scroll it); a grid that fits takes none, so the Tab order is not flooded."""
    with viewer_context(browser, viewport=VIEWPORTS["phone"]) as context:
        page = context.new_page()
        open_read(page, site, "collectives")
        grids = page.evaluate("""() => [...document.querySelectorAll('.lt-read .lt-values')].map(b =>
            [b.scrollWidth > b.clientWidth + 1, b.getAttribute('tabindex'), !!b.querySelector('[tabindex]')])""")
        scrolling = [g for g in grids if g[0] and not g[2]]
        assert scrolling and all(tabindex == "0" for _, tabindex, _ in scrolling)
        assert all(tabindex is None for scrolls, tabindex, _ in grids if not scrolls)
        assert len(scrolling) < len(grids)
        box = page.locator(".lt-read .lt-values[data-lt-scroll-stop]").first
        box.focus()
        page.keyboard.press("ArrowRight")
        page.wait_for_function("document.activeElement.scrollLeft > 0")
        # after a resize, the stops are again exactly the grids that scroll
        page.set_viewport_size(VIEWPORTS["desktop"])
        page.wait_for_timeout(300)
        assert page.evaluate("""() => [...document.querySelectorAll('.lt-read .lt-values')].every(b =>
            (b.scrollWidth > b.clientWidth + 1 && !b.querySelector('[tabindex]')) === b.hasAttribute('data-lt-scroll-stop'))""")
