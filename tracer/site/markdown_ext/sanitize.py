"""What lecture authors write never runs as script in a reader's page: the one place that decides it.

Two rules, used by every path from lecture text to a page:

* ``clean_html``: an allowlist sanitizer (``nh3``, the binding to the Ammonia crate) for the HTML
  that Markdown makes of ``text()``/``note()`` prose. Only the tags in ``ALLOWED_TAGS`` (prose
  formatting, tables, images, links, ``<details>``, and the MathML elements ``$math$`` turns into)
  and the attributes in ``ALLOWED_ATTRIBUTES`` survive; everything else is dropped (``<script>``
  and ``<style>`` with their content; any other unknown tag keeps its text). No event-handler
  attribute is on the list; ``href``/``src`` keep only ``URL_SCHEMES`` or scheme-less URLs
  (relative paths, ``#fragments``); ``style`` keeps only ``STYLE_PROPERTIES`` (no positioning).
  Comments stay: the read page's ``<!--lt-slot:N-->`` markers must reach ``read_page.fill_slots``.
* ``safe_url``: the same URL rule for a URL a lecture hands over as a string (``link(url)``,
  ``image(url)``), which templates put into an attribute (autoescaped, so it is one attribute value).

``content_security_policy`` is the second line, for the lecture pages: a policy that lets only the
site's own script files and the page's own inline scripts (by hash: the theme's and the viewer's)
run, so an inline event handler or a ``javascript:`` URL that got past everything else is refused
by the browser.

The Markdown extension (``tracer.site.markdown_ext.sanitize`` in ``markdown_extensions``, added by the plugin to
every MkDocs page, and used by ``mathml.render_markdown`` for the step viewer's fragments) runs
``clean_html`` last, after the stashed raw HTML and the MathML are back in the text. Trusted
markup (cards, code, slots) is put in after it and never passes through it. This module only
rewrites text; it must not read files or know page layout.
"""

from __future__ import annotations

import base64
import hashlib
import re
from typing import Any

import markdown
import nh3
from markdown.extensions import Extension
from markdown.postprocessors import Postprocessor

URL_SCHEMES = frozenset({"http", "https", "mailto"})

_MATHML_TAGS = {
    "math",
    "semantics",
    "annotation",
    "menclose",
    "merror",
    "mfrac",
    "mi",
    "mmultiscripts",
    "mn",
    "mo",
    "mover",
    "mpadded",
    "mphantom",
    "mprescripts",
    "mroot",
    "mrow",
    "ms",
    "mspace",
    "msqrt",
    "mstyle",
    "msub",
    "msubsup",
    "msup",
    "mtable",
    "mtd",
    "mtext",
    "mtr",
    "munder",
    "munderover",
    "none",
}
_MATHML_ATTRIBUTES = {
    "display",
    "xmlns",
    "mathvariant",
    "mathcolor",
    "mathbackground",
    "mathsize",
    "displaystyle",
    "scriptlevel",
    "stretchy",
    "fence",
    "separator",
    "separators",
    "lspace",
    "rspace",
    "accent",
    "accentunder",
    "largeop",
    "movablelimits",
    "symmetric",
    "minsize",
    "maxsize",
    "form",
    "linethickness",
    "columnalign",
    "rowalign",
    "columnspacing",
    "rowspacing",
    "columnlines",
    "rowlines",
    "columnspan",
    "rowspan",
    "frame",
    "width",
    "height",
    "depth",
    "voffset",
    "notation",
    "open",
    "close",
}
ALLOWED_TAGS = frozenset(
    {
        "a",
        "abbr",
        "b",
        "bdi",
        "bdo",
        "blockquote",
        "br",
        "caption",
        "cite",
        "code",
        "col",
        "colgroup",
        "dd",
        "del",
        "details",
        "dfn",
        "div",
        "dl",
        "dt",
        "em",
        "figcaption",
        "figure",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "i",
        "img",
        "ins",
        "kbd",
        "li",
        "mark",
        "ol",
        "p",
        "pre",
        "q",
        "rp",
        "rt",
        "ruby",
        "s",
        "samp",
        "small",
        "span",
        "strong",
        "sub",
        "summary",
        "sup",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "time",
        "tr",
        "u",
        "ul",
        "var",
        "wbr",
        *_MATHML_TAGS,
    }
)
ALLOWED_ATTRIBUTES: dict[str, set[str]] = {
    "*": {"class", "title", "lang", "dir", "style"},
    # ids only where Markdown puts them (headings for the table of contents, footnotes): an id on
    # any element could shadow a global the page's scripts read (DOM clobbering)
    **{tag: {"id"} for tag in ("h1", "h2", "h3", "h4", "h5", "h6", "sup")},
    "a": {"href"},
    "img": {"src", "alt", "width", "height", "loading"},
    "ol": {"start", "reversed", "type"},
    "li": {"value", "id"},
    "td": {"colspan", "rowspan", "align"},
    "th": {"colspan", "rowspan", "align", "scope"},
    "col": {"span"},
    "details": {"open"},
    "time": {"datetime"},
    **{tag: set(_MATHML_ATTRIBUTES) for tag in _MATHML_TAGS},
}
# Layout and colour only: nothing that can lift an element over the page (position, z-index) or fetch.
STYLE_PROPERTIES = frozenset(
    {
        "color",
        "background-color",
        "font-weight",
        "font-style",
        "font-size",
        "font-family",
        "font-variant",
        "text-align",
        "text-decoration",
        "text-transform",
        "vertical-align",
        "white-space",
        "line-height",
        "width",
        "max-width",
        "min-width",
        "height",
        "max-height",
        "min-height",
        "margin",
        "margin-top",
        "margin-right",
        "margin-bottom",
        "margin-left",
        "padding",
        "padding-top",
        "padding-right",
        "padding-bottom",
        "padding-left",
        "border",
        "border-top",
        "border-right",
        "border-bottom",
        "border-left",
        "border-color",
        "border-style",
        "border-width",
        "border-radius",
        "border-collapse",
        "display",
        "opacity",
        "list-style-type",
    }
)


def clean_html(html: str) -> str:
    """``html`` with everything not on the allowlists removed (see the module docstring)."""
    return nh3.clean(
        html,
        tags=set(ALLOWED_TAGS),
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=set(URL_SCHEMES),
        strip_comments=False,
        link_rel=None,
        clean_content_tags={"script", "style"},
        filter_style_properties=set(STYLE_PROPERTIES),
    )


# What a browser drops before reading a URL's scheme: leading/trailing C0 controls and spaces,
# and ASCII tab or newline anywhere ("jav\tascript:" is "javascript:").
_STRIPPED = re.compile(r"[\t\n\r]")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")


def safe_url(url: str) -> str:
    """``url`` if following it only navigates (http, https, mailto, or no scheme: a relative path or
    a fragment), else ""."""
    normalized = _STRIPPED.sub("", url).strip("".join(chr(c) for c in range(0x21)))
    scheme = _SCHEME.match(normalized)
    return url if scheme is None or scheme.group(1).lower() in URL_SCHEMES else ""


_INLINE_SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script\s*>", re.S | re.I)


def content_security_policy(page_html: str) -> str:
    """The policy for one finished page: scripts from the site's own origin and the page's inline
    scripts, each by its sha256 (so no ``'unsafe-inline'``: event-handler attributes and
    ``javascript:`` URLs are blocked); no plugins; no ``<base>`` elsewhere."""
    hashes = sorted(
        {
            "'sha256-" + base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode("ascii") + "'"
            for attrs, body in _INLINE_SCRIPT.findall(page_html)
            if not re.search(r"\bsrc\s*=", attrs) and "application/json" not in attrs.lower()
        }
    )
    return " ".join(["script-src", "'self'", *hashes]) + "; object-src 'none'; base-uri 'self'"


def csp_meta(page_html: str) -> str:
    """``<meta http-equiv="Content-Security-Policy">`` for ``page_html`` (put it first in <head>)."""
    return f'<meta http-equiv="Content-Security-Policy" content="{content_security_policy(page_html)}">'


class _Sanitize(Postprocessor):
    def run(self, text: str) -> str:
        return clean_html(text)


class SanitizeExtension(Extension):
    def extendMarkdown(self, md: markdown.Markdown) -> None:  # noqa: N802 (Markdown API)
        # Last: after raw_html (priority 30) has put the stashed raw HTML blocks and MathML back.
        md.postprocessors.register(_Sanitize(md), "lt_sanitize", 1)


def makeExtension(**kwargs: Any) -> SanitizeExtension:  # noqa: N802 (Markdown's loader looks for this name)
    return SanitizeExtension(**kwargs)
