"""Which recorded values are computed from clock readings, and so differ on every run: ``check`` does
not call them drift.

Read from the course's sources (the lecture and the helpers it imports, as the trace names them): a
clock reading is a call to ``time.time``/``perf_counter``/``monotonic``/``process_time`` (and their
``_ns`` forms), ``timeit``'s timers, or ``elapsed_time`` (CUDA events); a function whose return
value comes from one is a clock too (a course's ``seconds_for(f)`` helper), across files. Within
each function (and at module level) a name bound from a clock reading, or from a name so bound, is
run-dependent: ``t = seconds_for(f)``, ``speedup = t_python / t_numpy``, ``rounded = round(speedup)``.
A name the author marks ``# @varies NAME`` (a bare ``# @varies``: every name of the line) is
run-dependent wherever its function records it. The reading is static and kept simple: it may miss
a value (the directive covers it) and never runs anything. This module must not read traces'
steps: ``drift`` asks it by file, line and name.
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

from tracer.contract.source_facts import parse_directive_comment, read_source, source_facts

CLOCKS = frozenset(
    {
        "time",
        "time_ns",
        "perf_counter",
        "perf_counter_ns",
        "monotonic",
        "monotonic_ns",
        "process_time",
        "process_time_ns",
        "thread_time",
        "default_timer",
        "timeit",
        "repeat",
        "elapsed_time",
    }
)
EVERY_NAME = "*"  # a bare ``# @varies``: every name recorded on that line


@dataclass
class _Scope:
    first: int
    last: int
    varying: set[str] = field(default_factory=set)


@dataclass
class ClockValues:
    """Run-dependent names by file: each function's (and the module's) names bound from clocks."""

    scopes: dict[str, list[_Scope]] = field(default_factory=dict)  # path -> innermost scope last
    marked: dict[str, dict[int, set[str]]] = field(default_factory=dict)  # path -> line -> names (@varies)

    def varies(self, path: str, line: int, name: str) -> bool:
        """Whether the value ``name`` (``x``, ``x[1]``, ``x shape``) recorded at ``path:line`` is run-dependent."""
        root = name.replace("[", " ").replace(".", " ").split(" ", 1)[0]
        marked = self.marked.get(path, {}).get(line, set())
        if root in marked or EVERY_NAME in marked:
            return True
        inner = [s for s in self.scopes.get(path, []) if s.first <= line <= s.last]
        return bool(inner) and root in min(inner, key=lambda s: s.last - s.first).varying


def _called_name(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _reads_clock(node: ast.AST, varying: set[str], clocks: set[str]) -> bool:
    for child in ast.walk(node):
        if isinstance(child, ast.Call) and _called_name(child) in clocks:
            return True
        if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load) and child.id in varying:
            return True
    return False


def _bound(target: ast.AST) -> list[str]:
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]


def _own_nodes(body: list[ast.stmt]) -> list[ast.AST]:
    """The nodes of a function body, nested functions and classes left out (they are scopes of their own)."""
    found: list[ast.AST] = []
    todo: list[ast.AST] = list(body)
    while todo:
        node = todo.pop()
        found.append(node)
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                todo.append(child)
    return found


def _scope_varying(nodes: list[ast.AST], clocks: set[str]) -> tuple[set[str], bool]:
    """(names bound from clock readings, whether a return value is one), to a fixed point."""
    varying: set[str] = set()
    returns = False
    changed = True
    while changed:
        changed = False
        for node in nodes:
            value: ast.AST | None = None
            targets: list[ast.AST] = []
            if isinstance(node, ast.Assign):
                value, targets = node.value, list(node.targets)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
                value, targets = node.value, [node.target]
            elif isinstance(node, ast.NamedExpr):
                value, targets = node.value, [node.target]
            elif isinstance(node, ast.Return) and node.value is not None and not returns:
                if _reads_clock(node.value, varying, clocks):
                    returns = changed = True
                continue
            if value is None or not _reads_clock(value, varying, clocks):
                continue
            for name in (n for t in targets for n in _bound(t)):
                if name not in varying:
                    varying.add(name)
                    changed = True
    return varying, returns


def _functions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _marks(source: str) -> dict[int, set[str]]:
    marks: dict[int, set[str]] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT:
                names = parse_directive_comment(token.string)[0].get("varies")
                if names is not None:
                    marks.setdefault(token.start[0], set()).update(names or [EVERY_NAME])
    except (SyntaxError, tokenize.TokenError):
        return {}
    return marks


def clock_values(sources: dict[str, str]) -> ClockValues:
    """The run-dependent names of ``sources`` (course-relative path -> source text)."""
    trees: dict[str, ast.Module] = {}
    for path, source in sources.items():
        facts = source_facts(source)  # the one parse of this text
        if facts.error is None:
            trees[path] = facts.tree
    clocks = set(CLOCKS)
    grew = True
    while grew:  # a function returning a clock reading is a clock, in any file
        grew = False
        for tree in trees.values():
            for function in _functions(tree):
                if function.name not in clocks and _scope_varying(_own_nodes(function.body), clocks)[1]:
                    clocks.add(function.name)
                    grew = True
    found = ClockValues()
    for path, tree in trees.items():
        scopes = [_Scope(1, 10**9, _scope_varying(_own_nodes(tree.body), clocks)[0])]
        for function in _functions(tree):
            varying = _scope_varying(_own_nodes(function.body), clocks)[0]
            scopes.append(_Scope(function.lineno, function.end_lineno or function.lineno, varying))
        found.scopes[path] = scopes
        marks = _marks(sources[path])
        if marks:
            found.marked[path] = marks
    return found


def course_clock_values(trace_sources: dict[str, str] | list[str], project_root: Path) -> ClockValues:
    """:func:`clock_values` of the Python files a trace records among its sources, read from the course."""
    texts: dict[str, str] = {}
    for path in trace_sources:
        if path.endswith(".py"):
            try:
                texts[path] = read_source(project_root / path)
            except (OSError, SyntaxError, UnicodeDecodeError):
                continue
    return clock_values(texts)
