"""Which executed lines can change CUDA memory, decided once per code object from its bytecode.

Reading the CUDA caching allocator costs about 23 µs (torch builds its whole statistics dict), against
about 1 µs for recording a line, so the recorder reads it only when memory can have changed since the
last reading and otherwise repeats that reading: the figures are those of a read after every line.

For each instruction where a line can begin (a line's first instruction, or a jump target), this
module folds the instructions reachable from it without leaving that line into one ``effect``:

* ``INERT`` (0): loads, constants, tuples and lists of them, jumps on ``None``, returns. They run no
  code of the lecture's objects and drop no last reference, so no tensor is allocated or freed.
* ``1 + k``, "touches" with ``k`` calls: operators, attribute and item access, iteration, stores and
  deletes, plus ``k`` call instructions. Operators and stores act on objects that exist: they can
  change CUDA memory only while some is allocated (a reading above zero). A call can allocate from
  nothing, unless it went into a traced lecture function (the recorder counts those per line).
* ``ALWAYS`` (-1): imports, ``with``, ``yield``/``await``, ``raise``, class bodies' namespaces, and
  a line that loops within itself while it calls (a comprehension inlined by Python 3.12+).

The recorder adds what bytecode cannot show: any call into Python code it does not trace (a library,
a property or operator written in Python, a ``__del__``), an exception, a garbage collection, a
value encoded from a tensor, a ``@flops`` replay, a generator resumed, and a class instantiated
through a traced ``__init__`` (``Tensor.__new__`` may allocate) each force the next reading.
What stays unseen: a C callable that allocates and then calls a lecture function, and allocations by
other threads, which show at the next line that reads. This module must not read memory itself.
"""

from __future__ import annotations

import dis
import sys
from collections.abc import Callable
from types import CodeType

INERT = 0
TOUCHES = 1
ALWAYS = -1

_INERT_OPS = frozenset(
    dis.opmap[name]
    for name in (
        "NOP",
        "RESUME",
        "CACHE",
        "EXTENDED_ARG",
        "PUSH_NULL",
        "LOAD_FAST",
        "LOAD_FAST_CHECK",
        "LOAD_FAST_LOAD_FAST",
        "LOAD_FAST_BORROW",
        "LOAD_FAST_BORROW_LOAD_FAST_BORROW",
        "LOAD_CONST",
        "LOAD_SMALL_INT",
        "LOAD_GLOBAL",
        "LOAD_DEREF",
        "LOAD_CLOSURE",
        "COPY_FREE_VARS",
        "MAKE_CELL",
        "COPY",
        "SWAP",
        "POP_TOP",
        "RETURN_VALUE",
        "RETURN_CONST",
        "JUMP_FORWARD",
        "JUMP_BACKWARD",
        "JUMP_BACKWARD_NO_INTERRUPT",
        "JUMP",
        "JUMP_NO_INTERRUPT",
        "POP_JUMP_IF_NONE",
        "POP_JUMP_IF_NOT_NONE",
        "POP_JUMP_FORWARD_IF_NONE",
        "POP_JUMP_FORWARD_IF_NOT_NONE",
        "POP_JUMP_BACKWARD_IF_NONE",
        "POP_JUMP_BACKWARD_IF_NOT_NONE",
        "IS_OP",
        "BUILD_TUPLE",
        "BUILD_LIST",
        "BUILD_SLICE",
        "BUILD_STRING",
        "LIST_APPEND",
        "KW_NAMES",
        "PRECALL",
        "MAKE_FUNCTION",
        "SET_FUNCTION_ATTRIBUTE",
        "LOAD_ASSERTION_ERROR",
        "NOT_TAKEN",
    )
    if name in dis.opmap
)
_CALL_OPS = frozenset(dis.opmap[name] for name in ("CALL", "CALL_FUNCTION_EX", "CALL_KW") if name in dis.opmap)
_ALWAYS_OPS = frozenset(
    dis.opmap[name]
    for name in (
        "IMPORT_NAME",
        "IMPORT_FROM",
        "IMPORT_STAR",
        "LOAD_BUILD_CLASS",
        "BEFORE_WITH",
        "BEFORE_ASYNC_WITH",
        "LOAD_SPECIAL",
        "WITH_EXCEPT_START",
        "YIELD_VALUE",
        "SEND",
        "GET_AWAITABLE",
        "GET_AITER",
        "GET_ANEXT",
        "SETUP_ANNOTATIONS",
        "PRINT_EXPR",
        "RAISE_VARARGS",
        "RERAISE",
        "CALL_INTRINSIC_1",
        "CALL_INTRINSIC_2",
        "LOAD_NAME",
        "STORE_NAME",
        "DELETE_NAME",
        "LOAD_LOCALS",
        "LOAD_FROM_DICT_OR_DEREF",
        "LOAD_FROM_DICT_OR_GLOBALS",
    )
    if name in dis.opmap
)
_NO_FALLTHROUGH = frozenset(
    dis.opmap[name]
    for name in (
        "JUMP_FORWARD",
        "JUMP_BACKWARD",
        "JUMP_BACKWARD_NO_INTERRUPT",
        "JUMP",
        "JUMP_NO_INTERRUPT",
        "RETURN_VALUE",
        "RETURN_CONST",
        "RAISE_VARARGS",
        "RERAISE",
    )
    if name in dis.opmap
)
_JUMPS = frozenset(dis.hasjrel) | frozenset(dis.hasjabs)


def combine(first: int, second: int) -> int:
    """The effect of running both (a statement over several lines, whose line events merge)."""
    if first < 0 or second < 0:
        return ALWAYS
    if first == INERT:
        return second
    if second == INERT:
        return first
    return first + second - 1


def _instructions(code: CodeType) -> tuple[list[int], list[int], list[int | None], list[int | None]]:
    """Each instruction's offset, opcode, line (None where it has none) and jump target (None when
    not a jump), inline caches skipped. ``dis.get_instructions`` gives the same, but it also words
    every argument (the repr of each constant): a lecture function of a few hundred lines took
    about 0.4 ms that way, and this decision is made for every traced code object."""
    unpack = getattr(dis, "_unpack_opargs", None)
    if unpack is None or _jump_target is None:  # a Python whose dis lacks them: the documented (slower) way
        listed = list(dis.get_instructions(code))
        return (
            [i.offset for i in listed],
            [i.opcode for i in listed],
            [i.positions.lineno if i.positions else None for i in listed],
            [i.argval if i.opcode in _JUMPS and isinstance(i.argval, int) else None for i in listed],
        )
    positions = list(code.co_positions())  # one per code unit
    offsets, opcodes, lines, targets = [], [], [], []
    for offset, opcode, arg in unpack(code.co_code):
        offsets.append(offset)
        opcodes.append(opcode)
        lines.append(positions[offset // 2][0])
        targets.append(_jump_target(opcode, arg, offset) if opcode in _JUMPS and arg is not None else None)
    return offsets, opcodes, lines, targets


def _jump_target_311(opcode: int, arg: int, offset: int) -> int:
    """Where a jump instruction goes, as Python 3.11's ``dis`` computes it (3.12 made it a function)."""
    if opcode in dis.hasjabs:
        return arg * 2
    return offset + 2 + (-arg if "BACKWARD" in dis.opname[opcode] else arg) * 2


_jump_target: Callable[[int, int, int], int] | None = getattr(
    dis, "_get_jump_target", _jump_target_311 if sys.version_info[:2] == (3, 11) else None
)


def line_effects(code: CodeType) -> tuple[dict[int, int], frozenset[int]]:
    """(effect of the line entered at each offset, offsets inside call instructions).

    The second set holds every code unit of each call instruction (with its inline caches), so that
    a caller's ``f_lasti`` seen from its callee's "call" event is found whichever unit it names.
    """
    offsets, opcodes, lines, targets = _instructions(code)
    count = len(offsets)
    index_at = {offset: index for index, offset in enumerate(offsets)}
    call_offsets: set[int] = set()
    entries = {0}
    for index, opcode in enumerate(opcodes):
        if opcode in _CALL_OPS:
            end = offsets[index + 1] if index + 1 < count else len(code.co_code)
            call_offsets.update(range(offsets[index], end, 2))
        if index and lines[index] is not None and lines[index] != lines[index - 1]:
            entries.add(offsets[index])
        target = targets[index]
        if target is not None:
            entries.add(target)
    jumps = [None if target is None else index_at.get(target) for target in targets]
    effects = {}
    for offset in entries:
        if offset in index_at:
            effects[offset] = _effect_from(index_at[offset], opcodes, lines, jumps)
    return effects, frozenset(call_offsets)


def _effect_from(start: int, opcodes: list[int], lines: list[int | None], jumps: list[int | None]) -> int:
    """The effect of the line entered at instruction ``start``: every instruction reachable from it
    without leaving its line. ``jumps`` is each instruction's jump target as an index (None: not a jump)."""
    line = lines[start]
    count = len(opcodes)
    seen: set[int] = set()
    todo = [start]
    calls = 0
    touches = False
    loops = False
    while todo:
        index = todo.pop()
        if index in seen or index >= count:
            continue
        if index != start and lines[index] is not None and lines[index] != line:
            continue  # another line: its own line event follows
        seen.add(index)
        opcode = opcodes[index]
        if opcode in _ALWAYS_OPS:
            return ALWAYS
        if opcode in _CALL_OPS:
            calls += 1
        elif opcode not in _INERT_OPS:
            touches = True
        target = jumps[index]
        if target is not None:
            if target <= index and (lines[target] is None or lines[target] == line):
                loops = True
            todo.append(target)
        if opcode not in _NO_FALLTHROUGH:
            todo.append(index + 1)
    if calls and loops:
        return ALWAYS
    if calls or touches:
        return TOUCHES + calls
    return INERT
