"""The lecture's module: loaded from its file under one private name, the way ``runpy`` runs ``__main__``.

A lecture may be named like any module (``numbers.py``, ``inspect.py``, ``tracer.py``): it is never
registered in ``sys.modules`` under its own name, so it shadows nothing the libraries it uses
import. Functions a rank runs are pickled by reference to this private name; a rank's process loads
the lecture file again under the same name (as ``multiprocessing`` does with ``__mp_main__``). This
module must not trace or run ``main()`` (the runner does).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

LECTURE_MODULE = "__chalktrace_lecture__"


def load_lecture(path: Path) -> ModuleType:
    """Execute the lecture file as module :data:`LECTURE_MODULE` (replacing an earlier one); raises
    what its module-level code raises."""
    spec = importlib.util.spec_from_file_location(LECTURE_MODULE, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[LECTURE_MODULE] = module  # dataclasses, pickle and typing look classes up by module name
    spec.loader.exec_module(module)
    return module


def lecture_attribute(path: str, qualname: str) -> Any:
    """``qualname`` in the lecture at ``path``, loading the lecture first in a process that has not (a rank's)."""
    module = sys.modules.get(LECTURE_MODULE)
    loaded = getattr(module, "__file__", None)
    if module is None or not loaded or os.path.realpath(loaded) != os.path.realpath(path):
        from tracer.capture import import_alias  # edtrace's names, as in the parent's run

        import_alias.install_for_process()
        module = load_lecture(Path(path))
    value: Any = module
    for part in qualname.split("."):
        value = getattr(value, part)
    return value


def importer_source(path: Path) -> str:
    """The text of a module named :data:`LECTURE_MODULE` that runs the lecture at ``path`` when a
    process the lecture started imports it (to unpickle a function or class of the lecture)."""
    return (
        "# Written by chalktrace while a lecture runs: a process it starts imports the lecture by this name.\n"
        f"from tracer.capture.lecture_module import run_in_module\nrun_in_module(__name__, {str(path)!r})\n"
    )


def run_in_module(name: str, path: str) -> None:
    """Run the lecture file at ``path`` in the module ``name`` being imported (see importer_source),
    with edtrace's names available as in the traced run."""
    from tracer.capture import import_alias

    import_alias.install_for_process()
    module = sys.modules[name]
    module.__file__ = path
    exec(compile(Path(path).read_bytes(), path, "exec"), module.__dict__)  # noqa: S102 (the lecture's own code)
