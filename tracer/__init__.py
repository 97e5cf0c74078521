"""chalktrace: run a lecture written as Python under a tracer and publish it as a steppable site.

Lectures import the authoring API from here: ``from tracer import text, image, link, note, plot,
system_text`` (or ``from tracer import *``: ``__all__`` is the whole authoring API). Lectures
written for edtrace (``import edtrace``, or the 2025 course's ``execute_util``) need no change:
while they are traced those names resolve to this API (``tracer.capture.import_alias``).
Everything else lives in modules named for their job (recorder, values, directives, trace_format,
runner, cli, mkdocs_plugin, ...). This package root must stay light: importing it must not import
torch, so that ``text()`` calls cost nothing when a lecture is run with plain Python.
"""

from tracer.capture.api import graph, image, link, note, plot, speaker_note, system_text, text, video
from tracer.capture.graphs import make_graph
from tracer.capture.references import Reference, url_reference

__all__ = ["text", "image", "video", "link", "note", "plot", "graph", "make_graph", "system_text", "speaker_note",
           "Reference", "url_reference"]
__version__ = "0.1.0"
