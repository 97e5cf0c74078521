"""The read-mode document of one lecture as plain records, built from its trace.

The document follows the lecture as it ran: the function the lecture starts in (``main``, with
module-level code) in source order, and each other top-level function's code right after the
line that first stepped into it (``_in_run_order``), so the page opens with the lecture's first
prose, not with the helpers defined above ``main``. Each executed statement shows as a
code line (hidden ``@hide`` lines left out); a statement that only calls ``text``/``note``/``image``/
``link``/``plot`` (or a helper that only rendered) shows its renderings instead, consecutive inline
ones (prose, links) as one paragraph; after a statement that recorded values, errors,
compute or renderings, those follow. Functions show where they are defined: their ``def`` line and
docstring when any of their body ran, their whole text when ``link(fn)`` points at them.
The statements' records come from ``line_records``. Everything here is plain data (``CodeBlock``,
``Annotation`` of a ``LineRecord``, ...) for the plugin to turn into Markdown/HTML; this module must
not produce markup or touch files.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Union

from tracer.site.model.line_records import LineRecord, document_lines
from tracer.contract.source_facts import RENDERING_CALLS, source_facts
from tracer.contract.source_facts import docstring_node as _docstring_node, header_end as _header_end
from tracer.contract.trace_access import hidden_lines, iter_renderings, source_text
from tracer.contract.trace_format import Rendering, Trace

MAX_RENDERINGS_PER_LINE = 30  # a text() in a long loop shows its first runs, then a count


@dataclass
class CodeLine:
    line: int
    ran: bool  # the statement this line belongs to executed (dimmed otherwise)
    runs: int  # executions of the statement starting on this line (0 on other lines)


@dataclass
class CodeBlock:
    lines: list[CodeLine]


@dataclass
class Annotation:
    """What follows a statement: values (name -> (step, value)), renderings, compute, errors."""

    record: LineRecord


Block = Union[CodeBlock, Annotation]


def _call_name(node: ast.AST) -> str | None:
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def rendering_statement(node: ast.stmt) -> str | None:
    """What kind of rendering-only candidate a statement is.

    ``"pure"``: an expression statement made only of rendering calls (``text("See"), link(paper)``);
    ``"calls"``: one made only of calls, some to other functions (a helper wrapper such as
    ``named_link(...)``), which counts as rendering-only when the trace shows it rendered and
    recorded nothing else (``is_rendering_only``); None for anything else.
    """
    if not isinstance(node, ast.Expr):
        return None
    calls = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
    names = [_call_name(call) for call in calls]
    if not names or any(name is None for name in names):
        return None
    return "pure" if all(name in RENDERING_CALLS for name in names) else "calls"


def is_rendering_only(kind: str | None, rendered: bool, recorded_other: bool) -> bool:
    """Whether a statement of ``kind`` shows as its renderings instead of its code: it rendered,
    and (unless it calls only text/link/...) it recorded no values, output, errors or compute."""
    return kind is not None and rendered and (kind == "pure" or not recorded_other)


def inline_rendering(rendering: Rendering) -> bool:
    """A rendering that can sit inside a paragraph: a link, or plain one-paragraph prose."""
    if rendering.get("type") == "link":
        return True
    if rendering.get("type") != "markdown" or rendering.get("verbatim") or rendering.get("style"):
        return False
    data = rendering.get("data", "").strip()
    return bool(data) and "\n\n" not in data and not any(_BLOCK_START.match(line) for line in data.splitlines())


_BLOCK_START = re.compile(r"^(\s{4}|\s*(#{1,6}\s|[-*+]\s|>|\d+[.)]\s|\||```|~~~|\$\$|!!!|<))")


def paragraph_groups(renderings: list[Rendering]) -> list[list[Rendering]]:
    """One step's renderings in display groups: consecutive inline renderings (``text("See"),
    link(paper)``) form one paragraph; every other rendering is a group of its own."""
    groups: list[list[Rendering]] = []
    for rendering in renderings:
        if inline_rendering(rendering) and groups and inline_rendering(groups[-1][-1]):
            groups[-1].append(rendering)
        else:
            groups.append([rendering])
    return groups


@dataclass
class _Statement:
    start: int
    end: int  # last line shown for it (header end for compound statements)
    rendering_kind: str | None  # see rendering_statement


def _statements(tree: ast.Module) -> dict[int, _Statement]:
    found: dict[int, _Statement] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            found.setdefault(node.lineno, _Statement(node.lineno, _header_end(node), rendering_statement(node)))
        elif isinstance(node, ast.ExceptHandler):
            found.setdefault(node.lineno, _Statement(node.lineno, max(node.lineno, node.body[0].lineno - 1), None))
    return found


def _filler(text: str) -> bool:
    stripped = text.strip()
    return not stripped or stripped.startswith("#") or stripped.rstrip(":").strip() in ("else", "try", "finally")


def build_document(trace: Trace) -> list[Block]:
    """The read-mode document of the trace's main file: code blocks and annotations, in file order."""
    main = trace["lecture"]["path"]
    source = source_text(trace, main)
    lines = source.splitlines()
    records = document_lines(trace)
    tree = source_facts(source).tree  # parsed once per source, shared with viewer_data and the cards
    statements = _statements(tree)
    shown, ran = _shown_lines(trace, tree, statements, records, lines)
    return _in_run_order(trace, tree, _blocks(lines, shown, ran, statements, records), statements, lines)


def _first_line(block: Block) -> int:
    return block.lines[0].line if isinstance(block, CodeBlock) else block.record.line


def _main_calls(trace: Trace, main: str) -> Iterator[tuple[Any, Any]]:
    """(caller, callee) frames of ``main`` (the lecture file) adjacent in some step's stack once helper
    frames between them are left out, in the order steps first show them.

    Read from the frame table, where each position appears once (first seen first): walking every
    step's whole stack instead costs the steps times their depth (a deep recursion's page)."""
    frames = trace.get("frames")
    if not frames:  # a trace made in memory (tests) without a frame table
        for step in trace["steps"]:
            in_main = [f for f in step["stack"] if f["path"] == main]
            yield from zip(in_main, in_main[1:])
        return
    caller_in_main: list[int | None] = []  # per position: its nearest caller position in main
    for position in frames:
        parent = position["parent"]
        if parent is None:
            caller_in_main.append(None)
            continue
        caller_in_main.append(parent if frames[parent]["path"] == main else caller_in_main[parent])
        if position["path"] == main and caller_in_main[-1] is not None:
            yield frames[caller_in_main[-1]], position


def _split_by_owner(blocks: list[Block], owner: Callable[[int], int | None], lines: list[str]) -> Iterator[Block]:
    """``blocks`` with each code block cut where its lines pass from one top-level definition to the
    next (blank lines between them dropped), so each piece can follow the call that first ran it."""
    for block in blocks:
        if isinstance(block, Annotation):
            yield block
            continue
        piece: list[CodeLine] = []
        current: int | None = None
        for code in block.lines:
            if not lines[code.line - 1].strip() and owner(code.line) is None:
                continue  # between two definitions: belongs to neither
            if piece and owner(code.line) != current:
                yield CodeBlock(piece)
                piece = []
            current = owner(code.line)
            piece.append(code)
        while piece and not lines[piece[-1].line - 1].strip():
            piece.pop()
        if piece:
            yield CodeBlock(piece)


def _in_run_order(
    trace: Trace, tree: ast.Module, blocks: list[Block], statements: dict[int, _Statement], lines: list[str]
) -> list[Block]:
    """The file-order blocks regrouped by top-level function: the one the first step ran in (and
    module-level code, and functions that never ran) in file order; every other function's blocks
    right after the statement that first stepped into it (after its annotation), recursively. A code
    block spanning two definitions is cut between them first (``_split_by_owner``)."""
    main = trace["lecture"]["path"]
    spans = [
        (min([n.lineno] + [d.lineno for d in n.decorator_list]), n.end_lineno or n.lineno)
        for n in tree.body
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    ]

    def owner(line: int) -> int | None:  # the first line of the top-level definition holding ``line``
        return next((start for start, end in spans if start <= line <= end), None)

    entered: dict[int, tuple[int | None, int]] = {}  # owner -> (caller's owner, caller's statement line)
    root: int | None = None
    first = next((step for step in trace["steps"] if any(f["path"] == main for f in step["stack"])), None)
    if first is not None:
        root = owner(next(f for f in first["stack"] if f["path"] == main)["line"])
    for caller, callee in _main_calls(trace, main):
        into = owner(callee["line"])
        if into is not None and into != root and into not in entered and owner(caller["line"]) != into:
            entered[into] = (owner(caller["line"]), caller["line"])
    if not entered:
        return blocks
    groups: dict[int | None, list[Block]] = {}
    for block in _split_by_owner(blocks, owner, lines):
        key = owner(_first_line(block))
        groups.setdefault(key if key in entered else None, []).append(block)
    after: dict[int, list[int]] = {}  # a caller's statement line -> the functions it first stepped into
    for into, (_caller_owner, line) in entered.items():
        after.setdefault(line, []).append(into)
    ordered: list[Block] = []
    placed: set[int] = set()

    def emit(key: int | None) -> None:
        group = groups.get(key, [])
        for index, block in enumerate(group):
            if isinstance(block, Annotation):
                ordered.append(block)
                enter(block.record.line)
                continue
            # split the code after a statement that stepped into a function (unless its annotation
            # comes next: the function follows the annotation then)
            piece: list[CodeLine] = []
            lines, k = block.lines, 0
            while k < len(lines):
                code = lines[k]
                piece.append(code)
                k += 1
                if not any(into not in placed for into in after.get(code.line, ())):
                    continue
                end = statements[code.line].end if code.line in statements else code.line
                while k < len(lines) and lines[k].line <= end:  # the statement's other lines
                    piece.append(lines[k])
                    k += 1
                following = group[index + 1] if index + 1 < len(group) else None
                annotated = k == len(lines) and isinstance(following, Annotation) and following.record.line == code.line
                if not annotated:
                    ordered.append(CodeBlock(piece))
                    piece = []
                    enter(code.line)
            if piece:
                ordered.append(CodeBlock(piece))

    def enter(line: int) -> None:
        for into in after.get(line, ()):
            if into not in placed:
                placed.add(into)
                emit(into)

    emit(None)
    for key in entered:  # a function whose caller is not shown: at the end, in file order
        if key not in placed:
            placed.add(key)
            emit(key)
    return ordered


def _shown_lines(
    trace: Trace, tree: ast.Module, statements: dict[int, _Statement], records: dict[int, LineRecord], lines: list[str]
) -> tuple[set[int], set[int]]:
    """(lines the document shows, lines that ran): executed statements, the signature and docstring
    of each function that ran, linked functions whole, the filler between them; no @hide lines."""
    main = trace["lecture"]["path"]
    hidden = hidden_lines(trace, main)
    shown: set[int] = set()
    ran: set[int] = set()
    for line in records:
        span = statements.get(line, _Statement(line, line, None))
        shown.update(range(span.start, span.end + 1))
        ran.update(range(span.start, span.end + 1))

    linked = {
        internal["line"]
        for _index, r in iter_renderings(trace)
        if r.get("type") == "link" and (internal := r.get("internal")) and internal["path"] == main
    }
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        start = min([node.lineno] + [d.lineno for d in node.decorator_list])
        end = node.end_lineno or node.lineno
        if start in linked or node.lineno in linked:
            shown.update(range(start, end + 1))
        if any(start <= line <= end for line in records):
            # a function that ran: its signature and docstring frame the body's lines
            header = set(range(start, _header_end(node) + 1))
            doc = _docstring_node(node)
            if doc is not None:
                header.update(range(doc.lineno, (doc.end_lineno or doc.lineno) + 1))
            shown.update(header)
            ran.update(header)

    # Blank lines, comments and else:/try: between two shown lines keep a block readable.
    ordered = sorted(shown)
    for a, b in zip(ordered, ordered[1:]):
        if b - a > 1 and all(_filler(lines[k - 1]) for k in range(a + 1, b)):
            shown.update(range(a + 1, b))
    shown -= hidden
    shown = {line for line in shown if 1 <= line <= len(lines)}
    return shown, ran


def _blocks(
    lines: list[str], shown: set[int], ran: set[int], statements: dict[int, _Statement], records: dict[int, LineRecord]
) -> list[Block]:
    """The shown lines in file order as code blocks, each statement's annotation after it (a
    rendering-only statement's annotation in its place)."""
    blocks: list[Block] = []
    current: list[CodeLine] = []

    def flush() -> None:
        nonlocal current
        while current and not lines[current[-1].line - 1].strip():
            current.pop()  # no trailing blank lines in a code block
        if current:
            blocks.append(CodeBlock(current))
        current = []

    line = 1
    while line <= len(lines):
        if line not in shown:
            flush()
            line += 1
            continue
        statement = statements.get(line)
        record = records.get(line)
        if (
            statement
            and record
            and is_rendering_only(statement.rendering_kind, bool(record.renderings), record.shows_something())
        ):
            flush()
            blocks.append(Annotation(record))
            line = statement.end + 1
            continue
        if not current and not lines[line - 1].strip():
            line += 1  # no leading blank lines either
            continue
        current.append(CodeLine(line=line, ran=line in ran, runs=record.runs if record else 0))
        end = statement.end if statement else line
        if record and end == line and record.annotated():
            flush()
            blocks.append(Annotation(record))
        elif statement and record and end > line:
            # a multi-line statement: emit its remaining lines, then its annotation
            for k in range(line + 1, end + 1):
                if k in shown:
                    current.append(CodeLine(line=k, ran=True, runs=0))
            if record.annotated():
                flush()
                blocks.append(Annotation(record))
            line = end + 1
            continue
        line += 1
    flush()
    return blocks


def section_headings(trace: Trace, level: int = 2) -> list[tuple[int, str]]:
    """(step index, heading text) for each Markdown heading of ``level`` a text() call rendered."""
    marker = "#" * level + " "
    found = []
    for index, rendering in iter_renderings(trace):
        if rendering.get("type") != "markdown":
            continue
        for text_line in rendering.get("data", "").splitlines():
            if text_line.startswith(marker):
                found.append((index, text_line[len(marker) :].strip()))
    return found
