"""The interface in the course's language, in Chromium: a real site build of a course whose mkdocs.yml
says ``theme.language: zh`` (Simplified Chinese), stepped at a desktop and a phone size, audited by axe."""

from __future__ import annotations

import re

import pytest

from helpers.site import build_site, goto_lecture, serve, viewer_context
from helpers.traced import trace_all, trace_path

axe_playwright = pytest.importorskip("axe_playwright_python.sync_playwright", reason="pip install axe-playwright-python")

VIEWPORTS = {"desktop": {"width": 1280, "height": 720}, "phone": {"width": 390, "height": 844}}
LIVE = ".lt-v-live[aria-live]"
HAN = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    trace_all("zh_course")
    with serve(build_site(tmp_path_factory.mktemp("site"), [trace_path("zh_course")], language="zh")) as url:
        yield url


@pytest.fixture(params=sorted(VIEWPORTS))
def page(request, browser):
    with viewer_context(browser, viewport=VIEWPORTS[request.param]) as context:
        yield context.new_page()


def test_the_read_page_is_chinese_and_says_so(page, site):
    goto_lecture(page, site, "zh_course")
    assert page.evaluate("document.documentElement.lang") == "zh"
    assert page.inner_text(".lt-step-enter") == "逐步执行"
    assert page.inner_text(".lt-step-link >> nth=0").startswith("第 ")
    assert re.fullmatch(r"\d+ 步", page.inner_text(".lt-steps"))
    assert "存储偏移" in page.inner_text(".lt-read")  # a tensor card's words (the API's names, shape and stride, stay)
    # the quiz's score line (the lecture asks one question)
    assert page.inner_text(".lt-quiz-enter") == "测验我"
    assert page.inner_text(".lt-quiz-tally") == "测验模式共有 1 个问题（在逐步模式中按 q）。"
    # Han characters come from a CJK font of the system, after the course's Latin one; nothing is fetched
    fonts = page.evaluate("getComputedStyle(document.querySelector('.md-typeset p')).fontFamily")
    assert fonts.index('"Noto Sans CJK SC"') < fonts.index("sans-serif")
    assert fonts.split(",")[0].strip() in ("_", '"_"')  # the course's own font first (none here)


def test_the_step_viewer_speaks_chinese(page, site):
    goto_lecture(page, site, "zh_course", "#step=1")
    page.wait_for_function("CHALKTRACE_VIEWER.active")
    count = page.evaluate("CHALKTRACE_VIEWER.count")
    assert page.inner_text(".lt-v-pos") == f"第 1 / {count - 1} 步"
    assert page.get_attribute(".lt-v-progress", "aria-valuetext") == f"第 1 步，共 {count - 1} 步"
    assert page.get_attribute(".lt-v-b-next", "aria-label") == "前进一步（→ 或 l）"
    assert page.get_attribute(".lt-v-b-first", "title") == "第一步（Home）"
    assert page.inner_text(".lt-v-b-quiz") == "测验"
    assert page.get_attribute(".lt-viewer", "aria-label").startswith("逐步执行 ")
    # the announcement of a step, and the values panel's words
    page.focus(".lt-viewer")
    page.evaluate(f"""() => {{ window.ANNOUNCED = []; new MutationObserver(() => ANNOUNCED.push(
        document.querySelector('{LIVE}').textContent)).observe(document.querySelector('{LIVE}'), {{childList: true}}); }}""")
    page.keyboard.press("ArrowRight")
    # the page's own announcement of step 1 may still land after the observer starts, on a busy machine
    page.wait_for_function("ANNOUNCED.some(t => t.startsWith('第 2 步'))")
    said = page.evaluate("ANNOUNCED.find(t => t.startsWith('第 2 步'))")
    assert re.match(rf"第 2 步，共 {count - 1} 步，第 \d+ 行：", said), said
    assert "：tensor" in said and said.endswith("，新。"), said  # x: its card's head, new on this step
    assert page.inner_text(".lt-v-vars h3").startswith("变量")
    # the help overlay
    page.keyboard.press("?")
    assert page.inner_text(".lt-v-help h2") == "逐步模式按键"
    assert page.get_attribute(".lt-v-help", "aria-label") == "逐步模式按键和设置"


def test_the_step_bar_fits_and_nothing_is_english(page, site):
    goto_lecture(page, site, "zh_course", "#step=3")
    page.wait_for_function("CHALKTRACE_VIEWER.active")
    width = page.viewport_size["width"]
    bar = page.evaluate(
        "(() => { const r = document.querySelector('.lt-v-bar').getBoundingClientRect(); return [r.left, r.right]; })()"
    )
    assert bar[0] >= 0 and bar[1] <= width
    # the counter and the step buttons are on screen, and the buttons' row scrolls rather than spill
    for selector in (".lt-v-pos", ".lt-v-b-prev", ".lt-v-b-next"):
        box = page.locator(selector).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, selector
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    # every word the bar shows or names is Chinese (keys, symbols and the lecture's own title aside)
    texts = page.evaluate(
        """[...document.querySelectorAll('.lt-v-bar button')].map(b => b.getAttribute('aria-label') || b.textContent)"""
    )
    english = [t for t in texts if re.search(r"[a-z]{3,}", re.sub(r"（.*?）", "", t)) and not HAN.search(t)]
    assert english == [], english


def test_axe_finds_nothing_serious_in_chinese(page, site):
    for hash_ in ("", "#step=3", "#step=3&quiz=1"):
        goto_lecture(page, site, "zh_course", hash_)
        if hash_:
            page.wait_for_function("CHALKTRACE_VIEWER.active")
        results = axe_playwright.Axe().run(
            page,
            options={
                "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
                "resultTypes": ["violations"],
            },
        )
        serious = [v["id"] for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
        assert serious == [], (hash_, serious)
