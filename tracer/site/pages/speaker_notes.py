"""The speaker view's notes: each step's ``speaker_note()`` markdown, rendered to HTML, kept out of the site.

``speaker_notes(trace)`` lists ``[step, html]`` for every step that recorded notes, in step order;
the viewer shows a step the notes of the latest such step at or before it (until the next note).
A build writes them to the notes file (``notes_text``, at ``paths.notes_path``: beside the built
site, never in it); ``chalktrace present`` reads that file and sends the notes to the presenter's
pages alone. ``data.js`` says only whether a lecture has notes (``has_speaker_notes``).
This module must not put note text anywhere a published page or ``data.js`` reads, nor decide how
the speaker view looks (assets/viewer-speaker.js does).
"""

from __future__ import annotations

import json
from typing import Any

from tracer.site.markdown_ext.mathml import render_markdown
from tracer.contract.trace_format import Trace

NOTES_VERSION = 1


def speaker_notes(trace: Trace) -> list[list[Any]]:
    """``[[step index, html], ...]`` for the steps with speaker notes (several notes on a step: joined)."""
    found: list[list[Any]] = []
    for index, step in enumerate(trace["steps"]):
        notes = step.get("speaker_notes")
        if notes:
            found.append([index, "\n".join(render_markdown(note) for note in notes)])
    return found


def has_speaker_notes(trace: Trace) -> bool:
    return any(step.get("speaker_notes") for step in trace["steps"])


def notes_text(trace: Trace) -> str:
    """The notes file of one lecture: ``{"version", "lecture", "notes": [[step, html], ...]}`` as JSON."""
    data = {"version": NOTES_VERSION, "lecture": trace["lecture"]["name"], "notes": speaker_notes(trace)}
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"
