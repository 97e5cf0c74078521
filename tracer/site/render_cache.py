"""The rendering cache: a lecture's expensive pieces, kept by the trace's content and everything that renders it.

Rendering a lecture (validating its trace, the read page's Markdown and slots, the page's HTML
content and table of contents, the highlighted source page, the step viewer's ``data.js``, its
``plot()`` charts and tensor heatmaps, its search index entries) depends only on the trace's bytes
(a lecture kept beside a GPU run, and that run, on the other trace's too: each page names what the
other ran on), the renderer (this package's site code, its templates and assets, or a course's own
templates, and the versions of the libraries that shape the HTML: ``LIBRARIES``) and the site's
settings (the MkDocs configuration as resolved, ``INHERIT`` and ``!ENV`` included, and the course's
``accept_warnings``, which decides the page's warning boxes). An entry is keyed by all of them, so
an entry found is exactly what rendering would make again: a cached build is byte-for-byte a cold
build.

The cache is only ever a shortcut. An entry is data (JSON, never pickle: a cache restored from
elsewhere cannot run code), written behind a first line naming the format and the SHA-256 of the
rest; an entry whose digest, size, JSON or shape is wrong is a miss with a one-line note, and the
lecture is rendered again. Entries live in ``build/.chalktrace-cache/`` (an edtrace course's
``var/chalktrace/.chalktrace-cache/``) (one file per lecture and key; the ones the last build did
not use are removed) and, while ``serve`` runs, in memory. This module stores and finds; it must
not render (the plugin does) or decide what a page holds.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import importlib.metadata
import json
import logging
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from markupsafe import Markup

from tracer.contract import paths
from tracer.contract.addresses import mask_addresses
from tracer.contract.trace_format import SCHEMA_VERSION
from tracer.site.pages.read_page import ReadPage

CACHE_DIR = ".chalktrace-cache"  # in the course's work folder (build/, an edtrace course's var/chalktrace/: never committed)
SITE_CODE = Path(__file__).resolve().parent  # tracer/site: its modules, templates and assets
# The distributions whose code shapes a lecture page's bytes (a new nh3 may strip more; a new Pygments
# highlights otherwise): their versions are part of every key.
LIBRARIES = (
    "mkdocs",
    "mkdocs-material",
    "Markdown",
    "pymdown-extensions",
    "Pygments",
    "nh3",
    "Jinja2",
    "MarkupSafe",
    "vl-convert-python",
    "numpy",
    "PyYAML",
)
FORMAT = b"chalktrace-render-cache 1"  # an entry's first line: this, a space, the SHA-256 of the rest
MAX_ENTRY_BYTES = 1 << 30  # a bigger file is not an entry this cache wrote
log = logging.getLogger("mkdocs.plugins.chalktrace")


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


def library_versions() -> str:
    """The Python version and each of ``LIBRARIES``' installed versions, one line each."""
    lines = [f"python {sys.version}"]
    for name in LIBRARIES:
        try:
            lines.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            lines.append(f"{name} absent")
    return "\n".join(lines)


def settings_text(config: Any) -> str:
    """The MkDocs configuration as MkDocs resolved it (``INHERIT`` merged, ``!ENV`` read, defaults
    filled in), as stable text: mappings sorted, plugins by their options, any other object by its
    class and repr with addresses masked (an address changes per run, the option it stands for not)."""
    return json.dumps(_stable(config, 0), sort_keys=True, ensure_ascii=False)


def _stable(value: Any, depth: int) -> Any:
    if depth > 12:
        return "…"
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, Path):
        return str(value)
    config = getattr(value, "config", None)
    if not isinstance(value, Mapping) and isinstance(config, Mapping):  # a plugin: its options
        return {"plugin": type(value).__qualname__, "config": _stable(config, depth + 1)}
    if isinstance(value, Mapping) or (hasattr(value, "keys") and hasattr(value, "__getitem__")):
        try:
            return {str(k): _stable(value[k], depth + 1) for k in sorted(value.keys(), key=str)}
        except Exception:  # noqa: BLE001 (a mapping-like object that cannot list itself: its repr)
            pass
    if isinstance(value, (list, tuple)):
        return [_stable(v, depth + 1) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(repr(v) for v in value)
    return f"{type(value).__qualname__}: {mask_addresses(repr(value))}"


def renderer_version(templates_dir: Path, assets_dir: Path) -> str:
    """A digest of everything that renders a lecture: the site code with its own templates and assets,
    a course's templates or assets when it has its own, the trace format, and the versions of the
    libraries that shape the HTML."""
    digest = hashlib.sha256(f"schema {SCHEMA_VERSION}\0".encode())
    digest.update(library_versions().encode() + b"\0")
    digest.update(_files_digest([paths.PACKAGE_DIR / "contract"]).encode())  # the trace format, the paths
    own = [d.resolve() for d in (templates_dir, assets_dir) if d.is_dir() and not d.resolve().is_relative_to(SITE_CODE)]
    digest.update(_files_digest([SITE_CODE, *own]).encode())
    return digest.hexdigest()[:16]


def trace_digest(trace_bytes: bytes) -> bytes:
    """A trace's SHA-256, as a lecture's key names its kept GPU run (``RenderCache.key``'s ``beside``)."""
    return hashlib.sha256(trace_bytes).digest()


class RenderCache:
    def __init__(self, work_dir: Path, version: str) -> None:
        self.directory = work_dir / CACHE_DIR
        self.version = version
        self._memory: dict[str, Entry] = {}  # key -> entry, across serve's rebuilds
        self._used: set[str] = set()

    def key(self, name: str, trace_bytes: bytes, site_name: str, beside: bytes | None = None) -> str:
        """The key of a lecture's entry: its trace's bytes, the renderer, the settings and, for a page
        that also shows another trace (a lecture and its kept GPU run link to each other, each page
        naming what the other ran on), what names that trace (``beside``: its ``trace_digest``, or the
        key of the page made from it)."""
        digest = hashlib.sha256(trace_bytes)
        digest.update(f"\0{self.version}\0{site_name}".encode())
        if beside is not None:
            digest.update(b"\0beside\0" + beside)
        return f"{name.replace('/', '-')}-{digest.hexdigest()[:32]}"  # a kept GPU run's page name has a slash

    def _path(self, key: str) -> Path:
        return self.directory / f"{key}.json"

    def get(self, key: str) -> Entry | None:
        self._used.add(key)
        if key in self._memory:
            return self._memory[key]
        path = self._path(key)
        try:
            if path.stat().st_size > MAX_ENTRY_BYTES:
                return self._miss(path, f"larger than {MAX_ENTRY_BYTES:,} bytes")
            raw = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            return self._miss(path, f"cannot be read ({exc.strerror or exc})")
        head, newline, body = raw.partition(b"\n")
        if not newline or not head.startswith(FORMAT + b" "):
            return self._miss(path, "not an entry of this cache's format")
        if head[len(FORMAT) + 1 :] != hashlib.sha256(body).hexdigest().encode():
            return self._miss(path, "its bytes do not match their digest")
        try:
            entry = _entry_from(json.loads(body))
        except (ValueError, TypeError, KeyError, RecursionError) as exc:
            return self._miss(path, f"its content is not an entry ({type(exc).__name__})")
        self._memory[key] = entry
        return entry

    def _miss(self, path: Path, why: str) -> Entry | None:
        """A damaged entry: said in one line, removed, and the lecture rendered again."""
        log.info("chalktrace: render cache entry %s ignored: %s; rendering again", path.name, why)
        with contextlib.suppress(OSError):
            path.unlink()
        return None

    def put(self, key: str, entry: Entry) -> None:
        self._used.add(key)
        self._memory[key] = entry
        try:
            body = json.dumps(_entry_record(entry), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        except (TypeError, ValueError):
            return  # something not plain data (a search plugin's own object): rendered each time
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            temporary = self.directory / f".{key}.{os.getpid()}.tmp"
            temporary.write_bytes(FORMAT + b" " + hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
            os.replace(temporary, self._path(key))  # readers see a whole entry or none
        except OSError:
            pass  # a read-only checkout renders every time; the output is the same

    def finish(self) -> None:
        """Forget the entries this build did not use (old traces, another renderer version)."""
        for key in list(self._memory):
            if key not in self._used:
                del self._memory[key]
        if self.directory.is_dir():
            for path in [*self.directory.glob("*.json"), *self.directory.glob("*.pickle")]:
                if path.suffix == ".pickle" or path.stem not in self._used:  # pickles: an older cache's
                    with contextlib.suppress(OSError):
                        path.unlink()
        self._used = set()


# -- entries as data ---------------------------------------------------------------------------------
def _toc_record(items: Any) -> list[dict[str, Any]] | None:
    if items is None:
        return None
    return [
        {
            "title": item.title,
            "id": item.id,
            "level": item.level,
            "active": bool(getattr(item, "active", False)),
            "children": _toc_record(item.children),
        }
        for item in items
    ]


def _toc_from(record: Any) -> Any:
    from mkdocs.structure.toc import AnchorLink, TableOfContents

    def links(items: list[Any]) -> list[Any]:
        made = []
        for item in items:
            link = AnchorLink(_text(item["title"]), _text(item["id"]), int(item["level"]))
            if item.get("active"):
                link.active = True  # type: ignore[attr-defined]
            link.children = links(_list(item["children"]))
            made.append(link)
        return made

    return None if record is None else TableOfContents(links(_list(record)))


def _entry_record(entry: Entry) -> dict[str, Any]:
    page = entry.read_page
    return {
        "read_page": None
        if page is None
        else {"markdown": page.markdown, "slots": [str(s) for s in page.slots], "nonce": page.nonce},
        "source_page": entry.source_page,
        "data_js": entry.data_js,
        "exact_js": entry.exact_js,
        "charts": entry.charts,
        "heatmaps": {name: base64.b64encode(png).decode("ascii") for name, png in entry.heatmaps.items()},
        "content": entry.content,
        "toc": _toc_record(entry.toc),
        "search_entries": entry.search_entries,
    }


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError("a text field is not text")
    return value


def _optional_text(value: Any) -> str | None:
    return None if value is None else _text(value)


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError("a list field is not a list")
    return value


def _texts(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        raise TypeError("a mapping field is not a mapping")
    return {_text(k): _text(v) for k, v in value.items()}


def _entry_from(record: Any) -> Entry:
    """The entry a record describes; TypeError/KeyError/ValueError when it is not one."""
    if not isinstance(record, dict):
        raise TypeError("not an object")
    page = record["read_page"]
    read_page = None
    if page is not None:
        if not isinstance(page, dict):
            raise TypeError("read_page is not an object")
        read_page = ReadPage(
            markdown=_text(page["markdown"]), slots=[Markup(_text(s)) for s in _list(page["slots"])], nonce=_text(page["nonce"])
        )
    search = record["search_entries"]
    if search is not None and not all(isinstance(item, dict) for item in _list(search)):
        raise TypeError("a search entry is not an object")
    return Entry(
        read_page=read_page,
        source_page=_optional_text(record["source_page"]),
        data_js=_optional_text(record["data_js"]),
        exact_js=_optional_text(record["exact_js"]),
        charts=_texts(record["charts"]),
        heatmaps={name: base64.b64decode(png, validate=True) for name, png in _texts(record["heatmaps"]).items()},
        content=_optional_text(record["content"]),
        toc=_toc_from(record["toc"]),
        search_entries=search,
    )
