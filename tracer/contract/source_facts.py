"""One parse per lecture source: the structural facts both sides read from it, computed once.

``source_facts(source)`` parses a file's text with ``ast`` and walks the tree once, collecting what
the capture side (``capture.directives``: statement spans for directives; ``capture.api``: class
lines for ``link(cls)``) and the site side (``site.page_model``, ``site.viewer_data``,
``site.jaxtyping_dims``: statements, definitions, returns, docstrings, jaxtyping annotations) need.
Results are cached by source text, so a site build parses each traced file once however many pages,
cards and step tables ask. Also here: :data:`RENDERING_CALLS` and :data:`DIRECTIVE_NAMES`, the names
of the authoring API's rendering calls and of the comment directives, which both sides must agree on,
with the one way a directive comment splits into arguments (:func:`parse_directive_comment`) and an
``@ask``'s arguments into questions (:func:`parse_ask`); :func:`without_speaker_notes`, the source as a
published page may show it; and :func:`read_source`, the one way a source file is read as text (as
Python reads it). This module must stay standard-library only and
must not evaluate or import anything from the lecture: it reads source text.
"""

from __future__ import annotations

import ast
import os
import re
import warnings
import tokenize
from dataclasses import dataclass
from functools import lru_cache

# The authoring API's calls that render (tracer.capture.api); the site recognises statements made
# only of these calls and shows their renderings instead of their code.
RENDERING_CALLS = frozenset(
    {"text", "system_text", "note", "image", "video", "link", "plot", "graph", "table", "code", "diff", "columns", "callout"}
)

# The comment directives (``# @inspect x``): the tracer acts on them (tracer.capture.directives), the
# site hides them from the page's code (tracer.site.model.directive_comments). ``@ask``/``@noask`` steer
# quiz mode's questions (tracer.site.pages.quiz); the tracer only inspects what an ``@ask`` names.
# ``@accept KIND`` is read from the trace by tracer.contract.publish_policy (a warning the author lets students see).
DIRECTIVE_NAMES = ("inspect", "clear", "stepover", "hide", "flops", "ask", "noask", "raises", "animate", "accept", "varies")
# What counts as a directive token in a comment's text (group 1: its name), for both sides: "@name"
# at the start or after a space or comma, not continued by ".", "(" or a backtick, so "a@b.org",
# "# @torch.no_grad()" and "`@inspect`" are not directives; "prose @inspect x" and "@inspect: x" are.
DIRECTIVE_TOKEN = re.compile(r"(?<![^\s,])@([A-Za-z_]\w*)(?![\w.(`])")
# Punctuation that ends a sentence or follows the name (``@inspect: x``, ``@inspect n.``) is not
# part of the arguments.
_ARG_PUNCTUATION = ".,;:!?)"
NAME_PATH = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")  # a name or dotted path (``model.weight``)
# What ``@inspect``/``@clear`` take: a name or dotted path, each part optionally subscripted by an
# int, a quoted string or a name/dotted path (``x[0]``, ``d['k']``, ``h[-1]``, ``obj.attr[i]``).
_SUBSCRIPT = r"\[(?:-?\d+|'[^'\[\]]*'|\"[^\"\[\]]*\"|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\]"
INSPECT_PATH = re.compile(rf"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*|{_SUBSCRIPT})*$")
# The options of an ``@inspect``, not names: ``# @inspect x rows=32`` shows 32 rows of x's value grid
# before the fold (every name of that ``@inspect``; the course's ``preview_rows``, else 8, elsewhere):
# the tracer records it on each value it inspects there (``rows``), the site folds the rest.
# ``# @inspect x call=last``: read mode shows the line's values from the last call of its function
# instead of the first (``call=first``, the default; the site reads it from the source).
INSPECT_OPTION = re.compile(r"^(rows|call)=(.*)$")
CALL_CHOICES = ("first", "last")

# The facts ``@ask`` can ask about a value (``@ask x.shape``, ``@ask z shares x``) or a line
# (``@ask flops``: the line's @flops count; ``@ask bytes``: the bytes its collective sends per rank).
ASK_FACTS = ("shape", "dtype", "stride", "offset", "contiguous", "shares", "numel", "nbytes", "value", "flops", "bytes")
LINE_FACTS = ("flops", "bytes")
_FACT_ALIASES = {"size": "shape", "storage_offset": "offset", "is_contiguous": "contiguous", "element_count": "numel"}


def parse_directive_comment(comment: str) -> tuple[dict[str, list[str]], list[str]]:
    """Split one comment into {directive: [args]} and a list of unknown directive names.

    Directives may follow prose (``# the count @inspect n``); a directive's arguments run to the next
    directive or the comment's end. Both ``@inspect x y`` and ``@inspect x, @inspect y`` work. See
    :data:`DIRECTIVE_TOKEN` for what counts as a directive token. As under edtrace, the directives
    end at a second ``#``: ``# @inspect x # a remark`` inspects ``x`` only, and the remark is prose.
    """
    body = comment.lstrip("#").split("#", 1)[0].strip()
    found: dict[str, list[str]] = {}
    unknown: list[str] = []
    matches = list(DIRECTIVE_TOKEN.finditer(body))
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(body)
        name = m.group(1)
        args = [a for a in (part.rstrip(_ARG_PUNCTUATION) for part in re.split(r"[\s,]+", body[m.end() : end])) if a]
        if name not in DIRECTIVE_NAMES:
            unknown.append(name)
            continue
        found.setdefault(name, []).extend(args)
    return found, unknown


@dataclass(frozen=True)
class Ask:
    """One ``@ask`` question: a fact of the value ``name`` (``fact`` empty: chosen by the value's
    kind), ``other`` the earlier tensor of ``z shares x``; a line fact has no ``name``."""

    name: str
    fact: str
    other: str = ""


def parse_ask(args: list[str]) -> tuple[list[Ask], list[str]]:
    """``@ask`` arguments (as :func:`parse_directive_comment` splits them) -> questions, and one
    message per argument that names no fact of a value."""
    asks: list[Ask] = []
    problems: list[str] = []
    cleaned = [a.rstrip("()") for a in args]
    i = 0
    while i < len(cleaned):
        arg = cleaned[i]
        if arg in LINE_FACTS:
            asks.append(Ask("", arg))
            i += 1
            continue
        if i + 2 < len(cleaned) and cleaned[i + 1] == "shares":
            if NAME_PATH.match(arg) and NAME_PATH.match(cleaned[i + 2]):
                asks.append(Ask(arg, "shares", cleaned[i + 2]))
            else:
                problems.append(f"@ask {arg} shares {cleaned[i + 2]}: both must be names")
            i += 3
            continue
        base, _, fact = arg.rpartition(".")
        fact = _FACT_ALIASES.get(fact, fact)
        if base and fact in ASK_FACTS and fact not in LINE_FACTS and fact != "shares" and NAME_PATH.match(base):
            asks.append(Ask(base, fact))
        elif NAME_PATH.match(arg):
            asks.append(Ask(arg, ""))
        else:
            problems.append(f"@ask takes NAME.FACT ({', '.join(ASK_FACTS)}), NAME shares NAME, flops or bytes, not {args[i]!r}")
        i += 1
    return asks, problems


def read_source(path: str | os.PathLike[str]) -> str:
    """A Python source file's text, decoded as Python decodes it: a PEP 263 coding line (``# -*-
    coding: latin-1 -*-``) or a UTF-8 byte-order mark (dropped) say the encoding, UTF-8 otherwise.
    Raises OSError, UnicodeDecodeError, or SyntaxError for a coding line naming no known codec."""
    with tokenize.open(path) as f:  # universal newlines, as Path.read_text and the compiler read it
        return f.read()


Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


@dataclass(frozen=True, eq=False)
class SourceFacts:
    """Facts about one source text; every mapping is keyed by 1-based line numbers."""

    source: str
    tree: ast.Module  # empty when the source does not parse
    error: SyntaxError | None
    stmts: tuple[ast.stmt, ...]  # every statement, in ast.walk order (outer before inner)
    statements: dict[int, ast.stmt]  # start line -> the first (outermost) statement starting there
    handlers: dict[int, ast.ExceptHandler]  # `except` clause line -> its handler
    owner: dict[int, int]  # physical line -> start line of its statement (compound: header lines only)
    strings: tuple[tuple[int, int], ...]  # (first, last) lines of multi-line string literals
    definitions: tuple[Definition, ...]  # def/async def/class statements, in walk order
    returns: frozenset[int]  # lines of return statements
    annotations: dict[tuple[int, str], str]  # (statement line, target) -> jaxtyping dims string
    class_lines: dict[str, int]  # qualified class name (as __qualname__) -> line of its `class`
    speaker_note_lines: frozenset[int]  # every line of a statement that is only a speaker_note(...) call
    parse_warnings: tuple[tuple[int, str], ...] = ()  # (line, message) Python warned about while parsing


def header_end(node: ast.stmt) -> int:
    """Last line of a statement's own text: the whole simple statement, or a compound's header."""
    body = getattr(node, "body", None)
    if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
        return max(node.lineno, body[0].lineno - 1)
    return node.end_lineno or node.lineno


def definition_start(node: Definition) -> int:
    """First line of a definition, decorators included."""
    return min([node.lineno] + [d.lineno for d in node.decorator_list])


def docstring_node(node: ast.AST) -> ast.stmt | None:
    """The docstring statement of a module, function or class, or None."""
    body = getattr(node, "body", [])
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        return body[0]
    return None


def _class_lines(tree: ast.Module) -> dict[str, int]:
    lines: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                lines.setdefault(prefix + child.name, child.lineno)
                visit(child, prefix + child.name + ".")
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, prefix + child.name + ".<locals>.")

    visit(tree, "")
    return lines


def _jaxtyping_dims(node: ast.AnnAssign) -> tuple[str, str] | None:
    """(target, dims) for ``x: Float[Tensor, "batch seq"] = ...``-style annotations."""
    if not isinstance(node.annotation, ast.Subscript):
        return None
    index = node.annotation.slice
    if isinstance(index, ast.Tuple) and len(index.elts) >= 2:
        spec = index.elts[1]
        if isinstance(spec, ast.Constant) and isinstance(spec.value, str):
            target = node.target
            return (target.id if isinstance(target, ast.Name) else ast.unparse(target)), spec.value
    return None


@lru_cache(maxsize=64)
def source_facts(source: str) -> SourceFacts:
    """The facts of ``source`` (cached by its text). A source that does not parse gives an empty
    map with ``error`` set; callers that must refuse it (the tracer) raise that error."""
    # What Python warns about while parsing ("invalid escape sequence '\\m'"): kept with its line for
    # the tracer to report as file:line, never printed by the parse as File "<unknown>"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            tree = ast.parse(source)
            error = None
        except SyntaxError as exc:
            tree, error = ast.Module(body=[], type_ignores=[]), exc
    parse_warnings = tuple(
        (w.lineno, str(w.message)) for w in caught if issubclass(w.category, (SyntaxWarning, DeprecationWarning))
    )
    stmts: list[ast.stmt] = []
    statements: dict[int, ast.stmt] = {}
    handlers: dict[int, ast.ExceptHandler] = {}
    owner: dict[int, int] = {}
    strings: list[tuple[int, int]] = []
    definitions: list[Definition] = []
    returns: set[int] = set()
    annotations: dict[tuple[int, str], str] = {}
    note_lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Constant, ast.JoinedStr)):
            end = node.end_lineno or node.lineno
            if end > node.lineno and (isinstance(node, ast.JoinedStr) or isinstance(node.value, (str, bytes))):
                strings.append((node.lineno, end))  # a `#` inside is not a comment
            continue
        if isinstance(node, ast.ExceptHandler):
            handlers.setdefault(node.lineno, node)
            continue
        if not isinstance(node, ast.stmt):
            continue
        stmts.append(node)
        statements.setdefault(node.lineno, node)
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            # Compound statement: only its header lines (decorators included) belong to it.
            start = definition_start(node) if isinstance(node, Definition) else node.lineno
            for line in range(start, header_end(node) + 1):
                owner.setdefault(line, node.lineno)
        else:
            for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                owner[line] = node.lineno
        if is_speaker_note(node):
            note_lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        if isinstance(node, ast.Return):
            returns.add(node.lineno)
        elif isinstance(node, Definition):
            definitions.append(node)
        elif isinstance(node, ast.AnnAssign):
            dims = _jaxtyping_dims(node)
            if dims is not None:
                annotations[(node.lineno, dims[0])] = dims[1]
    return SourceFacts(
        parse_warnings=parse_warnings,
        source=source,
        tree=tree,
        error=error,
        stmts=tuple(stmts),
        statements=statements,
        handlers=handlers,
        owner=owner,
        strings=tuple(strings),
        definitions=tuple(definitions),
        returns=frozenset(returns),
        annotations=annotations,
        class_lines=_class_lines(tree),
        speaker_note_lines=frozenset(note_lines),
    )


def is_speaker_note(node: ast.stmt) -> bool:
    """A statement made only of a ``speaker_note(...)`` (or ``tracer.speaker_note(...)``) call."""
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        return False
    func = node.value.func
    return (isinstance(func, ast.Name) and func.id == "speaker_note") or (
        isinstance(func, ast.Attribute) and func.attr == "speaker_note"
    )


def without_speaker_notes(source: str) -> str:
    """``source`` with every line of its ``speaker_note(...)`` statements emptied (line numbers kept):
    the text a published page may show. Speaker notes reach the presenter alone (``chalktrace present``)."""
    lines = source_facts(source).speaker_note_lines
    if not lines:
        return source
    kept = source.splitlines(keepends=True)
    for line in lines:
        if 0 < line <= len(kept):
            kept[line - 1] = "\n"
    return "".join(kept)
