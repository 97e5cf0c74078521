"""chalktrace export --pdf: the book handout and the slides, printed by Chromium from the real site
build, checked by their page counts, page sizes, text, links and outline (pypdf)."""

from __future__ import annotations

import io
import os
import re

import pytest

from helpers.site import CHROMIUM, CHROMIUM_ARGS, build_site
from helpers.traced import trace_path
from tracer.contract.trace_reading import load_trace
from tracer.site.model.animate import expand_animations

pypdf = pytest.importorskip("pypdf")
pdf_export = pytest.importorskip("tracer.commands.pdf_export")

SECRET = "EXPORT-SECRET-NOTE"
TRAINING_SECTIONS = ["Data", "Model", "Loss", "Optimizer", "Training loop", "Evaluation", "Summary"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    if not CHROMIUM.exists():  # export starts its own Chromium (the browser fixture's would share its thread)
        if os.environ.get("CHALKTRACE_REQUIRE_BROWSER"):
            pytest.fail("chromium not installed but CHALKTRACE_REQUIRE_BROWSER is set (CI)")
        pytest.skip("chromium not installed: apt-get install -y chromium")
    root = tmp_path_factory.mktemp("site")
    traces = [trace_path("training_lecture"), trace_path("export_demo")]
    return root, build_site(root, traces), {t.stem: expand_animations(load_trace(t)) for t in traces}


def page_of(site, name):
    return site / "lectures" / name / "index.html"


def texts(data: bytes) -> list[str]:
    return [page.extract_text() for page in pypdf.PdfReader(io.BytesIO(data)).pages]


def todays_print(site, name) -> int:
    """Pages of the read page as the browser's print makes it today: Chromium, A4, with read.js's
    beforeprint (every lazy card in place, every <details> open)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_context(bypass_csp=True).new_page()
        page.goto(page_of(site, name).as_uri(), wait_until="load")
        page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
        data = page.pdf(format="A4")
        browser.close()
    return len(pypdf.PdfReader(io.BytesIO(data)).pages)


@pytest.fixture(scope="module")
def book(built):
    _root, site, traces = built
    return pdf_export.pdf_bytes(
        site, page_of(site, "training_lecture"), "book", trace=traces["training_lecture"], notes_file=None
    )


def test_the_training_lecture_s_book_is_a_page_per_section_and_shorter_than_today_s_print(built, book):
    _root, site, _traces = built
    today = todays_print(site, "training_lecture")
    pages = len(texts(book))
    # compact cards: each section fits on its one page, after the contents page
    assert pages == 1 + len(TRAINING_SECTIONS)
    assert pages < today, (pages, today)


def test_the_book_opens_with_the_contents_and_starts_each_section_on_a_page(book):
    pages = texts(book)
    first = pages[0]
    assert "Training a tiny network" in first and "Contents" in first
    assert [s for s in TRAINING_SECTIONS if s in first] == TRAINING_SECTIONS
    starts = [page.lstrip().splitlines()[0].strip() for page in pages[1:]]
    assert [s for s in starts if s in TRAINING_SECTIONS] == TRAINING_SECTIONS
    for page in pages:
        assert re.search(r"\bstep \d+\b", page) is None  # step links lead nowhere on paper


def test_the_book_is_complete_without_javascript_with_compact_cards(book):
    text = "\n".join(texts(book))
    # a lazy tensor card (its markup waits in <noscript> on the site) and a scalar card
    assert re.search(r"noise\s*tensor\s*float32\s*\(64, 1\)", text)
    assert "min" in text and "std" in text
    assert re.search(r"count\s*=\s*49", text)  # 1·16 + 16 + 16·1 + 1 parameters
    assert "storage offset" not in text  # compact: no field table or storage drawing
    assert "loss_fn(pred, y)" in text  # code


def test_the_book_links_its_contents_and_has_an_outline(book):
    reader = pypdf.PdfReader(io.BytesIO(book))
    links = [a.get_object() for a in reader.pages[0].get("/Annots", []) if a.get_object().get("/Subtype") == "/Link"]
    assert len(links) >= len(TRAINING_SECTIONS)
    assert all("/Dest" in link or "/A" in link for link in links)
    title, sections = reader.outline
    assert title.title == "Training a tiny network"
    assert [item.title for item in sections] == ["Contents", *TRAINING_SECTIONS]


def test_a_book_never_holds_speaker_notes(built):
    _root, site, traces = built
    book = pdf_export.pdf_bytes(site, page_of(site, "export_demo"), "book", trace=traces["export_demo"], notes_file=None)
    text = "\n".join(texts(book))
    assert SECRET not in text and "Results" in text


def slides(built, notes: bool) -> bytes:
    root, site, traces = built
    notes_file = root / "build" / "notes" / "export_demo.json" if notes else None
    return pdf_export.pdf_bytes(site, page_of(site, "export_demo"), "slides", trace=traces["export_demo"], notes_file=notes_file)


def test_slides_are_16_9_one_per_section_start_and_animate_part(built):
    data = slides(built, notes=False)
    reader = pypdf.PdfReader(io.BytesIO(data))
    # the opening step, "## Setup", "## Results", "### The area" and the three parts of the @animate line
    assert len(reader.pages) == 7
    for page in reader.pages:
        assert float(page.mediabox.width) / float(page.mediabox.height) == pytest.approx(16 / 9)
    pages = [page.extract_text() for page in reader.pages]
    assert "Setup" in pages[1] and "Results" in pages[2] and "The area" in pages[3]
    shown = [sum(part in page for part in ("First, the radius.", "Then, the square.", "Last, times pi.")) for page in pages[4:]]
    assert shown == [1, 2, 3]  # the parts build up, one per slide
    assert all(SECRET not in page for page in pages)


def test_with_notes_each_slide_is_followed_by_its_notes_page(built):
    pages = texts(slides(built, notes=True))
    assert len(pages) == 14
    notes = pages[1::2]
    assert all(page.startswith(f"Notes: slide {k + 1}") for k, page in enumerate(notes))
    assert "Results › The area" in notes[3]
    assert [SECRET in page for page in notes] == [False, False, True, False, False, False, False]  # the Results section's note
    assert all(SECRET not in page for page in pages[0::2])
