"""One process-wide audit hook (``sys.addaudithook``) that hands events to whoever listens now.

Audit hooks cannot be removed once added, so chalktrace adds one, the first time something listens,
and it does nothing while nobody does. Listeners (the session's descriptor capture, the record of
files a lecture reads) register for the length of a run with :func:`listening`. This module must
not decide anything about events: listeners do.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any, Callable, Iterator

Listener = Callable[[str, tuple[Any, ...]], None]
_listeners: list[Listener] = []
_installed = False


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if _listeners:
        for listener in tuple(_listeners):
            listener(event, args)


@contextlib.contextmanager
def listening(listener: Listener) -> Iterator[None]:
    """``listener(event, args)`` gets every audit event raised while the block runs."""
    global _installed
    if not _installed:
        sys.addaudithook(_hook)
        _installed = True
    _listeners.append(listener)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            _listeners.remove(listener)
