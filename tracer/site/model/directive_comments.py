"""Where directive comments start in a lecture's source, so the page can leave them out.

``# @inspect x`` and friends are instructions to the tracer, not prose for the reader: the page's
code hides them (step mode's raw view shows them). ``directive_cuts(source)`` maps a line number to
the column where its hidden part starts: the whole comment (and the spaces before it) when the
comment holds only directives, else the first directive after the author's prose
(``x = f()  # the count @inspect x`` keeps ``# the count``). Only the tracer's own directive names
count, so ``# email me @alice`` stays. This module must not render anything: it only finds columns.
"""

from __future__ import annotations

import io
import tokenize

from tracer.contract.source_facts import DIRECTIVE_NAMES, DIRECTIVE_TOKEN  # the tracer's own names and token rule


def comment_cut(comment: str) -> int | None:
    """Offset in ``comment`` (which starts with ``#``) where its directives start; None if it has none.

    0 means the whole comment is directives.
    """
    body = comment.lstrip("#").lstrip()
    match = next((m for m in DIRECTIVE_TOKEN.finditer(body) if m.group(1) in DIRECTIVE_NAMES), None)
    if match is None:
        return None
    prose = comment[: len(comment) - len(body) + match.start()].rstrip().rstrip(",").rstrip()
    return 0 if prose.lstrip("#").strip() == "" else len(prose)


def directive_cuts(source: str) -> dict[int, int]:
    """Line number -> column where the line's directive comment (to be hidden) starts.

    Comments are found with ``tokenize``, so a ``#`` inside a string is never taken for one. For a
    comment that is all directives the cut also takes the whitespace before it.
    """
    cuts: dict[int, int] = {}
    lines = source.splitlines()
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return cuts  # unparsable source: show it as written
    for token in tokens:
        if token.type != tokenize.COMMENT:
            continue
        offset = comment_cut(token.string)
        if offset is None:
            continue
        line, column = token.start
        column += offset
        if offset == 0 and line <= len(lines):
            column = len(lines[line - 1][:column].rstrip())
        cuts[line] = column
    return cuts
