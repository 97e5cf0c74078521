"""Read mode: turn a lecture's document (``page_model``) into page Markdown plus HTML slots.

``text()`` and ``note()`` renderings become real Markdown, so MkDocs builds the table of contents
from their headings and search indexes the prose. Everything else (highlighted code, value cards,
images, compute and error cards) is HTML rendered by ``HtmlRenderer`` and the Jinja macros; it
is kept out of the Markdown as a ``<!--lt-slot:NONCE:N-->`` comment and put back into the converted
page by ``fill_slots``, so Markdown never rewrites it. NONCE is new for every page built: text an
author writes cannot name a slot, so prose shaped like a marker stays prose (a comment). Storage drawings that several cards show are
held once at the end of the page (``<use>``d by the cards), and heavy annotation bodies are "lazy"
(see ``page_parts.html.j2``), so a long lecture starts with a small DOM. This module must not touch
files or MkDocs.
"""

from __future__ import annotations

import ast
import re
import secrets
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import jinja2
from markupsafe import Markup

from tracer.site.cards.kinds.tensors import diagram_key

from tracer.site.cards.render import HtmlRenderer

from tracer.site.cards.templates import ROOT, line_anchor, template_macros
from tracer.site.model.directive_comments import directive_cuts
from tracer.site.model.line_records import LineRecord
from tracer.site.model.page_model import MAX_RENDERINGS_PER_LINE, Annotation, CodeBlock, build_document, paragraph_groups
from tracer.site.pages.rank_cards import RankCards
from tracer.contract.source_facts import CALL_CHOICES, parse_directive_comment, source_facts
from tracer.contract.trace_format import Rendering, Trace

LAZY_MIN_CHARS = 1200  # annotation bodies longer than this (tensor cards) are put in place by assets/read.js
LINE_PX = 17  # rendered height per line of a body's markup, on average (measured on lecture_02)
ONE_LINE_PX = 30  # an annotation body of one line (a scalar card); site.css takes it as --lt-h's default
DRAWING_HEIGHT = re.compile(r'<svg class="lt-stride-svg"[^>]* height="(\d+)"')


@dataclass
class ReadPage:
    markdown: str  # page Markdown: prose from text()/note() and slot comments
    slots: list[Markup] = field(default_factory=list)  # HTML for each slot, image/link URLs start with {root}
    nonce: str = field(default_factory=lambda: secrets.token_hex(8))  # this page's slot markers, unguessable

    def slot(self, html: str) -> str:
        self.slots.append(Markup(html))
        return f"<!--lt-slot:{self.nonce}:{len(self.slots) - 1}-->"


def note_markdown(text: str) -> str:
    """A note() as a Markdown admonition (indented body)."""
    body = "\n".join(("    " + line) if line.strip() else "" for line in text.splitlines())
    return "!!! note\n\n" + body


def _plain_markdown(rendering: Rendering) -> bool:
    return rendering.get("type") == "markdown" and not rendering.get("verbatim") and not rendering.get("style")


def _step_groups(renderings: list[tuple[int, Rendering]]) -> list[tuple[int, list[Rendering]]]:
    """(step, group) in order: each step's renderings split by ``page_model.paragraph_groups``."""
    by_step: list[tuple[int, list[Rendering]]] = []
    for step, rendering in renderings:
        if by_step and by_step[-1][0] == step:
            by_step[-1][1].append(rendering)
        else:
            by_step.append((step, [rendering]))
    return [(step, group) for step, same_step in by_step for group in paragraph_groups(same_step)]


def _paragraph_markdown(group: list[Rendering], page: ReadPage, renderer: HtmlRenderer) -> str:
    """One paragraph of prose and links: the prose stays Markdown, each link an inline slot."""
    if all(r.get("type") == "link" for r in group):
        # nothing for Markdown to wrap: the slot brings its own paragraph
        return page.slot(renderer.paragraph(group))
    return " ".join(r["data"].strip() if r.get("type") == "markdown" else page.slot(renderer.inline(r)) for r in group)


@dataclass(frozen=True)
class ShownValues:
    """Which run's values a line's annotation shows: ``env`` (name -> (step, value)), the step its
    link opens, and whether they are the first call's of a function that was called again."""

    env: dict[str, tuple[int, Any]]
    step: int
    first_call: bool


def shown_values(record: LineRecord, last_call: bool) -> ShownValues:
    """A helper's line (its function called more than once) shows the values of the first call, in
    the section where the prose introduces that call (page_model places it there), unless the line
    asks for the last (``# @inspect x call=last``); any other line, those of its last run."""
    if record.first_call_runs and record.runs > record.first_call_runs and not last_call:
        return ShownValues(record.first_call_env, record.first_call_step, True)
    return ShownValues(record.env, record.last_step if record.last_step >= 0 else record.first_step, False)


def last_call_lines(source: str) -> frozenset[int]:
    """Lines whose ``@inspect`` asks for the last call's values (``call=last``)."""
    lines = source.splitlines()
    found = set()
    for line, column in directive_cuts(source).items():
        found_args = parse_directive_comment("#" + lines[line - 1][column:].lstrip().lstrip("#"))[0].get("inspect", [])
        if f"call={CALL_CHOICES[1]}" in found_args:
            found.add(line)
    return frozenset(found)


def shared_diagrams(blocks: list[Any], last_calls: frozenset[int] = frozenset()) -> dict[tuple[Any, ...], str]:
    """Storage drawings more than one card of the page shows (diagram_key -> element id)."""
    counts: Counter[tuple[Any, ...]] = Counter()
    for block in blocks:
        if isinstance(block, Annotation):
            env = shown_values(block.record, block.record.line in last_calls).env
            counts.update(key for _step, value in env.values() if (key := diagram_key(value)) is not None)
    return {key: f"lt-sd-{k}" for k, key in enumerate(key for key, n in counts.items() if n > 1)}


WARNING_LINE = re.compile(r"^[^\n:]+:\d+: ([A-Za-z_][\w.]*Warning): (.+)$", re.M)


def warning_summary(stderr: str) -> str:
    """What a folded warning says before it is opened: ``Category: message (from LIBRARY)`` of the
    first warning in ``stderr`` (as the tracer writes a library's warning), and how many more; ""
    when ``stderr`` does not start with a warning (it is then shown open)."""
    first = WARNING_LINE.match(stderr)
    if first is None:
        return ""
    more = len(WARNING_LINE.findall(stderr)) - 1
    return f"{first.group(1)}: {first.group(2)}" + (f" (and {more} more)" if more else "")


def estimated_height_px(body: str) -> int:
    """A guess of an annotation body's rendered height, for its placeholder before it is rendered:
    the templates put about one line of text per source line, and storage drawings say their height."""
    drawings = sum(int(h) for h in DRAWING_HEIGHT.findall(body))
    return ONE_LINE_PX + LINE_PX * body.count("\n") + drawings


def build_read_page(trace: Trace, renderer: HtmlRenderer, env: jinja2.Environment) -> ReadPage:
    """The Markdown and slots of one lecture page."""
    page = ReadPage(markdown="")
    macros = template_macros(env, "page_parts.html.j2")
    main = trace["lecture"]["path"]
    code = renderer.code_lines(main)
    one_line_loops = _one_line_loops(trace["files"].get(main, ""))
    ranked = RankCards(trace, env, renderer.heatmaps) if trace.get("ranks") else None
    parts: list[str] = []
    blocks = build_document(trace)
    last_calls = last_call_lines(trace["files"].get(main, ""))
    shared = shared_diagrams(blocks, last_calls)
    for block in blocks:
        if isinstance(block, CodeBlock):
            lines = [
                {
                    "number": c.line,
                    "anchor": line_anchor(main, c.line, main),
                    "html": Markup(code[c.line - 1]),
                    "ran": c.ran,
                    "runs": c.runs,
                }
                for c in block.lines
            ]
            parts.append(page.slot(macros.code_block(lines)))
            continue
        assert isinstance(block, Annotation)
        record = block.record
        shown = shown_values(record, record.line in last_calls)
        renderings = record.renderings[:MAX_RENDERINGS_PER_LINE]
        for _step, group in _step_groups(renderings):
            if len(group) > 1 or group[0].get("type") == "link":
                parts.append(_paragraph_markdown(group, page, renderer))
                continue
            rendering = group[0]
            if _plain_markdown(rendering):
                parts.append(rendering["data"])
            elif rendering.get("type") == "note":
                parts.append(note_markdown(rendering["data"]))
            else:
                parts.append(page.slot(renderer.rendering(rendering)))
        if len(record.renderings) > len(renderings):
            parts.append(page.slot(macros.more_renderings(len(record.renderings) - len(renderings))))
        cards = [
            renderer.value(name, value, step_index=step, shared_diagrams=shared, exact_grids=False)
            for name, (step, value) in shown.env.items()
            if value.get("type") != "missing"  # an @inspect that named nothing: its warning says so, once
        ]
        if record.ranks is not None and ranked is not None:
            cards += ranked.line(record.ranks)  # every rank's values side by side, its collectives
        computes = [renderer.compute(record.compute[1])] if record.compute else []
        errors = [renderer.error(error) for _step, error in record.errors]
        if record.shows_something() or record.ranks is not None:
            body = str(
                macros.annotation_body(
                    cards=cards,
                    computes=computes,
                    errors=errors,
                    stdout=record.stdout,
                    stderr=record.stderr,
                    warning=warning_summary(record.stderr),
                )
            )
            parts.append(
                page.slot(
                    macros.annotation(
                        step=shown.step,
                        runs=record.runs,
                        first_call=shown.first_call,
                        one_line_loop=record.line in one_line_loops,
                        body=Markup(body),
                        lazy=len(body) > LAZY_MIN_CHARS,
                        height_px=estimated_height_px(body),
                        one_line_px=ONE_LINE_PX,
                    )
                )
            )
    if shared:
        parts.append(page.slot(renderer.diagram_defs(shared)))
    page.markdown = "\n\n".join(parts) + "\n"
    return page


def _one_line_loops(source: str) -> frozenset[int]:
    """Lines of loops written on one line (``for i in range(3): y = i``): the tracer records one step
    per line, so such a loop is one step, its values those after the last iteration."""
    facts = source_facts(source)
    return frozenset(
        line
        for line, node in facts.statements.items()
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)) and node.body and node.body[0].lineno == node.lineno
    )


def fill_slots(html: str, page: ReadPage, root: str) -> str:
    """Put ``page``'s slots back into the converted page, with ``{root}`` URLs made relative to it.
    Only markers with the page's nonce are slots."""
    slots = page.slots
    marker = f"<!--lt-slot:{re.escape(page.nonce)}:(\\d+)-->"

    def replace(match: re.Match[str]) -> str:
        index = int(match.group(1))
        return relative_urls(slots[index], root) if index < len(slots) else ""

    # Markdown may wrap a lone comment in a paragraph; take the paragraph away with it.
    html = re.sub(rf"<p>\s*({marker})\s*</p>", r"\1", html)
    return re.sub(marker, replace, html)


def relative_urls(html: str, root: str) -> str:
    """Replace the ``{root}`` placeholder at the start of src/href attributes."""
    html = str(html)  # Markup.replace would escape the quotes we put back
    return html.replace(f'src="{ROOT}', f'src="{root}').replace(f'href="{ROOT}', f'href="{root}')


# Where whitespace is content: left exactly as it is.
_KEEP_WHITESPACE = re.compile(r"(<(pre|textarea|script|noscript|style)\b.*?</\2>)", re.S | re.I)
_INDENT = re.compile(r"\n[ \t]+")


def compact_whitespace(html: str) -> str:
    """Drop the indentation after line breaks outside <pre>, <textarea>, <script>, <noscript> and
    <style>: the theme's templates indent deeply, and a line break followed by spaces renders as
    the line break alone (both are one collapsible space)."""
    parts = _KEEP_WHITESPACE.split(html)
    # split() with two groups yields: text, whole kept block, tag name, text, ...
    return "".join(part if k % 3 else _INDENT.sub("\n", part) for k, part in enumerate(parts) if k % 3 != 2)


def root_for(url: str) -> str:
    """Relative URL from a page URL (``lectures/x/``) to the site root (``../../``)."""
    return "../" * url.count("/") if url else "./"
