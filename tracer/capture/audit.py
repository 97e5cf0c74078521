"""One process-wide audit hook (``sys.addaudithook``) that hands events to whoever listens now.

Audit hooks cannot be removed once added, so chalktrace adds one, the first time something listens,
and it does nothing while nobody does. Listeners (the traced process's descriptor capture, the record of
files a lecture reads) register for the length of a run with :func:`listening`, naming the events
they want. Every ``id()`` call and every ``frame.f_code`` read raises an audit event too (the
recorder does both once per traced call), so the hook answers any other event with one set lookup.
This module must not decide anything about events: listeners do.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any, Callable, Iterable, Iterator

Listener = Callable[[str, tuple[Any, ...]], None]
_listeners: list[tuple[Listener, frozenset[str]]] = []
_wanted: frozenset[str] = frozenset()  # the union of the listeners' events, read by the hook
_installed = False


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if event in _wanted:
        for listener, events in tuple(_listeners):
            if event in events:
                listener(event, args)


def _update() -> None:
    global _wanted
    _wanted = frozenset().union(*(events for _listener, events in _listeners))


@contextlib.contextmanager
def listening(listener: Listener, events: Iterable[str]) -> Iterator[None]:
    """``listener(event, args)`` gets each audit event named in ``events`` raised while the block runs."""
    global _installed
    if not _installed:
        sys.addaudithook(_hook)
        _installed = True
    entry = (listener, frozenset(events))
    _listeners.append(entry)
    _update()
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            _listeners.remove(entry)
        _update()
