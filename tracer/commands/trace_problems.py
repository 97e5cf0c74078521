"""What a trace must not show students: a lecture that raised, an ``@inspect`` that named nothing.

``check`` and ``build`` fail on either, naming ``file:line``, so CI stops what students should not
see; they fail on a warning box the author did not accept too (``publish_problems``, which asks
``tracer.contract.publish_policy``). A lecture that teaches an exception says so with ``# @raises`` on the statement that raises:
its error, and the names an ``@inspect`` on that statement could not find (the statement never
finished), are then what the page is meant to show. Reads the trace alone (the sources it holds are
the ones traced); this module must not run lectures or render pages.
"""

from __future__ import annotations

import io
import tokenize
from pathlib import Path
from typing import Any

from tracer.contract.helper_files import SettingsError
from tracer.contract.publish_policy import student_warnings
from tracer.contract.source_facts import parse_directive_comment, source_facts


def _raises_statements(source: str) -> set[int]:
    """The start lines of the statements marked ``# @raises`` (any physical line of the statement)."""
    facts = source_facts(source)
    marked: set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT and "raises" in parse_directive_comment(token.string)[0]:
                marked.add(facts.owner.get(token.start[0], token.start[0]))
    except (SyntaxError, tokenize.TokenError):
        return set()
    return marked


def _expected(trace: Any, path: str, line: int, cache: dict[str, tuple[set[int], dict[int, int]]]) -> bool:
    if path not in cache:
        source = (trace.get("files") or {}).get(path) or ""
        cache[path] = (_raises_statements(source), source_facts(source).owner)
    marked, owner = cache[path]
    return owner.get(line, line) in marked


def trace_problems(trace: Any) -> list[str]:
    """``path:line: what`` for each thing in ``trace`` a student should not see (empty: publishable)."""
    problems: list[str] = []
    marks: dict[str, tuple[set[int], dict[int, int]]] = {}
    error = trace.get("error")
    if trace.get("status") != "ok":  # raised, or ended before main() returned
        error = error or {}
        frames = error.get("traceback") or []
        path, line = (frames[-1]["path"], frames[-1]["line"]) if frames else (trace["lecture"]["path"], 1)
        if not _expected(trace, path, line, marks):
            first = (error.get("message") or "").splitlines()[0] if error.get("message") else ""
            what = f"raised {error.get('type')}: {first}" if error else f"ended early (status {trace.get('status')})"
            problems.append(f"{path}:{line}: lecture {what} (mark the line `# @raises` if the lecture teaches this error)")
    seen: set[tuple[str, int, str]] = set()
    for step in trace.get("steps") or []:
        for name, value in (step.get("env") or {}).items():
            if not isinstance(value, dict) or value.get("type") != "missing" or not step.get("stack"):
                continue
            frame = step["stack"][-1]
            key = (frame["path"], frame["line"], name)
            if key in seen or _expected(trace, frame["path"], frame["line"], marks):
                continue
            seen.add(key)
            problems.append(f"{frame['path']}:{frame['line']}: {value.get('message') or '@inspect ' + name + ' names nothing'}")
    return problems


def publish_problems(trace: Any, project_root: Path | None) -> list[str]:
    """What ``check`` and ``build`` fail on for ``trace``: its ``trace_problems`` and each warning box
    its page would show that the author did not accept (``tracer.contract.publish_policy``); a
    warning at a ``file:line`` already reported as a problem is not said twice."""
    problems = trace_problems(trace)
    reported = {problem.split(": ", 1)[0] for problem in problems}
    try:
        warnings = student_warnings(trace, project_root)
    except SettingsError as exc:
        return problems + [str(exc)]
    problems.extend(w.problem() for w in warnings if not w.accepted and w.where not in reported)
    return problems
