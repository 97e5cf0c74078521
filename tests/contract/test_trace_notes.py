"""tracer/contract/trace_notes.py: the notes above a lecture say each warning once and what was cut short."""

from __future__ import annotations

from tracer.contract.trace_notes import trace_notes


def test_trace_notes_add_each_ranks_warnings_once_and_its_step_cap():
    shared = "l.py:3: unknown directive @foo"  # every rank parses the same lecture
    streams = [
        {"rank": 0, "warnings": [shared]},
        {
            "rank": 1,
            "warnings": [shared, "l.py: rank 1: stderr: printed 9 characters"],
            "truncated": {"max_steps": 5, "stderr_chars": 9},
        },
    ]
    trace = {"warnings": [shared], "truncated": None, "ranks": {"launches": [{"streams": streams}]}}
    assert trace_notes(trace) == [
        shared,
        "l.py: rank 1: stderr: printed 9 characters",  # type: ignore[arg-type]
        "rank 1: recording stopped after 5 steps",
    ]
