"""Highlighted code: a traced file's lines as Pygments-coloured HTML, one string per line.

Spans never cross a line, neighbouring tokens of one colour share a span, and directive comments
are kept, dropped or wrapped (``tracer.site.model.directive_comments`` says where they start).
This module must not know which page the lines go on.
"""

from __future__ import annotations

import html
from typing import Any

from pygments.lexer import Lexer
from pygments.lexers import PythonLexer, TextLexer, get_lexer_by_name
from pygments.token import STANDARD_TYPES
from pygments.util import ClassNotFound

from tracer.site.model.directive_comments import directive_cuts


def _token_class(ttype: Any) -> str:
    # Pygments' short class names ("k", "nf", ...); site.css colours them from Material's variables.
    while ttype not in STANDARD_TYPES:
        ttype = ttype.parent
    return STANDARD_TYPES[ttype]


def _span(css: str, text: str) -> str:
    escaped = html.escape(text, quote=False)
    return f'<span class="{css}">{escaped}</span>' if css else escaped


# Token classes site.css colours (by their first letters); other tokens (plain names, operators and
# punctuation, whitespace) are left as text: a span for each of those would be most of a long
# lecture page's elements and a third of its bytes. "ow" (and, or, not, in, is) are keywords.
COLOURED_TOKEN_PREFIXES = ("k", "s", "m", "c", "ow", "nf", "fm", "nc", "nn", "nb", "bp", "nd", "ne", "il", "dl")


def _coloured(css: str) -> bool:
    return css.startswith(COLOURED_TOKEN_PREFIXES)


def _lexer(language: str | None) -> Lexer:
    options = {"stripnl": False, "stripall": False, "ensurenl": False}
    if language == "python":
        return PythonLexer(**options)
    try:
        return get_lexer_by_name(language or "text", **options)
    except ClassNotFound:
        return TextLexer(**options)


def highlight_lines(source: str, directives: str = "keep", language: str | None = "python") -> list[str]:
    """Pygments-highlighted HTML for each line of ``source`` (spans never cross a line).

    Neighbouring tokens of one colour share a span and uncoloured tokens (plain names, whitespace)
    are plain text, to keep the element count of a long lecture's page down.
    ``directives`` says what happens to directive comments (``tracer.site.model.directive_comments``):
    ``"keep"`` them as written, ``"drop"`` them (read mode), or ``"wrap"`` them in
    ``<span class="lt-dir">`` for CSS to show only in raw mode (step mode). ``language`` is a
    Pygments name (``code()`` and ``diff()`` blocks, which keep directives); None, or a name this
    Pygments does not know, leaves the text plain.
    """
    lexer = _lexer(language)
    lines: list[list[tuple[str, str]]] = [[]]  # per line: [(class or "", text)]
    for ttype, text in lexer.get_tokens(source):
        css = _token_class(ttype)
        css = css if _coloured(css) else ""
        for k, part in enumerate(text.split("\n")):
            if k > 0:
                lines.append([])
            if not part:
                continue
            line = lines[-1]
            if line and line[-1][0] == css:
                line[-1] = (css, line[-1][1] + part)
            else:
                line.append((css, part))
    cuts = directive_cuts(source) if directives != "keep" else {}
    out = []
    for number, parts in enumerate(lines, start=1):
        cut = cuts.get(number)
        if cut is None:
            out.append("".join(_span(css, text) for css, text in parts))
            continue
        shown, hidden, column = [], [], 0
        for css, text in parts:
            if column + len(text) <= cut:
                shown.append(_span(css, text))
            elif column >= cut:
                hidden.append(_span(css, text))
            else:
                shown.append(_span(css, text[: cut - column]))
                hidden.append(_span(css, text[cut - column :]))
            column += len(text)
        if directives == "wrap" and hidden:
            shown.append('<span class="lt-dir">' + "".join(hidden) + "</span>")
        out.append("".join(shown))
    count = len(source.splitlines())
    return (out + [""] * count)[:count]
