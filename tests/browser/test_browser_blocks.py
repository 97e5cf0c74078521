"""The building blocks (code, diff, columns, callout, image focus) in Chromium: read mode and step mode
at a desktop and a phone width, and printed to PDF by Chromium without a block cut across pages."""

from __future__ import annotations

import io
from typing import Any

import pytest

from helpers.site import served_fixture_site, viewer_context

LECTURE = "building_blocks"
DESKTOP = {"width": 1280, "height": 720}
PHONE = {"width": 390, "height": 844}
BLOCKS = ".lt-block-code, .lt-diff, .lt-columns, .lt-callout, .lt-focus"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with served_fixture_site(tmp_path_factory.mktemp("site"), LECTURE) as url:
        yield url


def open_read(page: Any, site: str) -> Any:
    page.goto(f"{site}lectures/{LECTURE}/")
    page.wait_for_function("window.CHALKTRACE_READY !== undefined")
    return page.locator(".lt-read")


def open_step(page: Any, site: str) -> Any:
    page.goto(f"{site}lectures/{LECTURE}/#step=3")
    page.wait_for_function("CHALKTRACE_VIEWER.cur === 3 && CHALKTRACE_VIEWER.active")
    return page.locator(".lt-viewer")


def column_boxes(root: Any) -> list[dict[str, float]]:
    columns = root.locator(".lt-column")
    assert columns.count() == 2
    return [columns.nth(k).bounding_box() for k in range(2)]


@pytest.mark.parametrize("mode", [open_read, open_step], ids=["read", "step"])
def test_columns_sit_side_by_side_on_a_wide_screen_and_stack_on_a_phone(browser, site, mode):
    with viewer_context(browser, viewport=DESKTOP) as context:
        left, right = column_boxes(mode(context.new_page(), site))
        assert abs(left["y"] - right["y"]) < 1 and right["x"] >= left["x"] + left["width"]
        assert left["width"] > 200
    with viewer_context(browser, viewport=PHONE) as context:
        page = context.new_page()
        top, below = column_boxes(mode(page, site))
        assert below["y"] >= top["y"] + top["height"] and abs(top["x"] - below["x"]) < 1
        # stacked, each column has the whole width and nothing sticks out of the phone's screen
        assert top["x"] + top["width"] <= PHONE["width"]
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_every_block_shows_in_read_and_step_mode(browser, site):
    with viewer_context(browser, viewport=DESKTOP) as context:
        page = context.new_page()
        for root in (open_read(page, site), open_step(page, site)):
            assert root.locator(".lt-block-code .kt").first.inner_text() == "int"  # C, highlighted
            assert root.locator(".lt-diff del").count() == 2 and root.locator(".lt-diff ins").count() == 3
            assert [root.locator(".lt-callout-label").nth(k).inner_text() for k in range(4)] == [
                "Info",
                "Tip",
                "Warning",
                "Danger",
            ]
            assert root.locator(".lt-focus .lt-marker").count() == 2
            assert root.locator(".lt-marker-list li").all_inner_texts() == ["top of the red block", "its bottom edge"]


def test_the_focus_shows_the_region_and_the_markers_sit_on_their_pixels(browser, site):
    with viewer_context(browser, viewport=DESKTOP) as context:
        page = context.new_page()
        open_read(page, site)
        figure = page.locator(".lt-read .lt-focus")
        figure.scroll_into_view_if_needed()
        page.wait_for_function("document.querySelector('.lt-read .lt-focus img').complete")
        frame = figure.locator(".lt-focus-frame").bounding_box()
        image = figure.locator("img").bounding_box()
        scale = frame["width"] / 120  # the 120-pixel-wide region fills the frame
        assert frame["height"] == pytest.approx(frame["width"], abs=1)  # a 120 x 120 region
        assert image["width"] == pytest.approx(240 * scale, abs=1)
        assert image["x"] == pytest.approx(frame["x"] - 120 * scale, abs=1)
        assert image["y"] == pytest.approx(frame["y"] - 20 * scale, abs=1)
        first = figure.locator(".lt-marker").first.bounding_box()
        centre = (first["x"] + first["width"] / 2, first["y"] + first["height"] / 2)
        assert centre == (pytest.approx(frame["x"] + 60 * scale, abs=1), pytest.approx(frame["y"] + 20 * scale, abs=1))
        # what a screen reader gets: the image's alt text and the numbered labels, not the bare numbers
        tree = page.locator(".lt-read .lt-focus").aria_snapshot()
        assert "A grid with a blue rectangle" in tree and "top of the red block" in tree
        assert '"1"' not in tree and "text: '1'" not in tree


def test_printing_keeps_each_block_on_one_page(browser, site):
    pypdf = pytest.importorskip("pypdf")
    with viewer_context(browser, viewport=DESKTOP) as context:
        page = context.new_page()
        open_read(page, site)
        # small pages, so that page breaks fall all through the blocks unless they move whole
        pdf = page.pdf(width="5in", height="4.2in", margin={"top": "0.3in", "bottom": "0.3in"})
    pages = [p.extract_text() for p in pypdf.PdfReader(io.BytesIO(pdf)).pages]
    assert len(pages) >= 5

    def page_of(text: str) -> int:
        (found,) = [k for k, body in enumerate(pages) if text in body]
        return found

    for first, last in [
        ("int add(int a, int b)", "add.c"),
        ("scale v1", "return x * factor"),
        ("Eager", "Ops are traced, then fused."),
        ("Shapes must agree", "Shapes must agree"),
        ("Memory", "This copies the whole tensor."),
        ("Danger", "Never call this on a GPU tensor."),
        ("The red block, enlarged", "its bottom edge"),
    ]:
        assert page_of(first) == page_of(last), (first, last)
