"""One built lecture page as one self-contained HTML file (``chalktrace export --html``).

It reads what the real MkDocs build wrote (the page, its stylesheets, scripts, images, the step data
and every other script file beside the page) and puts it all inside the page: stylesheets as
``<style>``, scripts inline (deferred ones at the end of ``<body>``, in order, as the browser would
run them), images, plots and fonts as ``data:`` URIs, so the file opens from disk with no request.
The site's chrome that only makes sense beside other pages (search, the site's navigation, the
previous/next footer, the edit action) is removed, and a link to another page of the site loses its
``href`` (its text stays); a web font's stylesheet is left out (the theme's fallback fonts show),
and a script loaded from the web is refused. Then the page gets the site's own Content-Security-Policy, computed anew
over the inlined scripts (``markdown_ext.sanitize.content_security_policy``: each inline script by
its hash, nothing else).

It must not render, sanitize or change lecture content (the build did that), and it must not know
how the step data is packed: every script file beside the page is inlined as it is.
"""

from __future__ import annotations

import base64
import mimetypes
import re
from pathlib import Path

from tracer.site.markdown_ext.sanitize import content_security_policy


class ExportError(Exception):
    """The built page cannot be made into one file (a file it names is missing); the message names it."""


# A reference to a file of the site's assets folder anywhere in the page or its scripts: the page's
# relative ``../../assets/...``, and the step data's root-relative form (the viewer puts the page's
# root before ``assets/``).
_ASSET = re.compile(
    r"""(?P<prefix>\{root\}|(?:\.\./)+|\./)?(?P<path>assets/[A-Za-z0-9_.\-/]+\.(?P<ext>png|svg|jpe?g|gif|webp|avif|woff2?|ttf|otf))"""
)
_LINK = re.compile(r"<link\b[^>]*>", re.I)
_SCRIPT_SRC = re.compile(r"<script\b(?P<attrs>[^>]*\bsrc=\"(?P<src>[^\"]+)\"[^>]*)>\s*</script\s*>", re.I)
# an image's src in the page, and in the step data's HTML (a JSON string: its quotes escaped)
_IMG_SRC = re.compile(r"(?P<before><(?:img|source)\b[^>]*?)\ssrc=(?P<q>\")(?P<src>[^\"\\\s'+{}]*)\"", re.I)
_IMG_SRC_IN_JSON = re.compile(r"(?P<before><(?:img|source)\b[^>]*?)\ssrc=(?P<q>\\\")(?P<src>[^\"\\\s'+{}]*)\\\"", re.I)
_CSS_URL = re.compile(r"""url\(\s*(?P<q>["']?)(?P<url>[^"')]+)(?P=q)\s*\)""")
_ANCHOR = re.compile(r"""<a\b(?P<attrs>[^>]*)>(?P<body>.*?)</a>""", re.I | re.S)
_CSP_META = re.compile(r"<meta http-equiv=\"Content-Security-Policy\"[^>]*>\n?", re.I)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:|^//")

# The theme's parts that lead to other pages of the site, which the single file does not have.
_SITE_CHROME = (
    ("label", re.compile(r'<label class="md-header__button md-icon" for="__search">')),
    ("label", re.compile(r'<label class="md-header__button md-icon" for="__drawer">')),
    ("div", re.compile(r'<div class="md-search" data-md-component="search"')),
    ("nav", re.compile(r'<nav class="md-tabs"')),
    ("div", re.compile(r'<div class="md-sidebar md-sidebar--primary"')),
    ("nav", re.compile(r'<nav class="md-footer__inner')),
    ("a", re.compile(r'<a [^>]*class="md-content__button md-icon"')),
)


def data_uri(path: Path) -> str:
    kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    if path.suffix == ".svg":
        kind = "image/svg+xml"
    return f"data:{kind};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


def _inline_script_text(text: str) -> str:
    """Script text safe inside ``<script>``: no ``</script`` or ``<!--`` that would end or change it
    (both only occur inside the scripts' strings, where the escaped form reads the same)."""
    text = re.sub(r"</(script)", r"<\\/\1", text, flags=re.I)
    return text.replace("<!--", "<\\!--")


def _attr(tag: str, name: str) -> str | None:
    found = re.search(rf'\b{name}="([^"]*)"', tag)
    return found.group(1) if found else None


def _element_end(html: str, start: int, tag: str) -> int:
    """The offset just after the element of type ``tag`` that opens at ``start`` (nested same tags counted)."""
    depth = 0
    for match in re.compile(rf"<(/?){tag}\b[^>]*>", re.I).finditer(html, start):
        depth += -1 if match.group(1) else 1
        if depth == 0:
            return match.end()
    return len(html)


class _Inliner:
    def __init__(self, site_dir: Path, page: Path) -> None:
        self.site_dir = site_dir.resolve()
        self.page = page.resolve()
        self.used: set[Path] = set()

    def file(self, ref: str, base: Path) -> Path:
        """The built file ``ref`` names, relative to ``base``; an ExportError when the build has no such file."""
        clean = ref.split("#")[0].split("?")[0]
        path = (base / clean).resolve()
        if not path.is_relative_to(self.site_dir) or not path.is_file():
            raise ExportError(f"{self.page}: names {ref}, which the build did not write")
        self.used.add(path)
        return path

    def assets(self, text: str) -> str:
        def replace(match: re.Match[str]) -> str:
            path = self.site_dir / match.group("path")
            return data_uri(path) if path.is_file() else match.group(0)

        return _ASSET.sub(replace, text)

    def images(self, html: str, pattern: re.Pattern[str] = _IMG_SRC) -> str:
        """Every image left with a relative ``src``: inline when the build wrote it, else without ``src``
        (its alt text shows, as on the site where it would not load either), so the file asks for nothing."""

        def replace(match: re.Match[str]) -> str:
            src = match.group("src")
            if src.startswith("data:") or _SCHEME.match(src):
                return match.group(0)
            try:
                quote = match.group("q")
                return f"{match.group('before')} src={quote}{data_uri(self.file(src, self.page.parent))}{quote}"
            except ExportError:
                return match.group("before")

        return pattern.sub(replace, html)

    def stylesheet(self, path: Path) -> str:
        css = path.read_text(encoding="utf-8")
        css = re.sub(r"/\*# sourceMappingURL=[^*]*\*/", "", css)

        def replace(match: re.Match[str]) -> str:
            url = match.group("url")
            if url.startswith(("data:", "#")) or _SCHEME.match(url):
                return match.group(0)
            return f'url("{data_uri(self.file(url, path.parent))}")'

        return _CSS_URL.sub(replace, css).replace("</style", "<\\/style")

    def links(self, html: str) -> str:
        def replace(match: re.Match[str]) -> str:
            tag = match.group(0)
            rel, href = (_attr(tag, "rel") or "").lower(), _attr(tag, "href")
            if href is None:
                return tag
            if rel == "stylesheet" and _SCHEME.match(href):
                return ""  # a web font's stylesheet (Material's Google Fonts): offline, the theme's fallback fonts show
            if rel == "stylesheet":
                return f"<style>{self.stylesheet(self.file(href, self.page.parent))}</style>"
            return ""  # prev/next/canonical: other pages of the site; the site's icon (no data: URL in a <link>)

        return _LINK.sub(replace, html)

    def scripts(self, html: str) -> tuple[str, list[str]]:
        """The page with its script files inline; the deferred ones are returned to go at the end of ``<body>``."""
        deferred: list[str] = []

        def replace(match: re.Match[str]) -> str:
            if _SCHEME.match(match.group("src")):
                raise ExportError(
                    f"{self.page}: loads the script {match.group('src')} from the web, which a file opened offline cannot"
                )
            path = self.file(match.group("src"), self.page.parent)
            text = (
                "<script>"
                + _inline_script_text(self.images(self.assets(path.read_text(encoding="utf-8")), _IMG_SRC_IN_JSON))
                + "</script>"
            )
            text = re.sub(r"\n//# sourceMappingURL=\S*", "", text)
            if re.search(r"\b(defer|async)\b", match.group("attrs")):
                deferred.append(text)
                return ""
            return text

        return _SCRIPT_SRC.sub(replace, html), deferred

    def loaded_later(self) -> list[str]:
        """Script files beside the page that its scripts load on demand (e.g. exact values): inline, up front."""
        later = sorted(p for p in self.page.parent.glob("*.js") if p.resolve() not in self.used)
        return [
            "<script>"
            + _inline_script_text(self.images(self.assets(p.read_text(encoding="utf-8")), _IMG_SRC_IN_JSON))
            + "</script>"
            for p in later
        ]


def _without_site_chrome(html: str) -> str:
    for tag, opening in _SITE_CHROME:
        found = opening.search(html)
        if found is not None:
            html = html[: found.start()] + html[_element_end(html, found.start(), tag) :]
    return html


def _local_links_only(html: str) -> str:
    """Links into the page and out to the web stay; a link to another page of the site becomes its
    text (a ``<span>`` with the link's class), as the single file has no other page."""

    def replace(match: re.Match[str]) -> str:
        href = _attr(match.group("attrs"), "href")
        if href is None or href.startswith("#") or (_SCHEME.match(href) and not href.startswith("//")):
            return match.group(0)
        kind = _attr(match.group("attrs"), "class")
        opening = f'<span class="{kind}">' if kind else "<span>"
        return opening + match.group("body") + "</span>"

    return _ANCHOR.sub(replace, html)


def single_file_html(site_dir: Path, page: Path) -> str:
    """The built page ``page`` of the site in ``site_dir`` as one self-contained HTML document."""
    inliner = _Inliner(site_dir, page)
    html = page.read_text(encoding="utf-8")
    html = _CSP_META.sub("", html)
    html = _local_links_only(_without_site_chrome(html))
    html = inliner.links(html)
    html, deferred = inliner.scripts(html)
    html = inliner.images(inliner.assets(html))
    tail = "\n".join([*deferred, *inliner.loaded_later()])
    at = html.rfind("</body>")
    html = html[:at] + tail + "\n" + html[at:]
    # first in <head>, before any script it governs (as the site's pages have it)
    return html.replace(
        "<head>", "<head>\n" + f'<meta http-equiv="Content-Security-Policy" content="{content_security_policy(html)}">', 1
    )
