"""code(), diff(), columns(), callout() and image focus as the site draws them (prose_blocks + cards.html.j2)."""

from __future__ import annotations

import re

import pytest

from tracer.site.cards.prose_blocks import diff_view, focus_view
from tracer.site.cards.render import HtmlRenderer
from tracer.site.cards.templates import template_env

MAIN = "lectures/demo.py"


@pytest.fixture
def renderer():
    trace = {"lecture": {"name": "demo", "path": MAIN, "title": "Demo"}, "files": {MAIN: "x = 1\n"}, "steps": []}
    return HtmlRenderer(trace, template_env())  # type: ignore[arg-type]


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", str(html))).strip()


def test_code_is_highlighted_in_its_language_line_by_line_and_escaped(renderer):
    html = str(renderer.rendering({"type": "code", "data": 'int main() {\n  puts("<b>");\n}', "language": "c", "caption": "a.c"}))
    assert '<span class="kt">int</span>' in html  # C's types are coloured, so C was the lexer
    assert "&lt;b&gt;" in html and "<b>" not in html
    code = re.search(r"<code>(.*)</code>", html, re.S).group(1)  # type: ignore[union-attr]
    assert len(code.split("\n")) == 3  # one line of text per source line
    assert "<figcaption>a.c</figcaption>" in html


def test_code_in_a_language_this_pygments_lacks_shows_as_plain_text(renderer):
    html = str(renderer.rendering({"type": "code", "data": "a < b", "language": "no-such-language"}))
    assert "a &lt; b" in html and "<span" not in html


def test_a_diff_lists_kept_removed_and_added_lines_in_order():
    view = diff_view({"type": "diff", "a": "keep\nold\nend", "b": "keep\nnew\nnewer\nend", "before": "v1", "after": "v2"})
    assert [(row["op"], row["html"]) for row in view["rows"]] == [
        ("same", "keep"),
        ("del", "old"),
        ("ins", "new"),
        ("ins", "newer"),
        ("same", "end"),
    ]
    assert (view["removed"], view["added"]) == (1, 2)
    assert [(row["old"], row["new"]) for row in view["rows"]] == [(1, 1), (2, None), (None, 2), (None, 3), (3, 4)]


def test_a_diff_says_which_lines_changed_in_words_and_signs_not_colour_alone(renderer):
    html = str(
        renderer.rendering({"type": "diff", "a": "x = 1\n", "b": "x = 2\n", "language": "python", "before": "v1", "after": "v2"})
    )
    removed = re.search(r"<del[^>]*>(.*?)</del>", html).group(1)  # type: ignore[union-attr]
    added = re.search(r"<ins[^>]*>(.*?)</ins>", html).group(1)  # type: ignore[union-attr]
    assert text_of(removed) == "-removed: x = 1" and text_of(added) == "+added: x = 2"
    assert 'class="lt-visually-hidden">removed: ' in removed and '<span class="mi">1</span>' in removed
    assert "v1 → v2" in text_of(html) and "1 line removed, 1 added" in text_of(html)


def test_two_equal_texts_diff_to_no_change(renderer):
    html = str(renderer.rendering({"type": "diff", "a": "same", "b": "same", "before": "a", "after": "b"}))
    assert "<del" not in html and "<ins" not in html and "0 lines removed, 0 added" in text_of(html)


def test_columns_render_each_cell_as_sanitized_markdown_in_the_widths_given(renderer):
    html = str(
        renderer.rendering({"type": "columns", "cells": ["**left**", "right <script>alert(1)</script>"], "widths": [2, 1]})
    )
    assert html.count('class="lt-column"') == 2
    assert "<strong>left</strong>" in html and "<script" not in html
    assert "--lt-columns: minmax(0, 2fr) minmax(0, 1fr)" in html
    equal = str(renderer.rendering({"type": "columns", "cells": ["a", "b", "c"]}))
    assert "--lt-columns: minmax(0, 1fr) minmax(0, 1fr) minmax(0, 1fr)" in equal


@pytest.mark.parametrize("tone, label", [("info", "Info"), ("tip", "Tip"), ("warning", "Warning"), ("danger", "Danger")])
def test_a_callout_names_its_tone_in_words(renderer, tone, label):
    html = str(renderer.rendering({"type": "callout", "data": "Mind **this**.", "tone": tone, "title": "<i>Shapes</i>"}))
    assert f'class="lt-callout lt-callout-{tone}" role="note"' in html
    assert f'<b class="lt-callout-label">{label}</b>' in html
    assert "&lt;i&gt;Shapes&lt;/i&gt;" in html and "<strong>this</strong>" in html


def test_a_callout_of_an_unknown_tone_reads_as_info(renderer):
    html = str(renderer.rendering({"type": "callout", "data": "x", "tone": "loud"}))  # type: ignore[typeddict-item]
    assert "lt-callout-info" in html and "Info" in html


FOCUSED = {
    "type": "image",
    "data": "lectures/images/grid.png",
    "external": False,
    "width": None,
    "alt": "a grid",
    "caption": "The red block",
    "pixels": [240, 160],
    "focus": [120.0, 20.0, 120.0, 120.0],
    "markers": [{"x": 180.0, "y": 40.0, "label": "top"}, {"x": 180.0, "y": 120.0, "label": "bottom <edge>"}],
}


def test_focus_places_the_whole_image_so_that_the_region_fills_the_frame():
    view = focus_view(FOCUSED)  # type: ignore[arg-type]
    assert view is not None
    # the frame is the region's shape; the image is twice its width, shifted left by its x and up by its y
    assert (view["ratio"], view["img_width"], view["img_left"], view["img_top"]) == ("120 / 120", "200%", "-100%", "-16.67%")
    assert [(m["left"], m["top"]) for m in view["markers"]] == [("50%", "16.67%"), ("50%", "83.33%")]
    whole = focus_view({**FOCUSED, "focus": None})  # type: ignore[arg-type]
    assert whole is not None and (whole["ratio"], whole["img_width"], whole["img_left"]) == ("240 / 160", "100%", "0%")
    assert focus_view({k: v for k, v in FOCUSED.items() if k not in ("focus", "markers")}) is None  # type: ignore[arg-type]


def test_markers_are_numbers_on_the_image_and_a_numbered_list_for_screen_readers(renderer):
    html = str(renderer.rendering(FOCUSED))  # type: ignore[arg-type]
    assert html.count('<span class="lt-marker" aria-hidden="true"') == 2
    assert re.findall(r'aria-hidden="true" style="[^"]*">(\d)</span>', html) == ["1", "2"]
    assert '<ol class="lt-marker-list"><li>top</li><li>bottom &lt;edge&gt;</li></ol>' in html
    assert 'alt="a grid"' in html and "aspect-ratio: 120 / 120" in html


def test_an_image_without_a_published_file_shows_no_focus(renderer):
    missing = {**FOCUSED, "data": "https://example.org/x.png", "external": True, "missing": True}
    html = str(renderer.rendering(missing))  # type: ignore[arg-type]
    assert "lt-focus" not in html and "not available" in html


def test_the_blocks_words_come_from_the_courses_language():
    from tracer.site.cards.interface_strings import load

    trace = {"lecture": {"name": "demo", "path": MAIN, "title": "Demo"}, "files": {MAIN: "x = 1\n"}, "steps": []}
    zh = HtmlRenderer(trace, template_env(strings=load("zh-Hans")))  # type: ignore[arg-type]
    assert '<b class="lt-callout-label">警告</b>' in str(zh.rendering({"type": "callout", "data": "x", "tone": "warning"}))
    diff = str(zh.rendering({"type": "diff", "a": "a\nb", "b": "a\nc\nd", "before": "v1", "after": "v2"}))
    assert "删除：" in diff and "新增：" in diff and "删除 1 行，新增 2 行" in text_of(diff)
    titled = str(zh.rendering({"type": "callout", "data": "x", "tone": "tip", "title": "<b>形状</b>"}))
    assert '<span class="lt-callout-title">：&lt;b&gt;形状&lt;/b&gt;</span>' in titled
