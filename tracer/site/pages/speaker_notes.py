"""The speaker view's notes: each step's ``speaker_note()`` markdown, rendered to HTML for ``data.js``.

``speaker_notes(trace)`` lists ``[step, html]`` for every step that recorded notes, in step order;
the viewer shows a step the notes of the latest such step at or before it (until the next note).
Notes go only to the step viewer's data, never into a page's HTML: the read page and present mode
must not show them. This module must not decide how the speaker view looks (assets/viewer-speaker.js does).
"""

from __future__ import annotations

from typing import Any

from tracer.site.markdown_ext.mathml import render_markdown
from tracer.contract.trace_format import Trace


def speaker_notes(trace: Trace) -> list[list[Any]]:
    """``[[step index, html], ...]`` for the steps with speaker notes (several notes on a step: joined)."""
    found: list[list[Any]] = []
    for index, step in enumerate(trace["steps"]):
        notes = step.get("speaker_notes")
        if notes:
            found.append([index, "\n".join(render_markdown(note) for note in notes)])
    return found
