"""Paper metadata for arXiv URLs: title, authors, date and abstract, from arXiv's API, kept in the course cache.

``metadata(url)`` answers from ``cache/arxiv.json`` when the paper is there (no network), then from
an edtrace course's own cache (``capture.edtrace_cache``: ``var/files/arxiv-*``), else asks the API
(``Remote.arxiv_api``, an Atom feed) and adds the answer to the cache file: a stable, readable JSON
object keyed by arXiv id (no version), sorted, one field per line, so a course commits it and
reviews its diffs::

    {
      "2001.08361": {
        "authors": ["Jared Kaplan", "..."],
        "date": "2020-01-23",
        "summary": "We study empirical scaling laws ...",
        "title": "Scaling Laws for Neural Language Models"
      }
    }

arXiv asks clients to be gentle, so lookups are batched and paced. Before a lecture is imported,
``prefetch`` reads the course's lecture-folder sources for arXiv URLs and asks for every paper not
cached yet in one query per ``BATCH`` ids; any later single lookup is one more paced query. Calls
are at least ``Remote.arxiv_pace_s`` apart (3 s), across the processes of one ``build`` too (a lock
file in ``build/`` holds the last call's time), and a busy answer's Retry-After is waited out.
With no network and no cache entry ``metadata`` returns None and the run says so once; a caller
then labels the citation by its title or id. It never raises for a fetch. This module must not
build renderings: it returns plain dicts.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import re
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator
from urllib.parse import urlencode, urlsplit

from tracer.contract import course_layout, paths
from tracer.capture import edtrace_cache
from tracer.capture.remote import FetchError, Remote, current
from tracer.contract.files import write_atomic

CACHE_FILE = "arxiv.json"
_ATOM = "{http://www.w3.org/2005/Atom}"
_NEW_ID = re.compile(r"^(\d{4}\.\d{4,5})(v\d+)?$")
_OLD_ID = re.compile(r"^([a-z][a-z-]*(?:\.[A-Z]{2})?/\d{7})(v\d+)?$")
FIELDS = ("title", "authors", "date", "summary")
BATCH = 100  # ids per query: what arXiv's API accepts in one id_list
LOCK_FILE = "arxiv.lock"  # in the course's work folder (build/): one caller at a time, and the last call's time
_URL = re.compile(r"https?://(?:[\w-]+\.)*arxiv\.org/(?:abs|pdf|html)/[^\s\"'<>)\]]+")


def arxiv_id(url: str) -> str | None:
    """The paper id of an arXiv abstract or PDF URL (``2001.08361``, ``hep-th/9901001``), version dropped."""
    parts = urlsplit(url.strip())
    host = parts.netloc.lower()
    if parts.scheme not in ("http", "https") or not (host == "arxiv.org" or host.endswith(".arxiv.org")):
        return None
    match = re.match(r"^/(?:abs|pdf|html)/(.+?)(?:\.pdf)?/?$", parts.path)
    if not match:
        return None
    for pattern in (_NEW_ID, _OLD_ID):
        found = pattern.match(match.group(1))
        if found:
            return found.group(1)
    return None


def _one_line(text: str | None) -> str:
    return re.sub(r"\s+", " ", text or "").strip()


def parse_entries(xml_text: bytes) -> dict[str, dict[str, Any]]:
    """Every paper in an API answer, by arXiv id (no version), as cache fields; {} for no feed."""
    try:
        root = ElementTree.fromstring(xml_text)
    except ElementTree.ParseError:
        return {}
    found: dict[str, dict[str, Any]] = {}
    for entry in root.iter(f"{_ATOM}entry"):
        entry_id = _one_line(entry.findtext(f"{_ATOM}id"))
        paper = arxiv_id(entry_id.replace("http://", "https://", 1)) if "/api/errors" not in entry_id else None
        if paper is None:
            continue
        title = _one_line(entry.findtext(f"{_ATOM}title"))
        authors = [_one_line(a.findtext(f"{_ATOM}name")) for a in entry.findall(f"{_ATOM}author")]
        published = _one_line(entry.findtext(f"{_ATOM}published"))
        found[paper] = {
            "title": title,
            "authors": [a for a in authors if a],
            "date": published[:10],
            "summary": _one_line(entry.findtext(f"{_ATOM}summary")),
        }
    return found


def parse_feed(xml_text: bytes, paper: str) -> dict[str, Any] | None:
    """The entry for ``paper`` in an API answer, as cache fields; None when the feed has none."""
    return parse_entries(xml_text).get(paper)


class _Cache:
    """``cache/arxiv.json`` of one course, read once per run."""

    def __init__(self, path: Path, remote: Remote) -> None:
        self.path = path
        self.entries: dict[str, dict[str, Any]] = {}
        self.writable = True
        self.said_unavailable = False
        self.unavailable: str | None = None  # why arXiv could not be asked (then it is not asked again)
        self.edtrace: dict[str, dict[str, Any]] = {}  # an edtrace course's var/files/ records
        for answer in edtrace_cache.arxiv_answers(remote.project_root):
            self.edtrace.update(parse_entries(answer))
        self._read(remote)

    def _read(self, remote: Remote) -> None:
        path = self.path
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            self.entries = {str(k): v for k, v in data.items() if isinstance(v, dict)}
        except FileNotFoundError:
            pass
        except (OSError, ValueError) as exc:
            self.writable = False  # never overwrite a file we could not read: its entries would be lost
            remote.warn(
                f"{remote.where()}: {path.name}: cannot read the arXiv cache ({exc}); fix or delete it to keep new entries"
            )

    @classmethod
    def of(cls, remote: Remote) -> "_Cache":
        path = remote.cache_dir / CACHE_FILE
        cache = getattr(remote, "_arxiv_cache", None)
        if cache is None or cache.path != path:
            cache = cls(path, remote)
            setattr(remote, "_arxiv_cache", cache)
        return cache

    def known(self, paper: str) -> dict[str, Any] | None:
        return self.entries.get(paper) or self.edtrace.get(paper)

    def add(self, found: dict[str, dict[str, Any]]) -> None:
        self.entries.update(found)
        if self.writable and found:
            text = json.dumps(self.entries, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
            write_atomic(self.path, text)


@contextlib.contextmanager
def _turn(remote: Remote, cache: _Cache) -> Iterator[Callable[[], None]]:
    """The course's arXiv turn: one caller at a time (across processes); the cache is read again once
    the turn is held (another process may have just filled it). Yields ``pace``, to call right
    before asking arXiv: it waits until ``remote.arxiv_pace_s`` have passed since the last call (by
    any process: the lock file holds its time) and notes this call's time."""
    lock_path = course_layout.quiet_layout_of(remote.project_root).work_dir / LOCK_FILE
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            cache._read(remote)

            def pace() -> None:
                lock.seek(0)
                try:
                    last = float(lock.read().strip() or 0)
                except ValueError:
                    last = 0.0
                wait_s = last + remote.arxiv_pace_s - time.time()
                if wait_s > 0:
                    remote.sleep(min(wait_s, remote.arxiv_pace_s))
                lock.seek(0)
                lock.truncate()
                lock.write(f"{time.time():.3f}\n")
                lock.flush()

            yield pace
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _query(remote: Remote, papers: list[str]) -> str:
    fields = {"id_list": ",".join(papers)}
    if len(papers) > 1:
        fields["max_results"] = str(len(papers))  # the API answers 10 entries unless told
    return remote.arxiv_api + ("&" if "?" in remote.arxiv_api else "?") + urlencode(fields, safe=",")


def _ask(remote: Remote, cache: _Cache, papers: list[str]) -> dict[str, dict[str, Any]] | None:
    """Ask arXiv for ``papers`` (at most BATCH), paced; what it answered, added to the cache; None
    when it could not be asked (``cache.unavailable`` says why; ``metadata`` warns at the first
    citation left unlabelled)."""
    with _turn(remote, cache) as pace:
        papers = [p for p in papers if cache.known(p) is None]
        if not papers:
            return {}
        pace()
        try:
            fetched = remote.fetch(_query(remote, papers), max_bytes=2_000_000 * len(papers))
        except FetchError as exc:
            cache.unavailable = str(exc)
            return None
        found = {paper: fields for paper, fields in parse_entries(fetched.body).items() if paper in papers}
        cache.add(found)  # before the turn ends: the next process reads what this one asked for
    return found


def cited_papers(texts: Iterable[str]) -> list[str]:
    """The arXiv ids of the arXiv URLs written in ``texts``, in order of first mention."""
    found: dict[str, None] = {}
    for text in texts:
        for match in _URL.finditer(text):
            paper = arxiv_id(match.group(0).rstrip(".,;:"))
            if paper is not None:
                found.setdefault(paper)
    return list(found)


def prefetch(folder: Path, remote: Remote | None = None) -> None:
    """Ask arXiv, in batches of BATCH ids, for every paper cited by URL in ``folder``'s ``*.py``
    files (a course's lectures and ``references.py``) that no cache knows yet."""
    remote = remote or current()
    if remote is None or remote.offline:
        return
    texts = []
    for path in sorted(folder.glob("*.py")):
        try:
            texts.append(path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
    papers = cited_papers(texts)
    if not papers:
        return
    cache = _Cache.of(remote)
    missing = [p for p in papers if cache.known(p) is None]
    for start in range(0, len(missing), BATCH):
        if _ask(remote, cache, missing[start : start + BATCH]) is None:
            return  # the first citation left unlabelled says why; none asks again


def metadata(url: str, remote: Remote | None = None) -> dict[str, Any] | None:
    """Cached or fetched fields (``FIELDS``) of the arXiv paper at ``url``; None when unknown."""
    paper = arxiv_id(url)
    remote = remote or current()
    if paper is None or remote is None:
        return None
    cache = _Cache.of(remote)
    known = cache.known(paper)
    if known is not None:
        return known
    found = _ask(remote, cache, [paper]) if cache.unavailable is None else None
    if found is None:
        if not cache.said_unavailable:  # once a run, at the first citation it leaves unlabelled
            cache.said_unavailable = True
            remote.warn(
                f"{remote.where()}: arXiv metadata unavailable ({cache.unavailable}): arXiv citations missing from "
                f"{paths.shown_path(cache.path, remote.project_root)} are labelled by their title or id"
            )
        return None
    if paper not in found:
        known = cache.known(paper)  # another process may have asked for it meanwhile
        if known is None:
            remote.warn(f"{remote.where()}: arXiv has no paper {paper}; its citation is labelled by its title or id")
        return known
    return found[paper]
