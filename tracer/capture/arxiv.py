"""Paper metadata for arXiv URLs: title, authors, date and abstract, from arXiv's API, kept in the course cache.

``metadata(url)`` answers from ``cache/arxiv.json`` when the paper is there (no network), else asks
the API (``Remote.arxiv_api``, an Atom feed) once and adds the answer to the cache file: a stable,
readable JSON object keyed by arXiv id (no version), sorted, one field per line, so a course commits
it and reviews its diffs. With no network and no cache entry it returns None and the run says so
once; a caller then labels the citation by its title or id. It never raises for a fetch. This
module must not build renderings: it returns plain dicts.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from tracer.contract import paths
from tracer.capture.remote import FetchError, Remote, current
from tracer.contract.files import write_atomic

CACHE_FILE = "arxiv.json"
_ATOM = "{http://www.w3.org/2005/Atom}"
_NEW_ID = re.compile(r"^(\d{4}\.\d{4,5})(v\d+)?$")
_OLD_ID = re.compile(r"^([a-z][a-z-]*(?:\.[A-Z]{2})?/\d{7})(v\d+)?$")
FIELDS = ("title", "authors", "date", "summary")


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


def parse_feed(xml_text: bytes, paper: str) -> dict[str, Any] | None:
    """The entry for ``paper`` in an API answer, as cache fields; None when the feed has none."""
    try:
        root = ElementTree.fromstring(xml_text)
    except ElementTree.ParseError:
        return None
    for entry in root.iter(f"{_ATOM}entry"):
        entry_id = _one_line(entry.findtext(f"{_ATOM}id"))
        if "/api/errors" in entry_id or not re.search(re.escape(paper) + r"(v\d+)?$", entry_id):
            continue
        title = _one_line(entry.findtext(f"{_ATOM}title"))
        authors = [_one_line(a.findtext(f"{_ATOM}name")) for a in entry.findall(f"{_ATOM}author")]
        published = _one_line(entry.findtext(f"{_ATOM}published"))
        return {
            "title": title,
            "authors": [a for a in authors if a],
            "date": published[:10],
            "summary": _one_line(entry.findtext(f"{_ATOM}summary")),
        }
    return None


class _Cache:
    """``cache/arxiv.json`` of one course, read once per run."""

    def __init__(self, path: Path, remote: Remote) -> None:
        self.path = path
        self.entries: dict[str, dict[str, Any]] = {}
        self.writable = True
        self.said_unavailable = False
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

    def add(self, paper: str, fields: dict[str, Any]) -> None:
        self.entries[paper] = fields
        if self.writable:
            text = json.dumps(self.entries, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
            write_atomic(self.path, text)


def metadata(url: str, remote: Remote | None = None) -> dict[str, Any] | None:
    """Cached or fetched fields (``FIELDS``) of the arXiv paper at ``url``; None when unknown."""
    paper = arxiv_id(url)
    remote = remote or current()
    if paper is None or remote is None:
        return None
    cache = _Cache.of(remote)
    if paper in cache.entries:
        return cache.entries[paper]
    query = remote.arxiv_api + ("&" if "?" in remote.arxiv_api else "?") + urlencode({"id_list": paper})
    try:
        fetched = remote.fetch(query, max_bytes=2_000_000)
    except FetchError as exc:
        if not cache.said_unavailable:  # once a run, at the first citation it leaves unlabelled
            cache.said_unavailable = True
            remote.warn(
                f"{remote.where()}: arXiv metadata unavailable ({exc}): arXiv citations missing from "
                f"{paths.shown_path(cache.path, remote.project_root)} are labelled by their title or id"
            )
        return None
    fields = parse_feed(fetched.body, paper)
    if fields is None:
        remote.warn(f"{remote.where()}: arXiv has no paper {paper}; its citation is labelled by its title or id")
        return None
    cache.add(paper, fields)
    return fields
