"""tracer/site/markdown_ext/sanitize.py: the allowlist sanitizer, the URL rule and the pages' Content-Security-Policy."""

from __future__ import annotations

import base64
import hashlib

import pytest

from tracer.site.markdown_ext.mathml import render_markdown
from tracer.site.markdown_ext.sanitize import clean_html, content_security_policy, safe_url
from helpers.xss_attacks import live_content


@pytest.mark.parametrize(
    "source",
    [
        "<svg/onload=alert(1)>x</svg>",
        "<img src=x onerror  =  alert(1)>",
        "<IMG SRC=x ONERROR=alert(1)>",
        "<details open ontoggle=alert(1)><summary>s</summary></details>",
        '<div onmouseover="alert(1)">d</div>',
        "[md](javascript:alert(1))",
        "[ref][r]\n\n[r]: javascript:alert(1)",
        '<a href="jav&#x09;ascript:alert(1)">a</a>',
        '<a href="JaVaScRiPt:alert(1)">a</a>',
        '<a href=" javascript:alert(1)">a</a>',
        "<javascript:alert(1)>",
        '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
        '<form action="javascript:alert(1)"><button>b</button></form>',
        '<math><mtext><a href="javascript:alert(1)">m</a></mtext></math>',
        "para\n{: onclick=alert(1) }",
        "<script>alert(1)</script>",
        '<object data="javascript:alert(1)"></object>',
        '<base href="javascript:alert(1)//">',
    ],
)
def test_no_handler_script_or_script_url_survives_markdown(source):
    html = render_markdown(source)
    assert live_content(html) == [], html
    assert "<script" not in html.lower()


def test_prose_formatting_math_tables_and_safe_links_are_kept():
    html = render_markdown(
        "**b** <sub>2</sub> <details><summary>s</summary>d</details> $x^2$ "
        "[web](https://example.org) [mail](mailto:a@b.org) [here](#L3) [rel](../x/) "
        '<span style="color: red; position: fixed">red</span>\n\n| a |\n|:-:|\n| 1 |'
    )
    for kept in (
        "<strong>b</strong>",
        "<sub>2</sub>",
        "<details><summary>s</summary>",
        "<msup><mi>x</mi><mn>2</mn></msup>",
        'href="https://example.org"',
        'href="mailto:a@b.org"',
        'href="#L3"',
        'href="../x/"',
        '<th style="text-align:center">',
        '<span style="color:red">red</span>',
    ):
        assert kept in html, kept
    assert "position" not in html  # a style can colour, never lift an element over the page


def test_comments_survive_for_the_read_pages_slots():
    assert clean_html("<p>a</p><!--lt-slot:3--><p onclick=x>b</p>") == "<p>a</p><!--lt-slot:3--><p>b</p>"


@pytest.mark.parametrize(
    "url,ok",
    [
        ("https://example.org/a?b#c", True),
        ("http://x", True),
        ("mailto:a@b.org", True),
        ("#L12", True),
        ("../images/a.png", True),
        ("a/b:c", True),
        ("//example.org/x", True),
        ("javascript:alert(1)", False),
        (" JavaScript:alert(1)", False),
        ("java\tscript:alert(1)", False),
        ("\x01javascript:x", False),
        ("vbscript:x", False),
        ("data:text/html,<script>x</script>", False),
        ("ftp://example.org", False),
        ("file:///etc/passwd", False),
    ],
)
def test_only_http_https_mailto_relative_and_fragment_urls_pass(url, ok):
    assert safe_url(url) == (url if ok else "")


def test_the_policy_allows_exactly_the_pages_own_inline_scripts_by_hash():
    page = (
        '<head><script>var a = 1;</script><script src="x.js"></script>'
        '<script id="__config" type="application/json">{"a": 1}</script></head>'
    )
    digest = base64.b64encode(hashlib.sha256(b"var a = 1;").digest()).decode()
    assert content_security_policy(page) == f"script-src 'self' 'sha256-{digest}'; object-src 'none'; base-uri 'self'"
    assert "unsafe-inline" not in content_security_policy(page)


def test_the_policy_stops_an_inline_handler_in_chromium(browser, tmp_path):
    """Even markup that got past the sanitizer cannot run: the browser refuses handlers and script URLs."""
    from helpers.site import serve

    body = '<img src="missing.png" onerror="alert(1)"><a id="a" href="javascript:alert(2)">a</a>'
    (tmp_path / "with.html").write_text(
        '<html><head><meta http-equiv="Content-Security-Policy" content="'
        f'{content_security_policy("<script>ok()</script>")}"></head><body>{body}</body></html>'
    )
    (tmp_path / "without.html").write_text(f"<html><head></head><body>{body}</body></html>")
    seen: dict[str, list[str]] = {}
    with serve(tmp_path) as base:
        for name in ("with", "without"):
            page = browser.new_page()
            dialogs: list[str] = []
            page.on("dialog", lambda d, dialogs=dialogs: (dialogs.append(d.message), d.dismiss()))
            page.goto(base + name + ".html")
            page.wait_for_timeout(200)
            page.evaluate("document.getElementById('a').click()")
            page.wait_for_timeout(200)
            seen[name] = dialogs
            page.close()
    assert seen == {"with": [], "without": ["1", "2"]}


def test_ids_stay_only_where_markdown_puts_them():
    html = render_markdown('<div id="CHALKTRACE_DATA">x</div><img id="lt-v-code" src="a.png">\n\n## Heading {#intro}')
    assert 'id="CHALKTRACE_DATA"' not in html and 'id="lt-v-code"' not in html  # no clobbering the viewer's names
    assert '<h2 id="intro">' in html


def test_speaker_notes_are_sanitized_like_prose():
    from tracer.site.pages.speaker_notes import speaker_notes

    trace = {"steps": [{"speaker_notes": ["say <img src=x onerror=alert(1)> [this](javascript:alert(2)) *now*"]}]}
    [[step, html]] = speaker_notes(trace)  # type: ignore[arg-type]
    assert step == 0 and live_content(html) == [] and "<em>now</em>" in html
