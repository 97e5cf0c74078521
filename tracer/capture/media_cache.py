"""Remote images and videos kept with the course: fetched once at trace time into a content-addressed cache.

``cached(url, remote)`` answers from the course cache when the URL is there (no network): the file
``cache/media/<sha256>.<ext>`` named by its content, found through the index ``cache/media.json``
(URL -> file, size, content type; sorted, readable JSON the course commits beside the files), or
from an edtrace course's own cache (``capture.edtrace_cache``: ``var/files/``).
Otherwise it fetches the file, at most ``Remote.max_media_bytes`` within ``Remote.deadline_s``: a
larger one is noted in the index as too large (the page links to it instead of embedding it), a
file that cannot be had is reported to the caller, which warns and shows a placeholder. What is
kept must be media (``capture.media_check``): the content type and the first bytes agree on an
image (``image()``) or a video (``video()``), an SVG is sanitized, and the file is named by its
digest and an extension chosen from its bytes; anything else is ``refused`` (a placeholder and a
warning), and a cached file that is not such media is fetched again. It never raises for a fetch.
This module must not build renderings: it returns paths and reasons.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tracer.capture import edtrace_cache, media_check
from tracer.capture.remote import FetchError, Remote, TooLarge
from tracer.contract.files import write_atomic

INDEX_FILE = "media.json"
MEDIA_DIR = "media"


@dataclass
class Cached:
    path: Path | None = None  # the cached file (absolute)
    too_large: int | None = None  # bytes (0 when unknown) of a file over the limit: link to it instead
    error: str | None = None  # why there is neither
    refused: str | None = None  # the host's answer is not an image/video of the kind asked: why


def _kept(path: Path, kind: str) -> bool:
    """Whether a cached file is media of ``kind`` that this cache would have written: named by an
    extension its bytes give (a binary format) or ``.svg`` holding an already sanitized SVG."""
    try:
        body = path.read_bytes()
    except OSError:
        return False
    major = "image" if kind == "image" else "video"
    if path.suffix == ".svg":
        try:
            return major == "image" and media_check.sanitized_svg(body) == body
        except (media_check.NotMedia, UnicodeDecodeError):
            return False
    found = media_check.sniff(body)
    return found is not None and found[0] == path.suffix and found[1].startswith(major + "/")


def _read_index(path: Path) -> tuple[dict[str, dict[str, Any]], str | None]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}, None
    except (OSError, ValueError) as exc:
        return {}, str(exc)
    if not isinstance(data, dict):
        return {}, "not a JSON object"
    return {str(k): v for k, v in data.items() if isinstance(v, dict)}, None


def cached(url: str, remote: Remote, kind: str = "image") -> Cached:
    """The cached copy of ``url`` (fetched now if needed) as media of ``kind`` ("image" or "video"),
    or why it is not embedded."""
    index_path = remote.cache_dir / INDEX_FILE
    index, problem = _read_index(index_path)
    if problem is not None:
        remote.warn(f"{remote.where()}: {INDEX_FILE}: cannot read the media cache index ({problem}); fix or delete it")
    entry = index.get(url)
    if entry is not None:
        if entry.get("too_large"):
            return Cached(too_large=int(entry.get("nbytes") or 0))
        path = remote.cache_dir / str(entry.get("file", ""))
        if entry.get("file") and path.is_file() and _kept(path, kind):
            return Cached(path=path)
    kept_by_edtrace = edtrace_cache.cached_file(remote.project_root, "image", url)
    if kept_by_edtrace is not None and _kept(kept_by_edtrace, kind):  # an edtrace course's committed var/files/
        return Cached(path=kept_by_edtrace)
    try:
        fetched = remote.fetch(url, max_bytes=remote.max_media_bytes)
    except TooLarge as exc:
        index[url] = {"too_large": True, "nbytes": exc.nbytes}
        if problem is None:
            _write_index(index_path, index)
        return Cached(too_large=exc.nbytes or 0)
    except FetchError as exc:
        return Cached(error=str(exc))
    try:
        media = media_check.checked(fetched.body, fetched.content_type, kind)
    except (media_check.NotMedia, UnicodeDecodeError) as exc:
        return Cached(refused=str(exc) if isinstance(exc, media_check.NotMedia) else "an SVG that is not UTF-8 text")
    digest = hashlib.sha256(media.body).hexdigest()
    relative = f"{MEDIA_DIR}/{digest}{media.extension}"
    path = remote.cache_dir / relative
    if not path.is_file():
        write_atomic_bytes(path, media.body)
    index[url] = {"file": relative, "nbytes": len(media.body), "content_type": media.content_type}
    if problem is None:  # never overwrite an index we could not read: its entries would be lost
        _write_index(index_path, index)
    return Cached(path=path)


def _write_index(path: Path, index: dict[str, dict[str, Any]]) -> None:
    write_atomic(path, json.dumps(index, indent=2, sort_keys=True, ensure_ascii=False) + "\n")


def write_atomic_bytes(path: Path, body: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_bytes(body)
    partial.replace(path)
