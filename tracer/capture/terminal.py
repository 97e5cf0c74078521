"""chalktrace's own stderr: where its messages go whatever the lecture does to ``print``, ``sys.stderr`` or fd 2.

``save()`` is called when a command starts and before a lecture is imported; it keeps the stderr of
that moment (a duplicate of its file descriptor when it has one, so that a lecture that closes,
replaces or redirects its stderr, and the traced process's own capture of fd 2, cannot swallow chalktrace's
messages). ``say()`` writes one message there with ``write``, never ``print`` (which a lecture may
patch). This module must stay free of imports beyond the standard library and must not capture the
lecture's output (``traced_process`` does).
"""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO

_saved: TextIO | None = None
_owned = False  # _saved is our duplicate of a file descriptor
_earlier: list[TextIO] = []  # duplicates saved before, kept open for whoever holds them


def save(stream: Any = None) -> TextIO:
    """Keep ``stream`` (default: ``sys.stderr`` now) as chalktrace's own stderr, and return it."""
    global _saved, _owned
    stream = stream if stream is not None else sys.stderr
    if _saved is not None and stream is _saved:
        return _saved
    kept, owned = stream, False
    try:
        fd = stream.fileno()
        kept = open(
            os.dup(fd),
            "w",
            encoding=getattr(stream, "encoding", None) or "utf-8",
            errors="backslashreplace",
            buffering=1,
            closefd=True,
        )
        owned = True
        stream.flush()
    except (AttributeError, OSError, ValueError):  # no descriptor (a StringIO, a test's capture): itself
        pass
    if _owned and _saved is not None:
        _earlier.append(_saved)  # never closed: a caller may still hold it (one descriptor per save)
    _saved, _owned = kept, owned
    return kept


def stderr() -> TextIO:
    """chalktrace's own stderr (saved now if nothing was saved yet)."""
    return _saved if _saved is not None else save()


def say(message: str) -> None:
    """Write one message line to chalktrace's own stderr (never through the lecture's ``print``)."""
    stream = stderr()
    try:
        stream.write(message + "\n")
        stream.flush()
    except (OSError, ValueError):  # closed under us: the process's original stderr, by descriptor
        try:
            os.write(2, (message + "\n").encode("utf-8", "backslashreplace"))
        except OSError:
            pass
