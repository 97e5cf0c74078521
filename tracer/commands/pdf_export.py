"""The PDFs of ``chalktrace export --pdf``: a book handout or projector slides, printed by headless Chromium.

Both start from the one-file page (``commands/single_file.py``), so Chromium opens it from disk and
asks for nothing. ``book``: the read page on A4 with JavaScript off (a page without JavaScript is
complete: every card is markup), under ``site/assets/export-book.css`` (compact cards, a page break
before each section) with a table of contents after the title; the PDF keeps its links and an outline.
``slides``: step mode's present view at 16:9, one page per (sub)section start and per ``@animate`` part,
with each slide's speaker notes on a page after it when asked. Chromium comes through Playwright
(the ``export`` extra); a machine without it gets one line saying what to install. This module must
not parse the command line or change what a page shows.
"""

from __future__ import annotations

import html as html_text
import json
import re
import tempfile
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import Any

from markupsafe import Markup

from tracer.commands.single_file import single_file_html
from tracer.contract import paths
from tracer.site.cards.templates import template_env, template_macros

SLIDE_WIDTH_PX, SLIDE_HEIGHT_PX = 1280, 720  # 16:9, a projector's shape
NO_MARGIN = {"top": "0", "bottom": "0", "left": "0", "right": "0"}
CHROMIUM_PATHS = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
INSTALL = 'pip install "chalktrace[export]" (Playwright), then `playwright install chromium` or a system Chromium'


class PdfError(Exception):
    """A PDF cannot be made here (no Chromium, no Playwright); the message says what to do."""


@dataclass
class Slide:
    step: int
    title: str  # the section it is in
    note: Markup | None = None  # the speaker notes recorded from its step to the next slide's


_HEADING = re.compile(r'<h([23]) id="([^"]+)"[^>]*>(.*?)</h\1>', re.S)


def headings(page_html: str) -> list[dict[str, Any]]:
    """The page's sections (h2) with their subsections (h3), as the contents lists them."""
    sections: list[dict[str, Any]] = []
    for level, anchor, inner in _HEADING.findall(page_html):
        title = html_text.unescape(re.sub(r"<[^>]+>", "", re.sub(r'<a class="headerlink".*?</a>', "", inner))).strip()
        if level == "2":
            sections.append({"id": anchor, "title": title, "parts": []})
        elif sections:
            sections[-1]["parts"].append({"id": anchor, "title": title})
    return sections


def book_html(site_dir: Path, page: Path) -> str:
    """The one-file page made into the book: its stylesheet, and the contents after the title."""
    page_html = single_file_html(site_dir, page)
    css = (paths.ASSETS_DIR / "export-book.css").read_text(encoding="utf-8")
    sections = headings(page_html)
    if sections:
        toc = str(template_macros(template_env(), "export.html.j2").book_toc(sections))
        page_html = re.sub(r"(<h1\b.*?</h1>)", lambda m: m.group(1) + toc, page_html, count=1, flags=re.S)
    return page_html.replace("</head>", f"<style>{css}</style>\n</head>", 1)


def _chromium(playwright: Any) -> Any:
    executable = next((p for p in CHROMIUM_PATHS if Path(p).is_file()), None)
    try:
        return playwright.chromium.launch(executable_path=executable, args=["--no-sandbox", "--disable-gpu"])
    except Exception as exc:  # noqa: BLE001 (Playwright's own error type says only "launch failed")
        raise PdfError(f"cannot start Chromium ({str(exc).splitlines()[0]}): {INSTALL}") from None


def _playwright() -> Any:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise PdfError(f"a PDF needs headless Chromium: {INSTALL}") from None
    return sync_playwright()


def print_book(html: str, title: str) -> bytes:
    """``html`` printed on A4 by Chromium with JavaScript off: page numbers below, links and an outline kept."""
    footer = (
        '<div style="font: 8px system-ui, sans-serif; color: #666; width: 100%; padding: 0 14mm; display: flex;">'
        f'<span style="flex: 1">{html_text.escape(title)}</span>'
        '<span><span class="pageNumber"></span> / <span class="totalPages"></span></span></div>'
    )
    with tempfile.TemporaryDirectory(prefix="chalktrace-export-") as folder, _playwright() as playwright:
        source = Path(folder) / "book.html"
        source.write_text(html, encoding="utf-8")
        browser = _chromium(playwright)
        try:
            context = browser.new_context(java_script_enabled=False)
            page = context.new_page()
            page.goto(source.as_uri(), wait_until="load")
            return bytes(
                page.pdf(
                    format="A4",
                    print_background=True,
                    display_header_footer=True,
                    header_template="<span></span>",
                    footer_template=footer,
                    margin={"top": "14mm", "bottom": "16mm", "left": "14mm", "right": "14mm"},
                    outline=True,
                    tagged=True,
                )
            )
        finally:
            browser.close()


def slide_steps(trace: Any) -> list[Slide]:
    """The first step, then one slide per section and subsection heading (``##``, ``###``) and per
    ``@animate`` part, in step order."""
    from tracer.site.model.animate import animation_part
    from tracer.site.model.page_model import section_headings

    sections, subsections = dict(section_headings(trace, 2)), dict(section_headings(trace, 3))
    parts = {i for i, step in enumerate(trace["steps"]) if animation_part(step) is not None}
    section, slides = "", []
    for step in sorted({0} | set(sections) | set(subsections) | parts):
        section = sections.get(step, section)
        slides.append(Slide(step=step, title=f"{section} › {subsections[step]}" if step in subsections else section))
    return slides


def notes_on(slides: list[Slide], notes_file: Path) -> None:
    """Give each slide the speaker notes the build wrote for the steps it covers (from its step to the next slide's)."""
    notes = json.loads(notes_file.read_text(encoding="utf-8")).get("notes", []) if notes_file.is_file() else []
    ends = [slide.step for slide in slides[1:]] + [None]
    for slide, end in zip(slides, ends):
        covered = [html for step, html in notes if step >= slide.step and (end is None or step < end)]
        slide.note = Markup("\n".join(covered)) if covered else None


def print_slides(single_html: str, slides: list[Slide], title: str, with_notes: bool) -> bytes:
    """Each slide's step in step mode's present view, printed at 16:9; with notes, each followed by its notes page."""
    from pypdf import PdfReader, PdfWriter

    size = {"width": f"{SLIDE_WIDTH_PX}px", "height": f"{SLIDE_HEIGHT_PX}px"}
    writer = PdfWriter()
    with tempfile.TemporaryDirectory(prefix="chalktrace-export-") as folder, _playwright() as playwright:
        source = Path(folder) / "slides.html"
        source.write_text(single_html, encoding="utf-8")
        browser = _chromium(playwright)
        try:
            context = browser.new_context(viewport={"width": SLIDE_WIDTH_PX, "height": SLIDE_HEIGHT_PX})
            page = context.new_page()
            page.emulate_media(media="screen")
            notes_pdf = None
            if with_notes:
                notes_page = context.new_page()
                notes_page.set_content(str(template_macros(template_env(), "export.html.j2").notes_pages(title, slides)))
                notes_pdf = PdfReader(BytesIO(notes_page.pdf(prefer_css_page_size=True, print_background=True)))
            for index, slide in enumerate(slides):
                page.goto(f"{source.as_uri()}#step={slide.step}&present=1", wait_until="load")
                page.wait_for_selector(".lt-viewer .lt-sline.lt-current", state="visible")
                page.wait_for_timeout(50)  # the present view settles its layout after the step is shown
                one = PdfReader(BytesIO(page.pdf(print_background=True, margin=NO_MARGIN, page_ranges="1", **size)))
                writer.add_page(one.pages[0])
                if notes_pdf is not None:
                    writer.add_page(notes_pdf.pages[index])
        finally:
            browser.close()
    out = BytesIO()
    writer.write(out)
    return out.getvalue()


def pdf_bytes(site_dir: Path, page: Path, layout: str, *, trace: Any, notes_file: Path | None) -> bytes:
    """The PDF of the built lecture page ``page`` in ``layout`` (``book`` or ``slides``)."""
    title = trace["lecture"].get("title") or trace["lecture"]["name"]
    if layout == "book":
        return print_book(book_html(site_dir, page), title)
    slides = slide_steps(trace)
    if notes_file is not None:
        notes_on(slides, notes_file)
    # the theme's @page margins would shrink the present view into the middle of the slide
    slides_html = single_file_html(site_dir, page).replace("</head>", "<style>@page { margin: 0 }</style>\n</head>", 1)
    return print_slides(slides_html, slides, title, with_notes=notes_file is not None)
