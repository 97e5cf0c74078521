"""The course cache of a traced run: arXiv metadata (capture.arxiv) and remote media (capture.media_cache)."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

import pytest

from helpers.fake_hosts import PAPERS, POSTER_NBYTES, hosts
from tracer.capture import arxiv, media_cache
from tracer.capture.references import Reference, url_reference
from tracer.capture.remote import Remote, opened


def remote(tmp_path, **kwargs) -> Remote:
    kwargs.setdefault("arxiv_pace_s", 0.0)  # pacing has its own test, which records the waits instead
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


def references_file(folder, count: int) -> list[str]:
    """A course's references.py citing ``count`` made-up arXiv papers; their URLs."""
    urls = [f"https://arxiv.org/abs/9903.{n:05d}" for n in range(1, count + 1)]
    folder.mkdir(parents=True, exist_ok=True)
    lines = ["from edtrace import url_reference", ""] + [f'paper_{n} = url_reference("{url}")' for n, url in enumerate(urls)]
    (folder / "references.py").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return urls


def test_a_hundred_and_three_references_ask_arxiv_twice_paced_then_never(tmp_path):
    lectures = tmp_path / "lectures"
    urls = references_file(lectures, 103)
    waits: list[float] = []
    with hosts() as fake:
        fetcher = remote(tmp_path, fetch_via=fake.url, sleep=waits.append, arxiv_pace_s=3.0)
        with opened(fetcher):
            arxiv.prefetch(lectures)  # what the runner does before importing the lecture
            titles = [url_reference(url).title for url in urls]
        first_run = list(fake.requests)
        again = remote(tmp_path, fetch_via=fake.url, sleep=waits.append, arxiv_pace_s=3.0)
        with opened(again):
            arxiv.prefetch(lectures)
            assert [url_reference(url).title for url in urls] == titles
    assert titles[0] == "Made-up Paper Number 1" and titles[-1] == "Made-up Paper Number 103"
    assert len(first_run) == 2 and fake.requests == first_run  # the second run asks nothing: the cache answers
    first_ids, second_ids = (parse_qs(urlsplit(r).query)["id_list"][0].split(",") for r in first_run)
    assert (len(first_ids), len(second_ids)) == (100, 3)
    assert parse_qs(urlsplit(first_run[0]).query)["max_results"] == ["100"]
    assert len(waits) == 1 and 2.5 < waits[0] <= 3.0  # the second call waits out arXiv's pause
    cached = json.loads((lectures / "cache" / "arxiv.json").read_text(encoding="utf-8"))
    assert len(cached) == 103 and sorted(cached["9903.00103"]) == ["authors", "date", "summary", "title"]


def test_a_busy_arxiv_is_asked_again_after_the_pause_it_names(tmp_path):
    waits: list[float] = []
    with hosts() as fake:
        fetcher = remote(tmp_path, fetch_via=fake.url, sleep=waits.append, arxiv_api="https://busy-arxiv.example.org/api/query")
        with opened(fetcher):
            assert url_reference("https://arxiv.org/abs/9901.00002").title == "Tracing Without Tears"
    assert len(fake.requests) == 2 and waits == [7.0] and fetcher.warnings == []


def test_edtraces_committed_records_answer_offline(tmp_path):
    files = tmp_path / "var" / "files"
    files.mkdir(parents=True)
    answer = (
        '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><entry>'
        "<id>http://arxiv.org/abs/9901.00002v3</id><published>2099-01-20T09:30:00Z</published>"
        "<title>Tracing Without\n Tears</title><summary>Kept by edtrace.</summary>"
        "<author><name>Edsger Fictional</name></author></entry></feed>"
    )
    (files / "arxiv-0123456789abcdef0123456789abcdef-https_arxiv.org_abs_9901.00002").write_text(answer, encoding="utf-8")
    fetcher = remote(tmp_path, offline=True)
    with opened(fetcher):
        found = url_reference("https://arxiv.org/abs/9901.00002")
    assert (found.title, found.authors, found.date, found.description) == (
        "Tracing Without Tears",
        ["Edsger Fictional"],
        "2099-01-20",
        "Kept by edtrace.",
    )
    assert fetcher.warnings == []
