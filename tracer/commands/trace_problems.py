"""What a trace must not show students: a lecture that raised, an ``@inspect`` that named nothing.

``check`` and ``build`` fail on either, naming ``file:line``, so CI stops what students should not
see. A lecture that teaches an exception says so with ``# @raises`` on the statement that raises:
its error, and the names an ``@inspect`` on that statement could not find (the statement never
finished), are then what the page is meant to show. Reads the trace alone (the sources it holds are
the ones traced); this module must not run lectures or render pages.
"""

from __future__ import annotations

import io
import tokenize
from typing import Any

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


def missing_alt_text(trace: Any) -> list[str]:
    """``path:line: image X has no alt text …`` for each image a screen reader could not describe:
    no ``alt=`` and no ``caption=`` (the page reads a caption as the alt). ``alt=""`` marks an image
    as decorative and is not reported. Warnings, not problems: the page still builds and publishes."""
    warnings: list[str] = []
    seen: set[tuple[str, int, str]] = set()
    for step in trace.get("steps") or []:
        for rendering in step.get("renderings") or []:
            if not isinstance(rendering, dict) or rendering.get("type") != "image" or not step.get("stack"):
                continue
            if rendering.get("alt") is not None or rendering.get("caption"):
                continue
            frame = step["stack"][-1]
            target = str(rendering.get("data") or "")
            key = (frame["path"], frame["line"], target)
            if key in seen:
                continue
            seen.add(key)
            warnings.append(
                f"{frame['path']}:{frame['line']}: warning: image {target} has no alt text; pass "
                'alt="what it shows" (or alt="" if it is decorative)'
            )
    return warnings
