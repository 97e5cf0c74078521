"""The course's own helpers, written against edtrace's API."""

import time

from edtrace import link, text


def say(message: str, **kwargs) -> None:
    """Text shown as typed (the course's lectures pass their own options on)."""
    text(message, verbatim=True, **kwargs)


def paper(reference) -> None:
    link(reference)


def seconds_for(function, repeats: int = 3) -> float:
    """The best of a few wall-clock timings of ``function()``."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best
