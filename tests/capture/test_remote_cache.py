"""The course cache of a traced run: arXiv metadata (capture.arxiv) and remote media (capture.media_cache)."""

from __future__ import annotations

import json

import pytest

from helpers.fake_hosts import PAPERS, POSTER_NBYTES, hosts
from tracer.capture import arxiv, media_cache
from tracer.capture.references import Reference, url_reference
from tracer.capture.remote import Remote, opened


def remote(tmp_path, **kwargs) -> Remote:
    return Remote(project_root=tmp_path, cache_dir=tmp_path / "lectures" / "cache", **kwargs)


@pytest.mark.parametrize(
    "url, paper",
    [
        ("https://arxiv.org/abs/2001.08361", "2001.08361"),
        ("https://arxiv.org/pdf/2001.08361v3.pdf", "2001.08361"),
        ("https://arxiv.org/pdf/1409.0473.pdf", "1409.0473"),
        ("http://www.arxiv.org/abs/hep-th/9901001v2", "hep-th/9901001"),
        ("https://arxiv.org/abs/2401.12345/", "2401.12345"),
        ("https://example.org/abs/2001.08361", None),
        ("https://arxiv.org/list/cs.LG/recent", None),
    ],
)
def test_arxiv_ids(url, paper):
    assert arxiv.arxiv_id(url) == paper


def test_fetched_once_then_answered_from_a_readable_cache(tmp_path):
    with hosts() as fake:
        fetcher = remote(tmp_path, fetch_via=fake.url)
        with opened(fetcher):
            first = url_reference("https://arxiv.org/abs/9901.00001", organization="Lab", notes="n")
            again = url_reference("https://arxiv.org/pdf/9901.00001v2.pdf")
    assert fake.requests == ["/export.arxiv.org/api/query?id_list=9901.00001"]
    assert first == Reference(
        title="Stepping Through Lectures Like a Debugger",
        authors=PAPERS["9901.00001"]["authors"],
        organization="Lab",
        date="2099-01-05",
        url="https://arxiv.org/abs/9901.00001",
        description="We step through lectures one line at a time.",
        notes="n",
    )
    assert again.authors == first.authors and again.url.endswith("v2.pdf")
    assert first.label == "[Example+ 2099]"  # what the page shows for it
    assert Reference(title="Transformer Math 101", organization="EleutherAI", date="2023-04-03").label == "[EleutherAI 2023]"
    assert Reference(title="OpenWebText").label == "[OpenWebText]"
    text = (tmp_path / "lectures" / "cache" / "arxiv.json").read_text(encoding="utf-8")
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert fetcher.warnings == []


def test_offline_without_an_entry_says_so_once_and_never_fails(tmp_path):
    fetcher = remote(tmp_path, offline=True)
    with opened(fetcher):
        refs = [url_reference(f"https://arxiv.org/abs/{paper}") for paper in PAPERS]
        titled = url_reference("https://arxiv.org/abs/9901.00002", title="My own title")
    assert [r.title for r in refs] == [f"arXiv:{paper}" for paper in PAPERS] and titled.title == "My own title"
    assert len(fetcher.warnings) == 1 and ": arXiv metadata unavailable (offline" in fetcher.warnings[0]


def test_an_unknown_paper_and_a_dead_host(tmp_path):
    with hosts() as fake:
        fetcher = remote(tmp_path, fetch_via=fake.url)
        with opened(fetcher):
            assert url_reference("https://arxiv.org/abs/9999.99999").title == "arXiv:9999.99999"
    assert "arXiv has no paper 9999.99999" in fetcher.warnings[0]
    dead = remote(tmp_path, fetch_via="http://127.0.0.1:9", timeout_s=2)  # nothing listens on the discard port
    with opened(dead):
        assert url_reference("https://arxiv.org/abs/9901.00003").title == "arXiv:9901.00003"
    assert "cannot reach" in dead.warnings[0]


def test_an_unreadable_cache_is_never_overwritten(tmp_path):
    cache = tmp_path / "lectures" / "cache"
    cache.mkdir(parents=True)
    (cache / "arxiv.json").write_text("{broken")
    with hosts() as fake:
        fetcher = remote(tmp_path, fetch_via=fake.url)
        with opened(fetcher):
            assert url_reference("https://arxiv.org/abs/9901.00001").authors == PAPERS["9901.00001"]["authors"]
    assert (cache / "arxiv.json").read_text() == "{broken"
    assert "cannot read the arXiv cache" in fetcher.warnings[0]


def test_media_content_addressed_size_bounded_and_offline(tmp_path):
    url = "https://images.example.org/figures/pipeline.png"
    poster = "https://images.example.org/figures/poster.png"
    with hosts() as fake:
        fetcher = remote(tmp_path, fetch_via=fake.url, max_media_bytes=300_000)
        got = media_cache.cached(url, fetcher)
        big = media_cache.cached(poster, fetcher)
        missing = media_cache.cached("https://images.example.org/figures/none.png", fetcher)
    assert got.path is not None and got.path.name.endswith(".png") and len(got.path.stem) == 64
    assert big.too_large == POSTER_NBYTES and big.path is None
    assert missing.path is None and missing.error == "HTTP 404 Not Found"
    offline = remote(tmp_path, offline=True)
    assert media_cache.cached(url, offline).path == got.path  # the index answers, no network
    assert media_cache.cached(poster, offline).too_large == POSTER_NBYTES
    assert media_cache.cached("https://images.example.org/other.png", offline).error.startswith("offline")
    index = json.loads((tmp_path / "lectures" / "cache" / "media.json").read_text())
    assert set(index) == {url, poster}


def test_a_busy_host_is_asked_again_after_the_wait_it_names(tmp_path):
    with hosts() as fake:
        fetcher = remote(tmp_path, fetch_via=fake.url)
        assert fetcher.fetch("https://busy.example.org/x").body == b"finally"
    assert fake.requests == ["/busy.example.org/x"] * 3
