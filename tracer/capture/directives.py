"""Comment directives: find ``# @inspect x y``, ``@clear``, ``@stepover``, ``@hide``, ``@flops``,
``@ask``, ``@noask``, ``@raises`` (read from the trace by ``tracer.commands.trace_problems``), ``@animate``,
``@accept`` (read from the trace by ``tracer.contract.publish_policy``), ``@varies`` (read from the
sources by ``tracer.commands.clock_values``).

A file is parsed once (a direct scan for comments; statement extents from ``tracer.contract.source_facts``)
into a map from the line that Python reports for a statement (its first line) to a ``Directives``
record, so the recorder's per-line callback only does a dict lookup. A directive written on any
physical line of a multi-line simple statement applies to the whole statement; ``@inspect`` on a
``def`` line names arguments to record when the function is entered (``FileDirectives.entries``); a
bare ``# @inspect`` (no names) records every local of its line's frame (on a ``def`` line: every argument).
``rows=N`` among an ``@inspect``'s arguments is an option, not a name: the grids of the values it
inspects show N rows before the fold (``Directives.rows``); so is ``call=first|last`` (which call's
values read mode shows; checked here, read by the site from the source). This module must not
evaluate anything or touch frames: it only reads source text.

Which ``@word`` is a directive: a ``@`` followed by a name, at the comment's start or after a space
or comma, and not continued by ``.``, ``(`` or a backtick; anywhere in the comment, after prose too:
``# the parameter count @inspect n``. So an e-mail address (``a@b.org``), a commented-out decorator
call or attribute (``# @torch.no_grad()``, ``# @functools.cache``), ``(@x)`` or a quoted
```@inspect``` are not directives. Sentence punctuation around arguments is dropped (``@inspect: n``,
``@inspect n.``). A token that is not a known directive is reported as a warning naming
``file:line`` (``# @property`` left over from commented-out code warns too: harmless). A second
``#`` ends the directives (edtrace reads comments so): ``# @inspect x # prose`` inspects ``x``; a
name both inspected and cleared on one line is cleared.
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass, field

from tracer.contract.publish_policy import KINDS as WARNING_KINDS
from tracer.contract.source_facts import (
    CALL_CHOICES,
    DIRECTIVE_NAMES,
    INSPECT_OPTION,
    INSPECT_PATH,
    is_speaker_note,
    parse_ask,
    parse_directive_comment,
    source_facts,
)

ALL_LOCALS = "*"  # in ``FileDirectives.entries``: a bare ``@inspect`` on a def line (every argument)
KNOWN = DIRECTIVE_NAMES  # one list for both sides (tracer.contract.source_facts)
_NAME = INSPECT_PATH  # names, dotted paths, subscripts
# One way to split a comment into directives and arguments, for both sides (the site reads @ask).
parse_comment = parse_directive_comment


@dataclass(frozen=True)
class Directives:
    inspect: tuple[str, ...] = ()
    all_locals: bool = False  # a bare ``# @inspect``: every local of the line's frame
    clear: tuple[str, ...] = ()
    stepover: bool = False
    hide: bool = False
    flops: bool = False
    # ``@ask x.shape``: the arguments as written (the site's quiz chooser reads them from the source);
    # the recorder inspects the names they mention, and ``@ask flops`` counts the line's FLOPs.
    ask: tuple[str, ...] = ()
    noask: bool = False  # quiz mode asks nothing about this line (the site reads it)
    raises: bool = False  # the lecture teaches the error this statement raises (check/build accept it)
    animate: bool = False  # the line's renderings show one at a time in step mode (marked on each)
    accept: tuple[str, ...] = ()  # warning kinds the author lets students see on this line (check/build accept them)
    varies: tuple[str, ...] = ()  # names whose values differ run to run (check reads it: commands.clock_values)
    rows: int = 0  # ``@inspect x rows=32``: value grid rows shown before the fold (0: the trace's default)


@dataclass
class FileDirectives:
    """Directives of one file keyed by statement start line, plus problems found while parsing."""

    by_line: dict[int, Directives] = field(default_factory=dict)
    hidden_lines: list[int] = field(default_factory=list)  # physical lines to leave out of the page
    statements: dict[int, ast.stmt] = field(default_factory=dict)  # start line -> @flops statement
    # Physical line -> start line of its multi-line statement (only lines that differ): Python
    # reports line events for a statement's continuation lines too, and those are not new steps.
    starts: dict[int, int] = field(default_factory=dict)
    warnings: list[tuple[int, str]] = field(default_factory=list)  # (line, message)
    # Lines of one-line loops (``for i in range(3): y = i * 2``): Python reports each iteration as
    # the line again, and each is a step of its own.
    loop_lines: frozenset[int] = frozenset()
    # ``def f(a, b):  # @inspect a b``: keyed by the function's first line as its code object reports
    # it (``co_firstlineno``: the first decorator's line, else the ``def`` line) -> (the ``def``
    # line, names to record when the function is entered; ``ALL_LOCALS`` among them for a bare
    # ``# @inspect``: every argument).
    entries: dict[int, tuple[int, tuple[str, ...]]] = field(default_factory=dict)


def _comment_start(text: str) -> int:
    """Index of the ``#`` that starts a comment on one physical line, or -1 (quotes respected)."""
    i, n, quote = 0, len(text), ""
    while i < n:
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if text.startswith(quote, i):
                i += len(quote)
                quote = ""
                continue
        elif ch == "#":
            return i
        elif ch in "'\"":
            quote = ch * 3 if text.startswith(ch * 3, i) else ch
            i += len(quote)
            continue
        i += 1
    return -1


def _comments(source: str, strings: list[tuple[int, int]]) -> list[tuple[int, str]]:
    """(line, comment text) for comments that may hold directives.

    Only lines with a ``#`` followed by ``@`` can; ``tokenize`` over a whole lecture costs tens of
    milliseconds, so lines are scanned directly, and tokenize is used only when such a line lies
    inside a multi-line string literal (where the scan alone could be fooled).
    """
    found = []
    for number, text in enumerate(source.splitlines(), start=1):
        hash_at = text.find("#")
        if hash_at < 0 or "@" not in text[hash_at:]:
            continue
        if any(first <= number <= last for first, last in strings):
            return [
                (tok.start[0], tok.string)
                for tok in tokenize.generate_tokens(io.StringIO(source).readline)
                if tok.type == tokenize.COMMENT
            ]
        start = _comment_start(text)
        if start >= 0:
            found.append((number, text[start:]))
    return found


def _inspect_options(args: list[str], line: int, warnings: list[tuple[int, str]]) -> tuple[list[str], int]:
    """``@inspect`` arguments without its options (``rows=32``), and the rows asked for (0: none)."""
    names: list[str] = []
    rows = 0
    for arg in args:
        option = INSPECT_OPTION.match(arg)
        if option is None:
            names.append(arg)
        elif option.group(1) == "call":  # which call's values read mode shows: the site reads it
            if option.group(2) not in CALL_CHOICES:
                warnings.append((line, f"@inspect call= takes {' or '.join(CALL_CHOICES)}, not {option.group(2)!r}"))
        elif option.group(2).isdigit() and int(option.group(2)) >= 1:
            rows = int(option.group(2))
        else:
            warnings.append((line, f"@inspect rows= takes a whole number of rows of at least 1, not {option.group(2)!r}"))
    return names, rows


def parse_source(source: str) -> FileDirectives:
    """Parse a whole file's directives. Raises SyntaxError for source Python cannot parse."""
    facts = source_facts(source)  # the one parse of this text, shared with the site side
    if facts.error is not None:
        raise facts.error
    owner, statements, strings = facts.owner, facts.statements, list(facts.strings)
    result = FileDirectives()
    for line, message in facts.parse_warnings:  # "invalid escape sequence '\\m'": say where
        result.warnings.append((line, f'{message} (use a raw string, r"...", or double the backslash)'))
    collected: dict[int, dict[str, list[str]]] = {}
    bare: set[int] = set()
    rows_at: dict[int, int] = {}  # statement start line -> its @inspect's rows=N
    for line, comment in _comments(source, strings):
        found, unknown = parse_comment(comment)
        for name in unknown:
            result.warnings.append((line, f"unknown directive @{name} (known: {', '.join('@' + k for k in KNOWN)})"))
        if not found:
            continue
        if "inspect" in found:
            found["inspect"], line_rows = _inspect_options(found["inspect"], line, result.warnings)
            if line_rows:
                rows_at[owner.get(line, line)] = line_rows
        for name in found.get("inspect", []) + found.get("clear", []):
            if not _NAME.match(name):
                result.warnings.append(
                    (line, f"@inspect/@clear takes names, dotted paths or subscripts (x[0], d['k'], obj.attr[i]), not {name!r}")
                )
        for kind in found.get("accept", []):
            if kind not in WARNING_KINDS:
                result.warnings.append((line, f"@accept takes warning kinds ({', '.join(WARNING_KINDS)}), not {kind!r}"))
        start = owner.get(line, line)
        node = statements.get(start)
        if "inspect" in found and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # On a def line, @inspect names the arguments to record on entry, not values of the
            # enclosing scope at the moment the def statement runs.
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            names = result.entries.get(first, (node.lineno, ()))[1]
            asked = found.pop("inspect")
            names += tuple(a for a in asked if _NAME.match(a) and a not in names)
            if not asked and ALL_LOCALS not in names:
                names += (ALL_LOCALS,)
            result.entries[first] = (node.lineno, names)
            if rows_at.pop(start, 0):
                result.warnings.append((line, "@inspect rows=N works on the lines that bind a value, not on a def line"))
            if not found:
                continue
        if "inspect" in found and not found["inspect"]:
            bare.add(start)  # "# @inspect" with no names at all (not names that were all refused)
        merged = collected.setdefault(start, {})
        for name, args in found.items():
            merged.setdefault(name, []).extend(args if name == "ask" else (a for a in args if _NAME.match(a)))
        if "hide" in found:
            end = (node.end_lineno or start) if node is not None and start == line else line
            result.hidden_lines.extend(range(start, end + 1) if node is not None else [line])
    for start, merged in collected.items():
        asks, problems = parse_ask(merged.get("ask", []))
        result.warnings.extend((start, problem) for problem in problems)
        if "ask" in merged and not merged["ask"]:
            result.warnings.append((start, "@ask names what to ask: x.shape, y.stride, z shares x, flops or bytes"))
        # an @ask is answered from recorded values: record the values it names on its line
        asked = [name for ask in asks for name in (ask.name, ask.other) if name]
        flops = "flops" in merged or any(ask.fact == "flops" for ask in asks)
        cleared = tuple(dict.fromkeys(merged.get("clear", ())))
        result.by_line[start] = Directives(
            # ``@inspect y @clear y`` on one line: the clear wins, as under edtrace
            inspect=tuple(n for n in dict.fromkeys(list(merged.get("inspect", ())) + asked) if n not in cleared),
            all_locals=start in bare,
            clear=cleared,
            stepover="stepover" in merged,
            hide="hide" in merged,
            flops=flops,
            ask=tuple(merged.get("ask", ())),
            noask="noask" in merged,
            raises="raises" in merged,
            animate="animate" in merged,
            accept=tuple(dict.fromkeys(merged.get("accept", ()))),
            varies=tuple(dict.fromkeys(merged.get("varies", ()))) or (("*",) if "varies" in merged else ()),
            rows=rows_at.get(start, 0),
        )
        if flops and start in statements:
            result.statements[start] = statements[start]
    # A statement that is only a speaker_note(...) call takes no room in the page's code.
    for start, node in statements.items():
        if is_speaker_note(node):
            result.hidden_lines.extend(range(start, (node.end_lineno or start) + 1))
    result.hidden_lines = sorted(set(result.hidden_lines))
    result.starts = {line: start for line, start in owner.items() if line != start}
    result.loop_lines = frozenset(
        line
        for line, node in statements.items()
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)) and node.body and node.body[0].lineno == node.lineno
    )
    return result
