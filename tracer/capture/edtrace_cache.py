"""edtrace's own cache of remote files, ``var/files/``, read as a source of remote images and arXiv records.

edtrace keeps every remote file it fetched in ``var/files/``, one file per URL, named
``{kind}-{md5(url)}-{url}`` (``kind`` is ``image`` or ``arxiv``; the tail is the URL made into a
file name), and courses commit that folder. A course switched in place keeps it: a remote image
whose URL is there is shown from it, and an arXiv paper recorded there (the API's Atom answer) gives
its citation's title, authors, date and abstract, with no network. Files are matched by the digest
of the URL, and arXiv records also by the paper ids their entries name, so the tail never matters.
This module only reads files: it must not fetch, write or build renderings.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

FILES_DIR = "var/files"


def cached_file(project_root: Path, kind: str, url: str) -> Path | None:
    """edtrace's cached copy of ``url`` (``kind``: ``image`` or ``arxiv``), or None."""
    folder = project_root / FILES_DIR
    if not folder.is_dir():
        return None
    digest = hashlib.md5(url.encode("utf-8")).hexdigest()  # edtrace's naming, not a security use
    found = sorted(p for p in folder.glob(f"{kind}-{digest}*") if p.is_file())
    return found[0] if found else None


def arxiv_answers(project_root: Path) -> list[bytes]:
    """The contents of every ``arxiv-*`` record in edtrace's cache (each an API answer), sorted by name."""
    folder = project_root / FILES_DIR
    if not folder.is_dir():
        return []
    answers = []
    for path in sorted(folder.glob("arxiv-*")):
        try:
            answers.append(path.read_bytes())
        except OSError:
            continue  # unreadable: the paper is asked of arXiv instead
    return answers
