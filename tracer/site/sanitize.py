"""A Markdown extension that keeps raw HTML in lecture prose from running script in the reader's page.

Markdown lets prose carry raw HTML, and lectrace keeps that (``<b>``, ``<sub>``, ``<details>`` are
fine in ``text()``). What must never reach a page from lecture text is active content: ``<script>``,
``<iframe>``, ``<object>``, ``<embed>``, ``<base>``, ``<meta>`` tags and ``on…=`` event-handler
attributes. After Markdown has converted the text (so code spans and blocks, already escaped, are
untouched) the opening ``<`` of each such tag left in the HTML is written as ``&lt;``, so the tag
shows as text. The plugin adds this extension to every MkDocs page and
``mathml.render_markdown`` to the step viewer's fragments. It only rewrites text; it must not
parse or render anything else.
"""

from __future__ import annotations

import re
from typing import Any

import markdown
from markdown.extensions import Extension
from markdown.postprocessors import Postprocessor

_ACTIVE_TAG = re.compile(r"<(?=/?\s*(?:script|iframe|object|embed|base|meta)\b)", re.I)
# A start tag with an event-handler attribute (onload=, onerror=, ...): its "<" is escaped.
_HANDLER_TAG = re.compile(r"<(?=[a-zA-Z][^<>]*?\son[a-zA-Z]+\s*=)")


def inert(text: str) -> str:
    """``text`` with the ``<`` of every active tag escaped."""
    if "<" not in text:
        return text
    return _HANDLER_TAG.sub("&lt;", _ACTIVE_TAG.sub("&lt;", text))


class _InertHtml(Postprocessor):
    def run(self, text: str) -> str:
        return inert(text)


class InertHtmlExtension(Extension):
    def extendMarkdown(self, md: markdown.Markdown) -> None:  # noqa: N802 (Markdown API)
        # Last: after raw_html (priority 30) has put the stashed raw HTML blocks back.
        md.postprocessors.register(_InertHtml(md), "lt_inert_html", 1)


def makeExtension(**kwargs: Any) -> InertHtmlExtension:  # noqa: N802 (Markdown's loader looks for this name)
    return InertHtmlExtension(**kwargs)
