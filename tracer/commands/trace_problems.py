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

from tracer.contract.course_layout import quiet_layout_of
from tracer.contract.helper_files import SettingsError
from tracer.contract.publish_policy import missing_alt, student_warnings
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


def trace_problems(trace: Any, lenient: bool = False) -> list[str]:
    """``path:line: what`` for each thing in ``trace`` a student should not see (empty: publishable).
    ``lenient`` (an edtrace course switched in place): an ``@inspect`` of a name that does not exist
    is not one (``lenient_warnings`` says it instead, as edtrace warns)."""
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
    return problems if lenient else problems + missing_names(trace, marks)


def missing_names(trace: Any, marks: dict[str, tuple[set[int], dict[int, int]]] | None = None) -> list[str]:
    """``path:line: message`` for each ``@inspect`` of a name that did not exist there (not on a
    ``# @raises`` statement, whose names may never have been bound)."""
    marks = {} if marks is None else marks
    problems: list[str] = []
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


def lenient_warnings(trace: Any, project_root: Path | None) -> list[str]:
    """What a lenient course is told instead of failing, one ``path:line: warning: …`` line each:
    names an ``@inspect`` did not find, and images without alt text (empty for a strict course)."""
    if project_root is None or not quiet_layout_of(project_root).lenient:
        return []
    found = [f"{problem.split(': ', 1)[0]}: warning: {problem.split(': ', 1)[1]}" for problem in missing_names(trace)]
    return found + [f"{path}:{line}: warning: {message}" for path, line, message in missing_alt(trace)]


def publish_problems(trace: Any, project_root: Path | None) -> list[str]:
    """What ``check`` and ``build`` fail on for ``trace``: its ``trace_problems`` and each warning box
    its page would show that the author did not accept (``tracer.contract.publish_policy``); a
    warning at a ``file:line`` already reported as a problem is not said twice."""
    lenient = project_root is not None and quiet_layout_of(project_root).lenient
    problems = trace_problems(trace, lenient=lenient)
    reported = {problem.split(": ", 1)[0] for problem in problems}
    try:
        warnings = student_warnings(trace, project_root)
    except SettingsError as exc:
        return problems + [str(exc)]
    problems.extend(w.problem() for w in warnings if not w.accepted and w.where not in reported)
    return problems
