"""File utilities both sides share: atomic writes and the digest a trace records for each source.

Capture's caches, the trace writer and the site's outputs write through :func:`write_atomic`, so a
reader never sees half a file; :func:`sha256_file` is the one digest of ``sources`` and freshness.
It must not know what a trace holds.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path


def sha256_file(path: str | os.PathLike[str]) -> str:
    """The digest recorded in a trace's ``sources``: sha256 of the file's bytes as they are on disk.

    The runner (writing ``sources``) and freshness (``tracer.commands.freshness``) both call this one function, so
    a file is fresh whatever its line endings (hashing newline-normalised text on one side and raw
    bytes on the other made every CRLF lecture look stale)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _umask() -> int:
    """The process umask, read without changing it (Linux reports it in /proc; else assume 022)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


def write_atomic(path: str | os.PathLike[str], text: str | bytes) -> None:
    """Write ``text`` (or bytes: a PDF) to ``path`` so that readers see either the old file or the whole new one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp's 0600 would make committed traces private
        with os.fdopen(fd, "wb") as f:
            f.write(text.encode("utf-8") if isinstance(text, str) else text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
