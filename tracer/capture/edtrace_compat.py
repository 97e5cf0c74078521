"""edtrace's authoring API over chalktrace's, so that courses written for edtrace run unchanged.

While a lecture is traced, ``import edtrace`` (and ``edtrace.execute_util``, ``edtrace.reference``,
``edtrace.file_util``, and the 2025 course's top-level ``execute_util``) resolve to the namespaces
below (``capture.import_alias`` provides them). Each name keeps edtrace's signature, positional
order included (``image(url, style, width)``, ``link(arg, style, **fields)``), and records what
chalktrace's own call records: the two APIs produce the same traces. ``EDTRACE_NAMES`` lists
edtrace's public names and ``UNSUPPORTED`` the ones with no equivalent yet (``check`` reports a
lecture that uses one). An image with no ``alt`` takes the alt text the course's ``chalktrace.toml`` gives for its path
or URL (``[alt_text]``: edtrace's ``image()`` takes no ``alt``, so the lecture stays as it is). This
module must not hold logic of its own beyond argument mapping.
"""

from __future__ import annotations

import os
from typing import Any

from tracer.capture import api, remote
from tracer.capture.api import note, plot, system_text as _system_text, text
from tracer.capture.downloads import download_file
from tracer.capture.graphs import make_graph
from tracer.capture.references import Reference, url_reference
from tracer.contract.course_layout import quiet_layout_of


def image(
    url: str | os.PathLike[str],
    style: dict[str, Any] | None = None,
    width: int | str | None = None,
    *,
    alt: str | None = None,
    caption: str | None = None,
) -> None:
    """edtrace's ``image(url, style=None, width=None)``: chalktrace's ``image()``; with no ``alt``,
    the alt text the course gives for ``url`` in ``chalktrace.toml`` (``[alt_text]``)."""
    if alt is None:
        alt = course_alt_text(os.fspath(url))
    api.image(url, width=width, style=style, alt=alt, caption=caption)


def course_alt_text(url: str) -> str | None:
    """The alt text ``chalktrace.toml``'s ``[alt_text]`` gives for an image path or URL (as the
    lecture writes it), while a lecture is traced; else None."""
    fetcher = remote.current()
    if fetcher is None:
        return None
    given = quiet_layout_of(fetcher.project_root).alt_text or {}
    return given.get(url) or given.get(url.removeprefix("./"))


def video(
    url: str | os.PathLike[str],
    style: dict[str, Any] | None = None,
    width: int | str | None = None,
    *,
    caption: str | None = None,
) -> None:
    """edtrace's ``video(url, style=None, width=None)``: chalktrace's ``video()``."""
    api.video(url, width=width, style=style, caption=caption)


def link(arg: Any = None, style: dict[str, Any] | None = None, **fields: Any) -> None:
    """edtrace's ``link(arg=None, style=None, **fields)``: a Reference, a URL (arXiv ones cited), a
    function or class, or ``title=``/``url=`` and the other Reference fields."""
    api.link(arg, style=style, **fields)


def graph(spec: dict[str, Any] | None, style: dict[str, Any] | None = None) -> None:
    """edtrace's ``graph(spec, style=None)``."""
    api.graph(spec, style=style)


def system_text(command: list[str]) -> None:
    """edtrace's ``system_text(command)``: run while tracing, output shown preformatted."""
    _system_text(command)


# The namespaces the import alias serves (module name -> its public names).
PACKAGE = {
    "text": text,
    "image": image,
    "video": video,
    "link": link,
    "plot": plot,
    "graph": graph,
    "make_graph": make_graph,
    "note": note,
    "system_text": system_text,
    "Reference": Reference,
    "url_reference": url_reference,
}
NAMESPACES: dict[str, dict[str, Any]] = {
    "edtrace": PACKAGE,
    "edtrace.execute_util": PACKAGE,
    "edtrace.reference": {"Reference": Reference},
    "edtrace.file_util": {"download_file": download_file},
    "execute_util": PACKAGE,  # the 2025 course's module of the same functions
}
EDTRACE_NAMES = tuple(PACKAGE)  # edtrace.__all__
# edtrace's internals that a lecture might reach for, with no chalktrace equivalent (check names them).
UNSUPPORTED = {
    "edtrace.execute_util": ("pop_renderings", "Rendering", "CodeLocation", "is_url"),
    "edtrace.file_util": ("cached", "relativize"),
    "edtrace.arxiv_util": ("arxiv_reference", "is_arxiv_link", "canonicalize"),
    "edtrace.execute": ("execute",),
}
