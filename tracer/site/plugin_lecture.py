"""What the plugin holds of one lecture during a build (``LecturePage``): its trace, renderer, read page,
kept GPU run and cache entry, from ``on_config`` to ``on_post_build``.

Plain state for ``mkdocs_plugin``; it must not read files, render or decide what a page shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tracer.contract import paths
from tracer.contract.trace_format import Trace
from tracer.site.cards.render import HtmlRenderer
from tracer.site.pages.kept_gpu_run import gpu_run_title
from tracer.site.pages.read_page import ReadPage
from tracer.site.render_cache import Entry


@dataclass
class LecturePage:
    name: str
    trace: Trace
    trace_path: Path
    renderer: HtmlRenderer | None
    page: ReadPage | None = None
    failure: str | None = None  # why this lecture's page shows an error card instead of the lecture
    gpu_run: str | None = None  # the page name of this lecture's kept GPU run, if it has one
    gpu_run_of: str | None = None  # on a kept GPU run: the lecture it belongs to
    cache_key: str | None = None  # its rendering cache entry's key (None: not cached)
    cached: Entry | None = None  # what an earlier build rendered of this very trace (tracer.site.render_cache)

    @property
    def title(self) -> str:
        title = (self.trace.get("lecture") or {}).get("title") if self.failure is None else None
        if title and self.gpu_run_of is not None:
            return gpu_run_title(title, self.trace)
        return title or self.name

    @property
    def src_uri(self) -> str:
        return paths.lecture_src_uri(self.name)
