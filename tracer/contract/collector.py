"""Python's cyclic garbage collector held off while a big trace's data is made or read.

A 100,000-step trace is millions of dicts, lists and strings. While they are being made (recorded
steps written out, a trace file parsed, a lecture's step mode data rendered and packed), each of the
collector's full passes walks every one of them again and frees almost nothing: JSON parsing and
string formatting make no reference cycles, and step mode's data makes few (Jinja's render
contexts). On the 100,005-step bench lecture such passes cost the site build 2.6 s, and the
interpreter's passes at exit over a build's traces another 2 s (the plugin lets go of them when its
build ends). ``paused()`` turns the collector off for one such block, and back on after it as it
was; with ``collect_after``, one pass at the end frees the block's cycles at once.

Data that is kept, not only made, costs passes too: a trace parsed with the collector paused is
walked in full by the first passes after it (the renderer's first loop over the 100,005-step trace:
1.6 s, against 0.3 s). ``set_aside()`` takes every object alive out of the collector's reach
(``gc.freeze``) until ``bring_back()``: the site build sets each trace aside once it is loaded, and
brings them back when it ends (the freed traces need no pass: they hold no cycles). ``serve`` does
not: its server threads' objects would be set aside too, and their cycles kept for long after.

This module only switches the collector; it must not decide what is built or read.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused(*, collect_after: bool = False) -> Iterator[None]:
    """The collector off while the block runs. A pause inside a pause, or in a program that turned
    the collector off itself, leaves it as it was (and collects nothing). ``collect_after``: one full
    pass when the block ends, for the few cycles it made."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if collect_after:
                gc.collect()
            gc.enable()


def set_aside() -> None:
    """Every object alive now out of the collector's passes (``gc.freeze``: long-kept data such as a
    loaded trace), until ``bring_back()``. Cheap: no object is visited."""
    gc.freeze()


def bring_back() -> None:
    """What ``set_aside`` took out, back in the collector's reach (its oldest generation): cycles
    among it can be freed again."""
    gc.unfreeze()
