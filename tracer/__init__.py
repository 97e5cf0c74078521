"""chalktrace: run a lecture written as Python under a tracer and publish it as a steppable site.

Lectures import the authoring API from here: ``from tracer import text, image, link, note, plot,
system_text`` (or ``from tracer import *``: ``__all__`` is the whole authoring API; a course whose
lectures import ``execute_util`` adds the one-line ``execute_util.py`` that the README shows).
Everything else lives in modules named for their job (recorder, values, directives, trace_format,
runner, cli, mkdocs_plugin, ...). This package root must stay light: importing it must not import
torch, so that ``text()`` calls cost nothing when a lecture is run with plain Python.
"""

from tracer.capture.api import image, link, note, plot, speaker_note, system_text, text

__all__ = ["text", "image", "link", "note", "plot", "system_text", "speaker_note"]
__version__ = "0.1.0"
