"""Math without JavaScript: a Markdown extension turning ``$...$`` and ``$$...$$`` into MathML.

LaTeX is converted at build time with ``latex2mathml``, so formulas show in any modern browser
with no script and no CDN. Inline math is ``$x^2$`` (no space just inside the dollars, and a
closing ``$`` not followed by a digit, so "costs $5 and $10" stays prose); display math is
``$$...$$``, on its own or inline. ``\\$`` is a literal dollar. Code spans and fenced code are
left alone. Use it in mkdocs.yml as ``tracer.site.markdown_ext.mathml`` or from Python via ``render_markdown``.
This module must not read traces or files.
"""

from __future__ import annotations

import html
import re
from typing import Any

import markdown
from latex2mathml.converter import convert
from markdown.extensions import Extension
from markdown.inlinepatterns import InlineProcessor

DISPLAY_MATH = r"(?<!\\)\$\$(.+?)\$\$"
INLINE_MATH = r"(?<![\\$\w])\$(?=\S)([^$\n]*?[^\s\\$])\$(?![\d$])"


def latex_to_mathml(latex: str, *, display: bool) -> str:
    """MathML for ``latex``; on a LaTeX error, the source in a marked-up span (never an exception)."""
    try:
        return convert(latex.strip(), display="block" if display else "inline")
    except Exception as exc:  # latex2mathml raises many kinds of errors on bad input
        return f'<code class="lt-math-error" title="{html.escape(f"cannot render math: {exc}")}">{html.escape(latex)}</code>'


class _MathProcessor(InlineProcessor):
    def __init__(self, pattern: str, md: markdown.Markdown, display: bool) -> None:
        super().__init__(pattern, md)
        self.display = display

    def handleMatch(self, m: re.Match[str], data: str) -> tuple[Any, int, int]:  # noqa: N802 (Markdown API)
        mathml = latex_to_mathml(m.group(1), display=self.display)
        if self.display:
            mathml = f'<div class="lt-math-display">{mathml}</div>'
        return self.md.htmlStash.store(mathml), m.start(0), m.end(0)


class _EscapedDollar(InlineProcessor):
    def handleMatch(self, m: re.Match[str], data: str) -> tuple[Any, int, int]:  # noqa: N802
        return "$", m.start(0), m.end(0)


class MathMLExtension(Extension):
    """Registers the math patterns just after code spans (190) and before escapes (180)."""

    def extendMarkdown(self, md: markdown.Markdown) -> None:  # noqa: N802 (Markdown API)
        md.inlinePatterns.register(_MathProcessor(DISPLAY_MATH, md, display=True), "lt_math_display", 187)
        md.inlinePatterns.register(_MathProcessor(INLINE_MATH, md, display=False), "lt_math_inline", 186)
        md.inlinePatterns.register(_EscapedDollar(r"\\\$", md), "lt_escaped_dollar", 185)


def makeExtension(**kwargs: Any) -> MathMLExtension:  # noqa: N802 (Markdown's loader looks for this name)
    return MathMLExtension(**kwargs)


MARKDOWN_EXTENSIONS = ["tables", "fenced_code", "admonition", "attr_list", "md_in_html", "sane_lists"]


def render_markdown(text: str) -> str:
    """Markdown (with math) to sanitized HTML (``tracer.site.markdown_ext.sanitize``), for fragments rendered outside MkDocs."""
    from tracer.site.markdown_ext.sanitize import SanitizeExtension

    md = markdown.Markdown(extensions=[*MARKDOWN_EXTENSIONS, MathMLExtension(), SanitizeExtension()])
    return md.convert(text)
