"""The allocator is read only after lines that can change memory, and the figures stay those of a
read after every line (a counting stand-in allocator on CPU)."""

from __future__ import annotations

import dis
import types
from pathlib import Path

from helpers.fake_allocator import CountingAllocator

from tracer.capture.memory import RecordedTensorsProbe
from tracer.capture.memory_gate import ALWAYS, INERT, TOUCHES, _instructions, line_effects
from tracer.capture.recorder import MEMORY
from tracer.capture.runner import run_lecture

ROOT = Path(__file__).resolve().parents[2]
LOOP = ROOT / "bench" / "lectures" / "loop.py"
CHURN = ROOT / "tests" / "lectures" / "memory_churn.py"


def _memory(lecture: Path, allocator: CountingAllocator, every_line: bool) -> list[tuple[int, int]]:
    box = []
    run_lecture(
        lecture,
        write=False,
        max_steps=10**7,
        probe_factory=lambda registry: allocator.probe(every_line=every_line),
        on_recorder=box.append,
    )
    return [step[MEMORY] for step in box[0].steps]


def test_the_loop_bench_reads_the_allocator_on_fewer_than_one_line_in_twenty():
    gated, every = CountingAllocator(lambda: 0), CountingAllocator(lambda: 0)
    figures = _memory(LOOP, gated, every_line=False)
    assert len(figures) > 200_000
    assert gated.reads * 20 < len(figures)
    assert figures == _memory(LOOP, every, every_line=True)
    assert every.reads >= len(figures)


def test_a_lecture_that_allocates_frees_and_rebinds_shows_the_figures_of_a_read_per_line():
    gated, every = CountingAllocator(), CountingAllocator()
    figures = _memory(CHURN, gated, every_line=False)
    reference = _memory(CHURN, every, every_line=True)
    assert figures == reference
    assert len({nbytes for nbytes, _ in reference}) >= 6  # the lecture really moves memory about
    assert max(peak for _, peak in reference) >= 4096 * 4  # `big` reached the peak, then was freed
    assert reference[-1][0] < reference[-1][1]
    assert gated.reads * 3 < every.reads * 2


def test_with_memory_in_use_operators_and_stores_read_again():
    held = CountingAllocator(lambda: 4096)
    figures = _memory(LOOP, held, every_line=False)
    assert set(figures) == {(4096, 4096)}
    assert held.reads * 2 > len(figures)  # `total += i` may free or grow a tensor now


def test_the_bytecode_is_analysed_only_for_a_probe_that_skips_unchanged_lines(monkeypatch):
    """A probe read on every line (the CPU's, a CUDA probe with the gate off) never looks at the
    gate's figures, so no code object's bytecode is analysed for it: that took about a twentieth of
    a short lecture's run."""
    from tracer.capture import recorder

    analysed: list[str] = []

    def counted(code: types.CodeType):
        analysed.append(code.co_name)
        return line_effects(code)

    monkeypatch.setattr(recorder, "line_effects", counted)
    # The CPU's probe (recorded tensors), named: on a CUDA machine the default probe is the gated one.
    run_lecture(CHURN, write=False, probe_factory=RecordedTensorsProbe)
    assert analysed == []
    figures = _memory(CHURN, CountingAllocator(), every_line=True)
    assert analysed == [] and figures
    _memory(CHURN, CountingAllocator(), every_line=False)
    assert "main" in analysed


def _effects_by_line(function) -> dict[int, int]:
    effects, _ = line_effects(function.__code__)
    lines = {ins.offset: ins.positions.lineno for ins in dis.get_instructions(function.__code__)}
    found: dict[int, int] = {}
    for offset, effect in effects.items():
        line = lines[offset] - function.__code__.co_firstlineno
        found[line] = max(found.get(line, effect), effect) if effect >= 0 and found.get(line, 0) >= 0 else ALWAYS
    return found


def _sample(items, n):
    a = items
    b = a[0]  # noqa: F841
    n = len(items)
    if a is None:
        return n
    import math

    return math.pi


def test_line_effects_from_bytecode():
    found = _effects_by_line(_sample)
    assert found[1] == TOUCHES  # a = items: a store may drop the last reference to a tensor
    assert found[2] == TOUCHES  # b = a[0]: an item lookup and a store
    assert found[3] == TOUCHES + 1  # one call
    assert found[4] == INERT  # `is None`, a jump
    assert found[5] == INERT  # return n
    assert found[6] == ALWAYS  # an import


def _code_objects(code: types.CodeType) -> list[types.CodeType]:
    found = [code]
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            found += _code_objects(constant)
    return found


def test_the_bytecode_is_read_as_dis_reads_it():
    """The gate reads bytecode with ``dis``'s undocumented unpacker (its documented one words every
    argument and costs several times as much): each instruction's offset, opcode, line and jump
    target must be what ``dis.get_instructions`` says, on lectures and on big library modules."""
    import argparse
    import asyncio.base_events
    import json.decoder

    sources = [*sorted((ROOT / "lectures").glob("*.py")), *sorted((ROOT / "tests" / "lectures").glob("*.py")), LOOP]
    sources += [Path(m.__file__) for m in (argparse, asyncio.base_events, json.decoder, dis)]
    checked = 0
    for path in sources:
        for code in _code_objects(compile(path.read_text(encoding="utf-8"), str(path), "exec")):
            listed = list(dis.get_instructions(code))
            jumps = dis.hasjrel + dis.hasjabs
            expected = (
                [i.offset for i in listed],
                [i.opcode for i in listed],
                [i.positions.lineno if i.positions else None for i in listed],
                [i.argval if i.opcode in jumps and isinstance(i.argval, int) else None for i in listed],
            )
            assert _instructions(code) == expected, f"{path}: {code.co_qualname}"
            checked += 1
    assert checked > 300
