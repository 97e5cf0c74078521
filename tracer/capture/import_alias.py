"""The import alias of a traced run: ``edtrace`` and ``execute_util`` resolve to chalktrace's API.

``installed()`` puts a meta-path finder first on ``sys.meta_path`` for the length of a run (the
runner holds it around the lecture's import and its ``main()``): ``import edtrace``,
``from edtrace import text``, ``edtrace.file_util``, ``edtrace.reference`` and the 2025 course's
``execute_util`` get fresh module objects holding ``capture.edtrace_compat``'s names, ahead of any
installed edtrace or a course's old ``execute_util.py`` (whose renderings chalktrace would never
see). Any ``edtrace`` modules already imported are set aside and put back afterwards; nothing is
installed and nothing is left in ``sys.modules``. A name the alias does not have fails the import
with a message saying so. This module must not know what the names do.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import sys
import types
from typing import Any, Iterator, Sequence

from tracer.capture.edtrace_compat import NAMESPACES

_PACKAGES = frozenset(name.split(".")[0] for name in NAMESPACES if "." in name)


def _aliased(name: str) -> bool:
    return name in NAMESPACES or name.split(".")[0] in _PACKAGES


class MissingName(ImportError):
    """A name of edtrace's that the alias lacks (an ImportError, so ``from edtrace import x`` keeps the message)."""


class _Missing:
    """A module-level ``__getattr__``: a name the alias lacks fails with a message that says so."""

    def __init__(self, module: str) -> None:
        self.module = module

    def __call__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise MissingName(
            f"{self.module}.{name} has no chalktrace equivalent yet "
            f"(chalktrace provides {self.module} for edtrace courses; see `chalktrace check`)"
        )


class AliasLoader(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = types.ModuleType(spec.name, f"chalktrace's alias of {spec.name}")
        module.__dict__.update(NAMESPACES.get(spec.name, {}))
        module.__dict__["__all__"] = list(NAMESPACES.get(spec.name, {}))
        module.__dict__["__getattr__"] = _Missing(spec.name)
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        pass


class AliasFinder(importlib.abc.MetaPathFinder):
    loader = AliasLoader()

    def find_spec(self, fullname: str, path: Sequence[str] | None = None, target: Any = None) -> Any:
        if not _aliased(fullname):
            return None
        if fullname not in NAMESPACES:
            return None  # edtrace.execute and the like: an ImportError, as for any missing module
        spec = importlib.machinery.ModuleSpec(fullname, self.loader, is_package=fullname in _PACKAGES)
        if fullname in _PACKAGES:
            spec.submodule_search_locations = []
        return spec


def _owned(name: str) -> bool:
    return _aliased(name)


def install_for_process() -> None:
    """The alias for the rest of this process: a rank's process, which loads the lecture to run one
    of its functions, and ends with it."""
    if not any(isinstance(finder, AliasFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, AliasFinder())


@contextlib.contextmanager
def installed() -> Iterator[AliasFinder]:
    """The alias in force inside the block; ``sys.modules`` and ``sys.meta_path`` as before afterwards."""
    saved = {name: module for name, module in sys.modules.items() if _owned(name)}
    for name in saved:
        del sys.modules[name]
    finder = AliasFinder()
    sys.meta_path.insert(0, finder)
    try:
        yield finder
    finally:
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(finder)
        for name in [n for n in sys.modules if _owned(n)]:
            del sys.modules[name]
        sys.modules.update(saved)
