"""The rendering cache: a lecture's expensive pieces, kept by the trace's content and the renderer's version.

Rendering a lecture (validating its trace, the read page's Markdown and slots, the page's HTML
content and table of contents, the highlighted source page, the step viewer's ``data.js``, its
``plot()`` charts and tensor heatmaps, its search index entries) depends only on the trace's bytes,
the renderer (this package's site code, its templates and assets, or a course's own templates) and
the site's settings (``mkdocs.yml``). An entry is keyed by all of them, so an entry found is
exactly what rendering would make again: a cached build is byte-for-byte a cold build. Entries live
in ``build/.chalktrace-cache/`` (an edtrace course's ``var/chalktrace/.chalktrace-cache/``) (one file per lecture and key; the ones the last build did not use
are removed) and, while ``serve`` runs, in memory. This module stores and finds; it
must not render (the plugin does) or decide what a page holds.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tracer.contract import paths
from tracer.contract.trace_format import SCHEMA_VERSION

CACHE_DIR = ".chalktrace-cache"  # in the course's work folder (build/, an edtrace course's var/chalktrace/: never committed)
SITE_CODE = Path(__file__).resolve().parent  # tracer/site: its modules, templates and assets


@dataclass
class Entry:
    """What rendering one trace made (the plugin fills it on a miss)."""

    read_page: Any = None  # read_page.ReadPage
    source_page: str | None = None
    data_js: str | None = None  # the text of data.js (None: step mode off)
    exact_js: str | None = None  # the text of exact.js (None: the read page's grids need none)
    charts: dict[str, str] = field(default_factory=dict)
    heatmaps: dict[str, bytes] = field(default_factory=dict)
    content: str | None = None  # the page's HTML content (after Markdown, the slots and lecture.html.j2)
    toc: Any = None  # the page's table of contents, as Markdown made it
    search_entries: list[dict[str, Any]] | None = None  # what the search plugin indexed of the page


def _files_digest(directories: list[Path]) -> str:
    digest = hashlib.sha256()
    for directory in directories:
        for path in sorted(p for p in directory.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            digest.update(path.relative_to(directory).as_posix().encode() + b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()


def renderer_version(templates_dir: Path, assets_dir: Path) -> str:
    """A digest of everything that renders a lecture: the site code with its own templates and assets,
    a course's templates or assets when it has its own, and the trace format."""
    digest = hashlib.sha256(f"schema {SCHEMA_VERSION}\0".encode())
    digest.update(_files_digest([paths.PACKAGE_DIR / "contract"]).encode())  # the trace format, the paths
    own = [d.resolve() for d in (templates_dir, assets_dir) if d.is_dir() and not d.resolve().is_relative_to(SITE_CODE)]
    digest.update(_files_digest([SITE_CODE, *own]).encode())
    return digest.hexdigest()[:16]


class RenderCache:
    def __init__(self, work_dir: Path, version: str) -> None:
        self.directory = work_dir / CACHE_DIR
        self.version = version
        self._memory: dict[str, Entry] = {}  # key -> entry, across serve's rebuilds
        self._used: set[str] = set()

    def key(self, name: str, trace_bytes: bytes, site_name: str) -> str:
        digest = hashlib.sha256(trace_bytes)
        digest.update(f"\0{self.version}\0{site_name}".encode())
        return f"{name}-{digest.hexdigest()[:32]}"

    def get(self, key: str) -> Entry | None:
        self._used.add(key)
        if key in self._memory:
            return self._memory[key]
        try:
            with open(self.directory / f"{key}.pickle", "rb") as handle:
                entry = pickle.load(handle)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError, ValueError):
            return None
        if not isinstance(entry, Entry):
            return None
        self._memory[key] = entry
        return entry

    def put(self, key: str, entry: Entry) -> None:
        self._used.add(key)
        self._memory[key] = entry
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            temporary = self.directory / f".{key}.{os.getpid()}.tmp"
            temporary.write_bytes(pickle.dumps(entry, protocol=pickle.HIGHEST_PROTOCOL))
            os.replace(temporary, self.directory / f"{key}.pickle")  # readers see a whole entry or none
        except OSError:
            pass  # a read-only checkout renders every time; the output is the same

    def finish(self) -> None:
        """Forget the entries this build did not use (old traces, another renderer version)."""
        for key in list(self._memory):
            if key not in self._used:
                del self._memory[key]
        if self.directory.is_dir():
            for path in self.directory.glob("*.pickle"):
                if path.stem not in self._used:
                    with contextlib.suppress(OSError):
                        path.unlink()
        self._used = set()
