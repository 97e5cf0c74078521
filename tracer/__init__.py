"""chalktrace: run a lecture written as Python under a tracer and publish it as a steppable site.

Lectures import the authoring API from here: ``from tracer import text, image, link, note, plot,
system_text, code, diff, columns, callout`` (or ``from tracer import *``: ``__all__`` is the whole authoring API). Lectures
written for edtrace (``import edtrace``, or the 2025 course's ``execute_util``) need no change:
while they are traced those names resolve to this API (``tracer.capture.import_alias``).
The package has four parts: ``contract`` (the trace format and file layout both sides share),
``capture`` (runs a lecture and records it), ``site`` (renders traces with MkDocs) and ``commands``
(the ``chalktrace`` command, the only part that imports both sides; ``cli`` parses its arguments).

This package root must stay light: it loads the authoring API only when a name of it is first asked
for (module ``__getattr__``), so importing the site side (the MkDocs plugin) loads no capture
module and no torch, and ``text()`` calls cost nothing when a lecture is run with plain Python.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# Each name of the authoring API, with the capture module that holds it.
_AUTHORING_API = {
    "text": "api",
    "image": "api",
    "video": "api",
    "link": "api",
    "note": "api",
    "plot": "api",
    "table": "api",
    "graph": "api",
    "make_graph": "graphs",
    "system_text": "api",
    "code": "api",
    "diff": "api",
    "columns": "api",
    "callout": "api",
    "speaker_note": "api",
    "Reference": "references",
    "url_reference": "references",
}
__all__ = [
    "text",
    "image",
    "video",
    "link",
    "note",
    "plot",
    "table",
    "graph",
    "make_graph",
    "system_text",
    "code",
    "diff",
    "columns",
    "callout",
    "speaker_note",
    "Reference",
    "url_reference",
]
assert sorted(__all__) == sorted(_AUTHORING_API)

if TYPE_CHECKING:
    from tracer.capture.api import (
        callout,
        code,
        columns,
        diff,
        graph,
        image,
        link,
        note,
        plot,
        speaker_note,
        system_text,
        table,
        text,
        video,
    )
    from tracer.capture.graphs import make_graph
    from tracer.capture.references import Reference, url_reference


def __getattr__(name: str) -> Any:
    module = _AUTHORING_API.get(name)
    if module is None:
        raise AttributeError(f"module 'tracer' has no attribute {name!r}")
    return getattr(importlib.import_module(f"tracer.capture.{module}"), name)
