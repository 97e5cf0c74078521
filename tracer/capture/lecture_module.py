"""The lecture's module: loaded from its file under one private name, the way ``runpy`` runs ``__main__``.

A lecture may be named like any module (``numbers.py``, ``inspect.py``, ``tracer.py``): it is never
registered in ``sys.modules`` under its own name, so it shadows nothing the libraries it uses
import. Functions a rank runs are pickled by reference to this private name; a rank's process loads
the lecture file again under the same name (as ``multiprocessing`` does with ``__mp_main__``). This
module must not trace or run ``main()`` (the runner does).
"""

from __future__ import annotations

import importlib.util
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
    if module is None or getattr(module, "__file__", None) != path:
        from tracer.capture import import_alias  # edtrace's names, as in the parent's run

        import_alias.install_for_process()
        module = load_lecture(Path(path))
    value: Any = module
    for part in qualname.split("."):
        value = getattr(value, part)
    return value
