"""``download_file(url, filename)``: what a lecture fetches for itself (a data file, a model card).

Saves ``url`` to ``filename`` (relative to the working directory, as the lecture sees it) unless
that file already exists, so a course that keeps its downloads runs offline. Unlike ``image()``'s
cache this has no size limit and no index: the lecture owns the file. Outside a traced run it works
the same. A failed download raises ``DownloadError`` naming the URL and leaves no partial file.
This module must not emit renderings.
"""

from __future__ import annotations

import os
import shutil
import urllib.error
import urllib.request
from pathlib import Path

from tracer.capture.remote import USER_AGENT

TIMEOUT_SECONDS = 60.0


class DownloadError(RuntimeError):
    """A download that failed; str() is one line naming the URL."""


def download_file(url: str, filename: str | os.PathLike[str]) -> None:
    """Download ``url`` to ``filename``; skip it when ``filename`` already exists."""
    target = Path(filename)
    if target.exists():
        return
    if os.environ.get("CHALKTRACE_OFFLINE", "") not in ("", "0"):
        raise DownloadError(f"download_file: {url}: offline (CHALKTRACE_OFFLINE is set) and {target} is not there")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial")
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response, open(partial, "wb") as out:
            shutil.copyfileobj(response, out)
        if partial.stat().st_size == 0:
            raise DownloadError(f"download_file: {url}: the server sent nothing")
        partial.replace(target)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise DownloadError(f"download_file: {url}: {getattr(exc, 'reason', exc)}") from None
    finally:
        partial.unlink(missing_ok=True)
