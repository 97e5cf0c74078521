"""Fixture for unpublished speaker notes: notes as a call, as a module attribute, over several lines, in a function."""

import tracer
from tracer import speaker_note, text


def explain(n):
    speaker_note("SECRET-NOTE-3: the helper's note")
    return n * 2


def main():
    text("# Secret notes")
    speaker_note("SECRET-NOTE-4711: the answer to exercise 3 is 42")
    x = 1  # @inspect x
    tracer.speaker_note("""
        SECRET-NOTE-2: over
        several lines
    """)
    y = explain(x)  # @inspect y
    text("Done.")
