"""chalktrace: run a lecture written as Python under a tracer and publish it as a steppable site.

Lectures import the authoring API from here: ``from tracer import text, image, link, note, plot,
system_text`` (or ``from tracer import *``: ``__all__`` is the whole authoring API; a course whose
lectures import ``execute_util`` adds the one-line ``execute_util.py`` that the docs show).
The package has four parts: ``contract`` (the trace format and file layout both sides share),
``capture`` (runs a lecture and records it), ``site`` (renders traces with MkDocs) and ``commands``
(the ``chalktrace`` command, the only part that imports both sides; ``cli`` parses its arguments).

This package root must stay light: it loads the authoring API only when a name of it is first asked
for (module ``__getattr__``), so importing the site side (the MkDocs plugin) loads no capture
module and no torch, and ``text()`` calls cost nothing when a lecture is run with plain Python.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["text", "image", "link", "note", "plot", "system_text", "speaker_note"]
__version__ = "0.1.0"

if TYPE_CHECKING:
    from tracer.capture.api import image, link, note, plot, speaker_note, system_text, text


def __getattr__(name: str) -> Any:
    if name in __all__:
        from tracer.capture import api

        return getattr(api, name)
    raise AttributeError(f"module 'tracer' has no attribute {name!r}")
