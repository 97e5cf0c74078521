"""tracer/site/pages/speaker_notes.py: each step's notes as HTML, in step order, from a real trace."""

from __future__ import annotations

from tracer.site.pages.speaker_notes import speaker_notes
from helpers.traced import traced


def test_notes_are_listed_by_step_as_html():
    trace = traced("classroom")
    notes = speaker_notes(trace)
    steps = [i for i, step in enumerate(trace["steps"]) if step.get("speaker_notes")]
    assert [step for step, _html in notes] == steps and len(steps) == 2
    assert "<strong>question</strong>" in notes[0][1]
    assert "<em>square</em>" in notes[1][1] and "diagonal" in notes[1][1]


def test_several_notes_on_one_step_are_joined_and_a_trace_without_notes_has_none():
    trace = {"steps": [{"speaker_notes": ["one", "two"]}, {}]}
    assert speaker_notes(trace) == [[0, "<p>one</p>\n<p>two</p>"]]  # type: ignore[arg-type]
    assert speaker_notes(traced("nested_calls")) == []
