"""Attack strings from the well-known XSS filter-evasion classes (a Hypothesis strategy) and a check,
with a real HTML parser, that none of them is live in the HTML a page or fragment holds.

The classes: event handlers behind odd separators (``<svg/onload=…>``, tabs, form feeds, quotes,
backticks, mixed case), ``javascript:`` and other script URLs in every spelling a browser accepts
(entities, embedded tabs and newlines, leading spaces and controls, mixed case) in Markdown links,
reference definitions, autolinks, images and raw tags; attribute lists (``{onclick=…}``); active
tags (script, iframe, object, embed, base, meta refresh, form actions); parser confusion (comments,
``<noscript>``, MathML/SVG namespace breakouts, unclosed tags). Every payload calls ``alert(1337)``
so a page's own scripts are told apart from an injected one.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from hypothesis import strategies as st

MARKER = "alert(1337)"
SCRIPT_URL = st.sampled_from(
    [
        "javascript:alert(1337)",
        "JaVaScRiPt:alert(1337)",
        " javascript:alert(1337)",
        "\tjavascript:alert(1337)",
        "jav&#x09;ascript:alert(1337)",
        "jav&#9;ascript:alert(1337)",
        "&#106;avascript:alert(1337)",
        "&#x6A;&#x61;&#x76;&#x61;&#x73;&#x63;&#x72;&#x69;&#x70;&#x74;&#x3A;alert(1337)",
        "javascript&colon;alert(1337)",
        "java\nscript:alert(1337)",
        "\x01javascript:alert(1337)",
        "vbscript:alert(1337)",
        "data:text/html,<script>alert(1337)</script>",
        "data:text/html;base64,PHNjcmlwdD5hbGVydCgxMzM3KTwvc2NyaXB0Pg==",
        "javascript://%0aalert(1337)",
    ]
)
HANDLER = st.sampled_from(
    [
        "onerror",
        "onload",
        "onclick",
        "onmouseover",
        "ontoggle",
        "onfocus",
        "onbegin",
        "OnErRoR",
        "ONLOAD",
        "onanimationstart",
        "onpointerenter",
    ]
)
TAG = st.sampled_from(
    [
        "img",
        "svg",
        "a",
        "div",
        "details",
        "body",
        "video",
        "input",
        "math",
        "IMG",
        "sVg",
        "p",
        "iframe",
        "marquee",
        "select",
        "textarea",
        "style",
        "audio",
        "object",
    ]
)
SEPARATOR = st.sampled_from([" ", "/", "\t", "\n", "\x0c", "/ /", " /", "  "])
QUOTE = st.sampled_from(["", "'", '"', "`"])


@st.composite
def handler_tag(draw) -> str:
    tag, sep, handler, quote = draw(TAG), draw(SEPARATOR), draw(HANDLER), draw(QUOTE)
    close = quote if quote != "`" else "`"
    extra = draw(st.sampled_from(["", " src=x", " open", " autofocus", " tabindex=1", ' style="animation-name:x"']))
    return f"<{tag}{extra}{sep}{handler}{draw(st.sampled_from(['=', ' = ', '  =']))}{quote}{MARKER}{close}>x</{tag}>"


@st.composite
def url_context(draw) -> str:
    url = draw(SCRIPT_URL)
    form = draw(
        st.sampled_from(
            [
                "[click]({u})",
                "[click][ref]\n\n[ref]: {u}",
                "![img]({u})",
                "<{u}>",
                '<a href="{u}">click</a>',
                "<a href='{u}'>click</a>",
                "<a href={u}>click</a>",
                '<img src="{u}">',
                '<iframe src="{u}"></iframe>',
                '<form action="{u}"><button>go</button></form>',
                '<button formaction="{u}">go</button>',
                '<svg><a xlink:href="{u}"><text>click</text></a></svg>',
                '<math><mtext><a href="{u}">m</a></mtext></math>',
                '<object data="{u}"></object>',
                '<embed src="{u}">',
                '<base href="{u}">',
                '<meta http-equiv="refresh" content="0;url={u}">',
                '[click]({u} "title")',
                "[click](<{u}>)",
            ]
        )
    )
    return form.replace("{u}", url)


BREAKOUT = st.sampled_from(
    [
        "<script>alert(1337)</script>",
        "<SCRIPT SRC=//x.example/alert(1337).js></SCRIPT>",
        "<scr<script>ipt>alert(1337)</script>",
        "<!--><img src=x onerror=alert(1337)>-->",
        '<noscript><p title="</noscript><img src=x onerror=alert(1337)>"></noscript>',
        "<math><mtext><table><mglyph><style><img src=x onerror=alert(1337)>",
        "<svg><style><img src=x onerror=alert(1337)></style></svg>",
        "<img src=x onerror=alert(1337)//",
        'paragraph\n{: onclick="alert(1337)" }',
        "## heading {: onmouseover=alert(1337) }",
        '<div markdown="1" onclick="alert(1337)">*md*</div>',
        "<x onclick=alert(1337)>x</x>",
        "`code` <img src=`x` onerror=alert(1337)>",
        "<<img src=x onerror=alert(1337)>",
        '<a href="#" onclick="alert(1337)">a</a>',
        '<iframe srcdoc="<script>alert(1337)</script>"></iframe>',
        "$x$<img src=x onerror=alert(1337)>",
        "<details open ontoggle=alert(1337)>",
        "<style>@import 'x';</style>",
    ]
)
NOISE = st.text(alphabet=st.sampled_from(list("ab <>/=\"'`\n*_[]()#:;&")), max_size=12)


@st.composite
def attack(draw) -> str:
    """One attack string, with a little noise either side."""
    core = draw(st.one_of(handler_tag(), url_context(), BREAKOUT))
    return draw(NOISE) + core + draw(NOISE)


_URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "data", "srcdoc", "poster", "background"}
_SCRIPT_SCHEME = re.compile(r"^(javascript|vbscript|data):", re.I)
_ACTIVE_TAGS = {"iframe", "object", "embed", "base", "frame", "frameset", "applet"}


class _LiveContent(HTMLParser):
    def __init__(self, own_script_srcs: tuple[str, ...]) -> None:
        super().__init__(convert_charrefs=True)
        self.own = own_script_srcs
        self.found: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name.startswith("on"):
                self.found.append(f"<{tag} {name}=…>")
            if name in _URL_ATTRIBUTES and value is not None:
                normalized = re.sub(r"[\t\n\r]", "", value).strip("".join(chr(c) for c in range(0x21)))
                if _SCRIPT_SCHEME.match(normalized):
                    self.found.append(f"<{tag} {name}={value!r}>")
            if tag == "meta" and name == "http-equiv" and (value or "").lower() == "refresh":
                self.found.append("<meta http-equiv=refresh>")
        if tag in _ACTIVE_TAGS:
            self.found.append(f"<{tag}>")
        if tag == "script":
            src = dict(attrs).get("src")
            if src is not None and not src.endswith(self.own):
                self.found.append(f"<script src={src!r}>")
            self._in_script = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script and MARKER in data:
            self.found.append(f"<script>{data[:60]}")


def live_content(html: str, own_script_srcs: tuple[str, ...] = ()) -> list[str]:
    """Handler attributes, script URLs, active tags and injected scripts the parsed ``html`` holds.
    ``own_script_srcs`` are the endings of script files a page may load (the theme's, the viewer's)."""
    parser = _LiveContent(own_script_srcs)
    parser.feed(html)
    parser.close()
    return parser.found
