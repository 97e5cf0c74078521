"""Remote media that can only be media: capture/media_check.py, media_cache.py and the download's deadline."""

from __future__ import annotations

import json
import re
import textwrap
import time

import pytest

from helpers.hostile_hosts import PNG, SCRIPTED_SVG, hostile_host
from tracer.capture import media_cache
from tracer.capture.media_check import NotMedia, checked, sanitized_svg
from tracer.capture.remote import FetchError, Remote


def remote(tmp_path, via: str, **kwargs) -> Remote:
    return Remote(project_root=tmp_path, cache_dir=tmp_path / "lectures" / "cache", fetch_via=via, **kwargs)


def test_a_png_is_kept_under_the_extension_its_bytes_give():
    assert checked(PNG, "image/png", "image").extension == ".png"
    assert checked(PNG, "image/jpeg", "image").extension == ".png"  # named by its bytes, not the header


@pytest.mark.parametrize(
    "body, content_type, kind, why",
    [
        (b"<html><script>alert(1)</script></html>", "text/html", "image", "text/html, not image/*"),
        (b"<html><script>alert(1)</script></html>", "image/png", "image", "not a known image format"),
        (PNG, "application/octet-stream", "image", "not image/*"),
        (PNG, None, "image", "no content type"),
        (PNG, "video/webm", "video", "the bytes are image/png"),
        (SCRIPTED_SVG, "image/svg+xml", "video", "image/svg+xml, not video"),
        (
            b'<!DOCTYPE svg [<!ENTITY a "b">]><svg xmlns="http://www.w3.org/2000/svg">&a;</svg>',
            "image/svg+xml",
            "image",
            "DOCTYPE",
        ),
        (b"<html xmlns='http://www.w3.org/1999/xhtml'/>", "image/svg+xml", "image", "not <svg>"),
        (b"<svg", "image/svg+xml", "image", "does not parse"),
    ],
)
def test_anything_but_media_of_the_kind_asked_is_refused_with_a_reason(body, content_type, kind, why):
    with pytest.raises(NotMedia, match=re.escape(why)):
        checked(body, content_type, kind)


def test_an_svg_keeps_its_drawing_and_loses_script_handlers_and_outside_references():
    kept = sanitized_svg(SCRIPTED_SVG).decode()
    for gone in ("script", "onload", "onclick", "javascript:", "tracker.example", "foreignObject", "<set"):
        assert gone not in kept, gone
    assert "<rect" in kept and "<circle" in kept
    assert sanitized_svg(sanitized_svg(SCRIPTED_SVG)) == sanitized_svg(SCRIPTED_SVG)  # a kept file checks as kept


def test_a_host_answering_an_image_url_with_a_page_or_script_is_a_placeholder_never_a_file(tmp_path):
    with hostile_host() as via:
        fetcher = remote(tmp_path, via)
        page = media_cache.cached("https://img.example/page.png", fetcher, "image")
        lying = media_cache.cached("https://img.example/lying.png", fetcher, "image")
        video = media_cache.cached("https://img.example/png-as-video.webm", fetcher, "video")
        svg = media_cache.cached("https://img.example/scripted.svg", fetcher, "image")
        png = media_cache.cached("https://img.example/plain.png", fetcher, "image")
    assert page.path is None and "text/html" in page.refused
    assert lying.path is None and "not a known image format" in lying.refused
    assert video.path is None and "image/png" in video.refused
    assert svg.path is not None and svg.path.suffix == ".svg" and b"script" not in svg.path.read_bytes()
    assert png.path is not None and png.path.suffix == ".png"
    kept = sorted(p.suffix for p in (tmp_path / "lectures" / "cache" / "media").iterdir())
    assert kept == [".png", ".svg"]


def test_a_cached_file_that_is_not_media_is_not_served_from_the_index(tmp_path):
    """A committed index naming a page (an older cache, or a hostile one) is fetched again and checked."""
    cache = tmp_path / "lectures" / "cache"
    (cache / "media").mkdir(parents=True)
    (cache / "media" / "abc.html").write_bytes(b"<script>alert(1)</script>")
    url = "https://img.example/page.png"
    (cache / "media.json").write_text(json.dumps({url: {"file": "media/abc.html", "nbytes": 25}}))
    with hostile_host() as via:
        got = media_cache.cached(url, remote(tmp_path, via), "image")
    assert got.path is None and got.refused is not None


def test_a_host_that_drips_bytes_is_given_up_at_the_whole_download_s_deadline(tmp_path):
    with hostile_host() as via:
        fetcher = remote(tmp_path, via, deadline_s=1.0, timeout_s=5.0)
        started = time.monotonic()
        with pytest.raises(FetchError, match=r"did not send the whole file within 1 s"):
            fetcher.fetch("https://slow.example/drip.png", max_bytes=1_000_000)
        assert time.monotonic() - started < 10  # the drip takes 500 s: the deadline ended it
        with pytest.raises(FetchError):  # the host is not asked again in this run
            fetcher.fetch("https://slow.example/plain.png")


def test_a_lecture_showing_a_page_as_an_image_gets_a_placeholder_and_a_file_line_warning(tmp_path, monkeypatch):
    from helpers.projects import make_project
    from tracer.capture.runner import run_lecture
    from tracer.contract.trace_reading import load_trace

    root = make_project(
        tmp_path,
        {
            "pictures.py": textwrap.dedent(
                """
                from tracer import image


                def main():
                    image("https://img.example/page.png", alt="a figure")
                    image("https://img.example/scripted.svg", alt="a drawing")
                """
            )
        },
    )
    with hostile_host() as via:
        monkeypatch.setenv("CHALKTRACE_FETCH_VIA", via)
        monkeypatch.delenv("CHALKTRACE_OFFLINE", raising=False)
        result = run_lecture(root / "lectures" / "pictures.py", output=tmp_path / "pictures.json")
    assert result.status == "ok"
    trace = load_trace(tmp_path / "pictures.json")
    shown = [r for step in trace["steps"] for r in step["renderings"] if r["type"] == "image"]
    assert shown[0]["missing"] is True and shown[0]["external"] is True
    assert shown[1]["external"] is False and shown[1]["data"].endswith(".svg")
    warned = [w for w in trace["warnings"] if "page.png" in str(w)]
    assert len(
        warned
    ) == 1 and "lectures/pictures.py:6: image(https://img.example/page.png): refused: the host answered text/html" in str(
        warned[0]
    )
