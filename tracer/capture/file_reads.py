"""Which project files a lecture read while it was imported and ran: the trace hashes them all.

``FileReads`` listens to the interpreter's ``open`` audit events (``open()``, ``io.open_code`` behind
every import, ``os.open``) and notes the modules imported meanwhile, and at the end names the files
inside the project that were read and not written: data files, and modules imported from anywhere
in the project (a root-level ``utils.py`` too). Freshness then hashes them like the lecture's own
sources, so editing a data file the lecture reads makes its trace stale. Left out: chalktrace's own
package, virtual environments and installed packages (and an editable install's metadata in the project), caches (the course's fetch cache too: what a
URL gave is not an input the lecture's author edits), version control, the traces and the built site, and an edtrace course's ``var/`` (what its lectures write there is output, not input). This module must not hash (``header`` does) or decide freshness (``regen`` does).
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any, Iterator

from tracer.contract import course_layout, paths
from tracer.capture import audit

# Directory names whose files are never a lecture's input.
_SKIPPED_PARTS = frozenset(
    {
        ".venv",
        "venv",
        "site-packages",
        "dist-packages",
        "__pycache__",
        ".git",
        ".hg",
        "node_modules",
        ".mypy_cache",
        ".pytest_cache",
        ".ipynb_checkpoints",
    }
)
# An editable install writes its package metadata into the project (``NAME.egg-info/``), and
# importlib.metadata reads it whenever a library looks up entry points: installed state, not input.
_METADATA_DIRS = (".egg-info", ".dist-info")
_LOOKING_UP_SOURCE = frozenset({"linecache", "tokenize", "inspect", "traceback"})
_WRITING = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC


class FileReads:
    """Collects the paths opened for reading, and for writing, while :meth:`recording` runs."""

    def __init__(self, project_root: Path) -> None:
        self.project_root = project_root.resolve()
        self._read: dict[str, None] = {}  # absolute paths, in order of first read
        self._written: set[str] = set()
        self._modules_before: set[str] = set()
        self._modules: list[str] = []

    @contextlib.contextmanager
    def recording(self) -> Iterator["FileReads"]:
        self._modules_before = set(sys.modules)
        with audit.listening(self._on_event, ("open",)):
            try:
                yield self
            finally:
                for name, module in list(sys.modules.items()):
                    if name not in self._modules_before:
                        path = getattr(module, "__file__", None)
                        if isinstance(path, str) and path.endswith(".py"):
                            self._modules.append(os.path.abspath(path))

    def add_modules(self, namespaces: list[dict[str, Any]]) -> None:
        """Also the modules these namespaces (the lecture's modules) hold: one imported before the
        recording (by an earlier run in this process) was not opened again, yet the lecture uses it."""
        for namespace in namespaces:
            for value in list(namespace.values()):
                path = getattr(value, "__file__", None) if isinstance(value, ModuleType) else None
                if isinstance(path, str) and path.endswith(".py"):
                    self._modules.append(os.path.abspath(path))

    def _on_event(self, event: str, args: tuple[Any, ...]) -> None:
        if event != "open":
            return
        frame: FrameType | None = sys._getframe(1)
        for _ in range(12):  # a source line looked up for a traceback or a warning is not an input
            if frame is None:
                break
            if frame.f_globals.get("__name__") in _LOOKING_UP_SOURCE:
                return
            frame = frame.f_back
        path, mode, flags = (tuple(args) + (None, None, None))[:3]
        if isinstance(path, int) or path is None:
            return  # an already-open descriptor: its file was opened (and seen) before
        try:
            path = os.path.abspath(os.fsdecode(path))
        except (TypeError, ValueError, OSError):
            return
        if isinstance(mode, str):
            writes = any(c in mode for c in "wax+")
        else:
            writes = isinstance(flags, int) and bool(flags & _WRITING)
        if writes:
            self._written.add(path)
        else:
            self._read.setdefault(path)

    def project_files(self, exclude: tuple[Path, ...] = ()) -> list[str]:
        """Project-relative paths of the files read (and modules imported), sorted; see the module doc.
        ``exclude``: more files or folders that are never inputs (the trace itself, the fetch cache)."""
        layout = course_layout.quiet_layout_of(self.project_root)
        skipped = [p.resolve() for p in exclude] + [
            paths.PACKAGE_DIR.resolve(),
            layout.traces_dir.resolve(),
            self.project_root / paths.BUILD_DIR,
            *([layout.scratch_dir.resolve()] if layout.scratch_dir is not None else []),  # what lectures write
        ]
        found = set()
        for path in [*self._read, *self._modules]:
            if path in self._written or path.endswith((".pyc", ".pyo")):
                continue
            resolved = Path(path).resolve()
            if not resolved.is_relative_to(self.project_root) or any(resolved.is_relative_to(s) for s in skipped):
                continue
            rel = resolved.relative_to(self.project_root)
            if (
                _SKIPPED_PARTS.intersection(rel.parts)
                or any(part.endswith(_METADATA_DIRS) for part in rel.parts)
                or not resolved.is_file()
            ):
                continue
            found.add(rel.as_posix())
        return sorted(found)
