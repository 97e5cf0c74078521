"""Which of edtrace's names a course uses that chalktrace has no equivalent for yet (``chalktrace check``).

``unported_names(path, source)`` reads one file's imports of ``edtrace``, ``edtrace.*`` and
``execute_util`` (``from edtrace import X``, ``import edtrace.execute``, ``edtrace.X`` after
``import edtrace``) and returns ``path:line: ...`` for each name the run's import alias does not
serve (``capture.edtrace_compat``). It reads source text only (parsed by ``source_map``); it must
not import or run anything from the course.
"""

from __future__ import annotations

import ast

from tracer.capture.edtrace_compat import NAMESPACES
from tracer.contract.source_facts import source_facts

_ROOTS = ("edtrace", "execute_util")


def _ours(module: str) -> bool:
    return module.split(".")[0] in _ROOTS


def unported_names(path: str, source: str) -> list[str]:
    """``path:line: NAME has no chalktrace equivalent yet`` for each unserved edtrace name ``source`` uses."""
    facts = source_facts(source)
    if facts.error is not None:
        return []
    found: list[str] = []
    bound: dict[str, str] = {}  # local name -> the aliased module it is bound to
    for node in ast.walk(facts.tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and _ours(node.module):
            served = NAMESPACES.get(node.module)
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                if alias.name == "*" or (served is not None and alias.name in served):
                    continue
                if submodule in NAMESPACES:
                    bound[alias.asname or alias.name] = submodule
                    continue
                found.append(f"{path}:{node.lineno}: {submodule} has no chalktrace equivalent yet")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if not _ours(alias.name):
                    continue
                if alias.name not in NAMESPACES:
                    found.append(f"{path}:{node.lineno}: module {alias.name} has no chalktrace equivalent yet")
                elif alias.asname:  # import edtrace.file_util as fu: fu is that module
                    bound[alias.asname] = alias.name
                else:  # import edtrace.file_util binds edtrace
                    bound[alias.name.split(".")[0]] = alias.name.split(".")[0]
    for node in ast.walk(facts.tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound:
            module = bound[node.value.id]
            if node.attr in NAMESPACES.get(module, {}) or f"{module}.{node.attr}" in NAMESPACES:
                continue
            found.append(f"{path}:{node.lineno}: {module}.{node.attr} has no chalktrace equivalent yet")
    return sorted(set(found), key=lambda line: (line.split(":")[0], int(line.split(":")[1]), line))
