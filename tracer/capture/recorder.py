"""The raw tracer: a ``sys.settrace`` hook that turns executed lecture lines into step records.

Design (the hot path, so every line here counts):

* The global trace function runs once per new frame. Whether a code object is traced is decided
  once and cached per code object (the lecture file, and helper files beside it that opt in, see
  ``helpers``; comprehensions, lambdas and module bodies never are); for everything else it returns
  None, so library and untraced-helper frames cost one dict lookup and produce no line events at
  all. What an untraced helper renders or prints lands on the traced line that called it.
* ``def f(a, b):  # @inspect a b`` records a step on the ``def`` line when f is entered; which code
  objects have one is part of the same cached decision.
* The call stack is kept incrementally: each traced frame pushes a ``_Frame`` holding the tuple of
  its callers' positions, built once per call; nothing walks the interpreter stack per line.
* A step is recorded when its line completes (the next line event or the frame's return). A line
  without directives, renderings or output appends one small tuple; values are encoded only for
  names a directive asks for.
* A generator or coroutine frame that suspends (``x = yield v``, ``a = await …``) has not completed
  its line: its state is set aside (keyed by the frame) and taken up again when the frame resumes,
  so the line's step is recorded once the name is bound. Only frames of suspending code pay for this.
* ``max_steps`` is exact: every place that appends (a line, a return, a call, a def-line entry)
  checks the count right after appending and stops recording at the cap.

The recorder only collects; turning steps into JSON (``trace_writer``) and running a lecture
(``runner``) live elsewhere. It must not do I/O or serialization inside the per-line callback.
"""

from __future__ import annotations

import contextlib
import dis
import gc
import inspect
import os
import sys
from pathlib import Path
from types import CodeType, FrameType
from typing import Any, Callable, Final, Mapping, NamedTuple, cast

from tracer.contract import paths
from tracer.capture.identity import identity
from tracer.capture.directives import ALL_LOCALS, Directives, FileDirectives, parse_source
from tracer.contract.helper_files import opted_in
from tracer.contract.source_facts import read_source
from tracer.capture.memory import Probe
from tracer.capture.memory_gate import ALWAYS, combine, line_effects
from tracer.capture.output_budget import OutputBudget
from tracer.capture.terminal import say
from tracer.capture.trace_guard import TraceGuard
from tracer.capture.static_lookup import lookup
from tracer.capture.values import ValueEncoder

# Code objects that never become steps: their lines belong to the enclosing statement.
_UNTRACED_NAMES = frozenset({"<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>", "<lambda>", "<module>"})
_INSPECT_ALL = Directives()
# A code object's memory effects and call offsets when the probe is read on every line: never looked up.
_UNGATED: tuple[dict[int, int], frozenset[int]] = ({}, frozenset())
CALL = {"call": True}  # shared extras of a "line is calling into lecture code" step
# Generators, coroutines and async generators: their frames suspend (a "return" event at a yield)
# and resume (a "call" event), and the suspended line completes only after it resumes.
_SUSPENDING = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
_YIELD_VALUE = dis.opmap["YIELD_VALUE"]
_FOR_ITER = dis.opmap["FOR_ITER"]
_OPTIMIZED = inspect.CO_OPTIMIZED  # a function's frame (its locals are its own), not a module's or class body's
# Instructions a frame leaves by without an exception (a return, or a yield).
_NORMAL_EXIT = frozenset(dis.opmap[name] for name in ("RETURN_VALUE", "RETURN_CONST", "YIELD_VALUE") if name in dis.opmap)


def _with_rows(value: dict[str, Any], rows: int) -> dict[str, Any]:
    """A tensor's or array's record with the rows its grid shows before the fold (a copy: the encoder
    may hand the same record to other steps); any other value as it is."""
    return {**value, "rows": rows} if value.get("type") in ("tensor", "ndarray") else value


class RecordedStep(NamedTuple):
    """One recorded step, as the recorder collects it (``trace_writer`` turns it into a trace step).

    The per-line hot path appends plain tuples in this field order, because building a NamedTuple
    costs about three times a tuple per line; read any step by the index constants below (or
    ``RecordedStep._make(step)`` off the hot path), never by bare numbers.
    """

    prefix: tuple[tuple[str, int, str], ...]  # (path, line, function) of the traced callers, outermost first
    key: tuple[str, str]  # (path, function) of the frame this step is in
    line: int  # the line executed (a statement's first line)
    extras: dict[str, Any] | None  # env/renderings/stdout/stderr/clear/compute/error/unwind, CALL, or None
    memory: tuple[int, int]  # (nbytes, peak_nbytes) sampled after the line


# RecordedStep's field positions, as literals so a type checker knows what step[EXTRAS] holds
# (tests/capture/test_recorder.py checks them against RecordedStep._fields).
PREFIX: Final = 0
KEY: Final = 1
LINE: Final = 2
EXTRAS: Final = 3
MEMORY: Final = 4


def mark_error(
    steps: list[RecordedStep], escaped: BaseException, error: Mapping[str, Any], origin: tuple[Any, ...] | None = None
) -> None:
    """Give the step of the line that raised ``escaped`` last its ``error`` (``origin``: where the
    recorder saw it raised last, ``Recorder.raised_at``), and drop the steps that only repeat a line
    while the exception unwound (each caller's call line again). Every other step stays: the steps
    after an earlier raise of the same exception (caught, kept, raised again), ``finally`` blocks
    run while unwinding. Runs once per lecture or rank, after recording."""
    found = None
    if origin is not None:
        prefix, key, line, start = origin
        for index in range(start, len(steps)):
            step = steps[index]
            if step[KEY] is key and step[LINE] == line and step[PREFIX] == prefix:
                found = index
                break
    if found is None:  # raised where the recorder could not see it: the last unwinding that began it
        unwinding = [
            index for index, step in enumerate(steps) if step[EXTRAS] is not None and step[EXTRAS].get("unwind") is escaped
        ]
        if not unwinding:
            return
        found = unwinding[0]
        for index in reversed(unwinding):
            if len(steps[index][PREFIX]) >= len(steps[found][PREFIX]):
                found = index
                break
    step = steps[found]
    steps[found] = RecordedStep._make(step)._replace(extras={**(step[EXTRAS] or {}), "error": error})
    last_line: dict[tuple[Any, Any], int] = {}
    for index in range(found + 1):
        step = steps[index]
        last_line[(step[PREFIX], step[KEY])] = step[LINE]
    kept = steps[: found + 1]
    for step in steps[found + 1 :]:
        frame = (step[PREFIX], step[KEY])
        extras = step[EXTRAS]
        if extras is not None and extras.get("unwind") is escaped and last_line.get(frame) == step[LINE]:
            continue  # the caller's call line once more, as the exception passed through it
        last_line[frame] = step[LINE]
        kept.append(step)
    steps[:] = kept


class _Frame:
    """Per-activation state of one traced frame."""

    __slots__ = (
        "prefix",
        "key",
        "line",
        "directives",
        "starts",
        "current",
        "exc",
        "meter",
        "snapshot",
        "suspends",
        "lasti",
        "seen",
        "effects",
        "call_offsets",
        "effect",
        "calls",
        "loops",
        "exhausted",
    )

    def __init__(
        self,
        prefix: tuple[Any, ...],
        key: tuple[str, str],
        directives: dict[int, Directives],
        starts: dict[int, int],
        effects: dict[int, int],
        call_offsets: frozenset[int],
        loops: frozenset[int] = frozenset(),
    ) -> None:
        self.prefix = prefix  # positions (path, line, function) of the traced callers, outermost first
        self.key = key  # (path, function)
        self.line = 0  # the line being executed, 0 before the first line event
        self.directives = directives
        self.starts = starts  # continuation line -> its statement's start line
        self.current: Directives | None = None  # directives of self.line
        self.exc: Any = None  # exception seen on self.line and not yet handled
        self.meter: Any = None  # compute.LineMeter while an @flops line runs
        self.snapshot = False  # f_locals was read: the frame holds a dict snapshot of its locals
        self.suspends = False  # a generator/coroutine frame: a "return" event may be a yield
        self.lasti = -1  # where a suspended frame stopped (its resume is at or just after it)
        self.seen = 0  # id of the last exception seen in this frame (0: none), kept past its line
        self.effects = effects  # offset where a line begins -> what it can do to memory (memory_gate)
        self.call_offsets = call_offsets  # offsets inside this code's call instructions
        self.effect = ALWAYS  # what the line running now can do to memory (memory_gate)
        self.calls = 0  # calls from the line running now that went straight into traced lecture code
        self.loops = loops  # lines of one-line loops: each iteration reports the line again, its own step
        # The step running now began at a one-line `for` loop's FOR_ITER, reached by its back edge:
        # if the next event leaves the line, the iterator was exhausted and no iteration ran in it.
        self.exhausted = False


# What the recorder decided about one traced code object: (file, (path, qualname), def-line entry,
# suspends, line effects on memory, offsets inside call instructions, counts as a plain call).
_Decision = tuple[Any, tuple[str, str], Any, bool, dict[int, int], frozenset[int], bool]


class LectureFile:
    """What the recorder knows about one lecture source file."""

    def __init__(self, path: str, source: str, parsed: FileDirectives) -> None:
        self.path = path
        self.source = source
        self.parsed = parsed


class Recorder:
    """Collects steps for lecture files under ``lecture_root`` while ``start()``..``stop()``."""

    def __init__(
        self,
        lecture_root: Path,
        project_root: Path,
        encoder: ValueEncoder,
        probe: Probe,
        *,
        inspect_all: bool = False,
        max_steps: int = paths.DEFAULT_MAX_STEPS,
        meter_factory: Callable[..., Any] | None = None,
        warn: Callable[[str], None] | None = None,
        trace_helpers: tuple[str, ...] = (),
        output: OutputBudget | None = None,
    ) -> None:
        self.lecture_root = str(lecture_root.resolve()) + "/"
        self._real_folders: dict[str, str] = {}
        self._relpaths: dict[str, str | None] = {}  # relpath's answers, by the path as given
        self.project_root = project_root.resolve()
        self.encoder = encoder
        self.probe = probe
        self.inspect_all = inspect_all
        self.max_steps = max_steps
        self.meter_factory = meter_factory
        # chalktrace's own stderr, saved before the lecture ran: while it runs, sys.stderr and fd 2 are
        # the lecture's own (captured), and it may have patched print.
        self._warn = warn or (lambda message: say(f"chalktrace: warning: {message}"))
        self.steps: list[RecordedStep] = []  # plain tuples in RecordedStep's field order (see RecordedStep)
        self._append = cast(Callable[[tuple[Any, ...]], None], self.steps.append)  # appends a RecordedStep
        self.files: dict[str, LectureFile] = {}  # absolute filename -> info, traced lecture files only
        self.trace_helpers = trace_helpers  # pyproject patterns of helper files to step into
        self._lecture: str | None = None  # the lecture's own filename (always traced)
        # filename -> LectureFile, or None for a file that is not traced (outside the lecture's
        # directory, or a helper that did not opt in): each file is read and decided once.
        self._decided: dict[str, LectureFile | None] = {}
        self.warnings: list[str] = []
        self.truncated = False
        self.output = output or OutputBudget()
        self.stderr_output = OutputBudget(self.output.head_chars, self.output.tail_chars, field="stderr")
        # identity(code object) -> (file, (path, qualname), entry, suspends) or None; entry is (def
        # line, names) for a function whose def line has an @inspect, else None; suspends: generator
        # or coroutine code. Keyed by identity: code objects compare equal across files when their
        # functions are alike (same body and first line), and one file's decision must not leak to
        # another. _seen keeps them alive so identities stay unique.
        self._codes: dict[int, _Decision | None] = {}
        # identity(frame) -> the state of a generator/coroutine frame suspended mid-line (see _make_tracers)
        self._suspended: dict[int, _Frame] = {}
        # Where each exception was raised last: id(exception) -> (prefix, key, line, step count then).
        # A raise is an "exception" event that is not the same exception passing from a traced callee
        # into the traced caller's line (_passing: the exception's id, that line and the caller's
        # state). Ids, not the objects: holding an exception would hold its frames and their tensors.
        self._raised: dict[int, tuple[Any, ...]] = {}
        self._passing: tuple[int, int, _Frame] | None = None
        self._seen: list[CodeType] = []
        self._stack: list[_Frame] = []
        self._renderings: list[dict[str, Any]] = []
        self._speaker_notes: list[str] = []
        self._stdout: list[str] = []
        self._stderr: list[str] = []
        self._pending = False  # renderings or stdout wait for the current line's step
        # Reads what reached file descriptors 1 and 2 since the last call into write_stdout/write_stderr
        # (the traced process's descriptor capture); called off the per-line path: when a line already takes
        # the slow path, and when the outermost traced frame returns.
        self.drain: Callable[..., None] | None = None
        self._active = False
        self._warned: set[str] = set()
        self._resume: Any = None  # the tracer to put back when recording stops (see start())
        self._local_trace: Any = None
        # [True] when memory may have changed since the probe's last reading (memory_gate): set by
        # what bytecode cannot show (untraced calls, exceptions, collections, encoded tensors).
        self._stale = [True]
        self._sample: Callable[[_Frame], tuple[int, int]] = self._sample_every_line
        # The probe is read only when memory can have changed (memory_gate), for a probe that asks
        # (``CudaProbe``); for any other, no code object's bytecode is analysed for it.
        self._gated = bool(getattr(probe, "skip_unchanged", False))

        def collected(phase: str, info: Any) -> None:
            self._stale[0] = True  # a collection may have freed tensors held in reference cycles

        self._collected = collected

    # -- lifecycle -----------------------------------------------------------------------------
    def start(self, resume: Any = None) -> TraceGuard:
        """Get ready to record; the trace guard it returns installs the tracer when entered (the
        traced process enters it) and uninstalls it when left. ``resume`` is the tracer that was
        installed before (a debugger's, coverage's): leaving the guard and the step cap put it back
        rather than switching tracing off. ``stop()`` comes after the guard is left."""
        # Objects that exist before the lecture (torch alone brings hundreds of thousands) are
        # frozen out of the collector: otherwise every full collection rescans them while the
        # step list grows, which costs more than the tracing itself.
        gc.freeze()
        gc.callbacks.append(self._collected)
        self._resume = resume
        self._active = True
        # The guard stands in for sys.settrace while recording: a tracer switched off or replaced,
        # and threads the lecture starts, are reported (tracer.capture.trace_guard).
        global_trace, self._local_trace = self._make_tracers()
        return TraceGuard(self, global_trace, self._local_trace, resume)

    def stop(self) -> None:
        if self._active:
            self._flush_suspended()
        self._active = False
        with contextlib.suppress(ValueError):
            gc.callbacks.remove(self._collected)
        gc.unfreeze()

    def _flush_suspended(self) -> None:
        """Generators and coroutines still suspended at a yield when recording stops: their line ran
        (it yielded) but never completed; it gets its step, at the end, with nothing bound by it."""
        for state in self._suspended.values():
            if state.line and len(self.steps) < self.max_steps:
                self._record(state, None)
        self._suspended.clear()

    def lecture_path(self) -> str:
        """The lecture's project-relative path (for messages that have no line to name)."""
        return (self.relpath(self._lecture) or self._lecture) if self._lecture else "lecture"

    # -- what the trace guard and the process's output capture ask of the recorder -----------------
    @property
    def active(self) -> bool:
        """Recording: between ``start`` and ``stop``, and not cut short by the step cap."""
        return self._active

    def output_arrived(self) -> None:
        """Output (or a child process) the recorder cannot see yet: the current line's step drains it."""
        if self._active:
            self._pending = True

    def known_code(self, code: CodeType) -> _Decision | None:
        """What the recorder decided about ``code`` (None: not lecture code, or not seen yet)."""
        return self._codes.get(identity(code))

    def decide_code(self, code: CodeType) -> _Decision | None:
        """What the recorder decides about ``code`` (lecture code or not), deciding it when first seen."""
        try:
            return self._codes[identity(code)]
        except KeyError:
            return self._classify(code)

    def stack_keys(self) -> list[tuple[str, str]]:
        """The (path, function) of each lecture frame the recorder is in, outermost first."""
        return [state.key for state in self._stack]

    # -- inputs from the authoring API and the stdout capture --------------------------------------
    def add_rendering(self, rendering: dict[str, Any]) -> None:
        self._renderings.append(rendering)
        self._pending = True

    def add_speaker_note(self, markdown: str) -> None:
        self._speaker_notes.append(markdown)
        self._pending = True

    def write_stdout(self, text: str) -> None:
        if text:
            self._stdout.append(text)
            self._pending = True

    def write_stderr(self, text: str) -> None:
        if text:
            self._stderr.append(text)
            self._pending = True

    def relpath(self, path: Any) -> str | None:
        """Project-relative forward-slash path, or None for files outside the project; each path is
        resolved once a run (``link(fn)`` asks for the file of every function it links to, and
        resolving costs a system call per component of the path)."""
        key = os.fspath(path)
        if not os.path.isabs(key):  # resolved against the working folder, which the lecture may change
            return paths.project_relpath(key, self.project_root)
        try:
            return self._relpaths[key]
        except KeyError:
            found = self._relpaths[key] = paths.project_relpath(key, self.project_root)
            return found

    def location(self) -> str | None:
        """``path:line`` of the innermost traced frame now running (for progress and timeouts), or None."""
        try:  # read from another thread while the lecture runs: the stack may empty meanwhile
            top = self._stack[-1]
        except IndexError:
            return None
        return f"{top.key[0]}:{top.line}"

    def innermost(self) -> tuple[tuple[tuple[str, int, str], ...], tuple[str, str], int] | None:
        """(prefix, key, line) of the innermost traced frame now running, or None (safe from another
        thread, like ``location``)."""
        try:
            top = self._stack[-1]
        except IndexError:
            return None
        return top.prefix, top.key, top.line

    def halt(self) -> None:
        """Record nothing more (another thread is about to write what was recorded)."""
        self._active = False

    def warn_once(self, message: str) -> None:
        if message not in self._warned:
            self._warned.add(message)
            self.warnings.append(message)
            self._warn(message)

    # -- classification (once per code object) ----------------------------------------------------
    def _classify(self, code: CodeType) -> _Decision | None:
        result = None
        filename = code.co_filename
        if code.co_name not in _UNTRACED_NAMES and filename.endswith(".py"):
            try:
                info = self._decided[filename]
            except KeyError:
                info = self._decide(filename)
            if info is not None:
                effects, call_offsets = line_effects(code) if self._gated else _UNGATED
                result = (
                    info,
                    (info.path, code.co_qualname),
                    info.parsed.entries.get(code.co_firstlineno),
                    bool(code.co_flags & _SUSPENDING),
                    effects,
                    call_offsets,
                    # Calling a class runs its (C) __new__ before a traced __init__: that may allocate.
                    code.co_name != "__init__",
                )
        self._codes[identity(code)] = result
        self._seen.append(code)
        return result

    def preload(self, path: Path) -> None:
        """Parse the lecture's directives ahead of time (it is certain to run) and mark it as the
        lecture: it is traced whether or not it carries the helper marker."""
        filename = str(path)
        self._lecture = filename
        if filename not in self.files:
            self._decided[filename] = self._load_file(filename)

    def _decide(self, filename: str) -> LectureFile | None:
        info = None
        if self._resolved(filename).startswith(self.lecture_root):
            info = self._load_file(filename, helper=filename != self._lecture and self._lecture is not None)
        self._decided[filename] = info
        return info

    def _resolved(self, filename: str) -> str:
        """``filename`` with every symbolic link resolved, as ``Path.resolve`` gives it, its folder's
        resolution reused: a library's hundreds of files sit in a few folders, and resolving a path
        afresh costs a system call per component of it."""
        folder, name = os.path.split(os.path.abspath(filename))
        if os.path.islink(os.path.join(folder, name)):
            return os.path.realpath(filename)
        try:
            real = self._real_folders[folder]
        except KeyError:
            real = self._real_folders[folder] = os.path.realpath(folder)
        return os.path.join(real, name)

    def _load_file(self, filename: str, helper: bool = False) -> LectureFile | None:
        path = self.relpath(filename)
        if path is None:
            return None
        source = read_source(filename)
        if helper and not opted_in(path, source, self.trace_helpers):
            return None
        parsed = parse_source(source)
        for line, message in parsed.warnings:
            self.warn_once(f"{path}:{line}: {message}")
        info = LectureFile(path, source, parsed)
        self.files[filename] = info
        return info

    # -- the hot path ----------------------------------------------------------------------------
    def _make_tracers(self) -> tuple[Callable[..., Any], Callable[..., Any]]:
        """Build the global and local trace functions as closures over locals (no attribute lookups)."""
        codes = self._codes
        code_id = identity  # a closure variable: cheaper than a global lookup on every call
        prefixes: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        classify = self._classify
        stack = self._stack
        steps = self.steps
        # The hot path appends plain tuples in RecordedStep's field order (see RecordedStep); typed as such here.
        append = cast(Callable[[tuple[Any, ...]], None], steps.append)
        sample = self._sample = self._make_sample()
        gated = self._gated
        stale = self._stale
        max_steps = self.max_steps
        directives_default = _INSPECT_ALL if self.inspect_all else None
        finish = self._finish_line
        meters = self.meter_factory is not None
        start_meter = self._start_meter
        record_entry = self._record_entry
        recorder = self
        # Refreshing a frame's locals snapshot only matters while memory is being accounted.
        tracks_gpu = self.probe.source == "cuda_allocated"
        live_storages = self.encoder.registry.storages
        suspended = self._suspended
        raised_at = self._note_raise

        def global_trace(frame: FrameType, event: str, arg: Any) -> Any:
            if event != "call" or not recorder._active:
                return None
            code = frame.f_code
            try:
                found = codes[code_id(code)]
            except KeyError:
                found = classify(code)
            if found is None:
                stale[0] = True  # code chalktrace does not trace may allocate or free anything
                return None
            if stack:
                parent = stack[-1]
                current = parent.current
                if current is not None and current.stepover:
                    stale[0] = True
                    return None
                if parent.line:
                    back = frame.f_back
                    if found[6] and back is not None and back.f_lasti in parent.call_offsets:
                        parent.calls += 1  # this call instruction ran lecture code, which the gate sees
                    else:
                        stale[0] = True
                    # One "call" step per call, so `f(1) + f(2)` shows two separate descents.
                    append((parent.prefix, parent.key, parent.line, CALL, sample(parent)))  # a RecordedStep
                    if len(steps) >= max_steps:  # once per call, not per line: the cap stays exact
                        recorder._truncate(frame)
                        return None
                prefix = parent.prefix + ((parent.key[0], parent.line, parent.key[1]),)
                # One shared tuple per call site: steps stay small and the writer can cache by id.
                prefix = prefixes.setdefault(prefix, prefix)
            else:
                prefix = ()
                stale[0] = True  # entered from code chalktrace does not trace
            if found[3]:
                stale[0] = True  # the consumer of a generator or coroutine ran meanwhile
                state = suspended.pop(code_id(frame), None)
                if state is not None and state.key is found[1] and 0 <= frame.f_lasti - state.lasti <= 2:
                    state.prefix = prefix  # resumed, perhaps by another caller: its line goes on
                    stack.append(state)
                    return local_trace
            parsed = found[0].parsed
            state = _Frame(prefix, found[1], parsed.by_line, parsed.starts, found[4], found[5], parsed.loop_lines)
            state.suspends = found[3]
            stack.append(state)
            if found[2] is not None:
                record_entry(state, frame, found[2])
                if not recorder._active:  # that step reached the cap
                    return None
            return local_trace

        def local_trace(frame: FrameType, event: str, arg: Any) -> Any:
            if event == "line":
                top = stack[-1]
                line = frame.f_lineno
                line = top.starts.get(line, line)
                if line == top.line:
                    if line not in top.loops:
                        # Python 3.12+ inlines comprehensions: their loop re-enters the same line.
                        if gated:
                            top.effect = combine(top.effect, top.effects.get(frame.f_lasti, ALWAYS))
                        return local_trace
                    # A one-line loop's back edge: the iteration that ran is a step of its own.
                    back_edge = True
                else:
                    back_edge = False
                if top.exhausted and not back_edge and not recorder._pending and top.calls == 0 and top.meter is None:
                    pass  # a one-line `for` whose iterator ran out: its last iteration's step showed it all
                elif top.line:
                    if top.snapshot and (tracks_gpu or live_storages):
                        # Before Python 3.13, reading f_locals leaves a dict on the frame that keeps
                        # deleted and rebound locals alive; re-reading it drops them, so a `del x`
                        # frees x (and its memory) when the lecture expects it to.
                        frame.f_locals
                    if top.current is None and not recorder._pending:
                        append((top.prefix, top.key, top.line, None, sample(top)))  # a RecordedStep
                    else:
                        finish(top, frame)
                    if len(steps) >= max_steps:
                        recorder._truncate(frame)
                        return None
                top.line = line
                top.exhausted = back_edge and frame.f_code.co_code[frame.f_lasti] == _FOR_ITER
                top.exc = None
                if gated:  # only the gate reads what the line can do to memory
                    top.effect = top.effects.get(frame.f_lasti, ALWAYS)
                top.calls = 0
                current = top.current = top.directives.get(line, directives_default)
                if current is not None and current.flops and meters:
                    start_meter(top, frame)
                return local_trace
            if event == "return":
                top = stack.pop()
                if not stack and recorder.drain is not None:
                    recorder.drain(True)  # what reached fd 1/2 during the outermost call
                if top.suspends and top.exc is None and frame.f_code.co_code[frame.f_lasti] == _YIELD_VALUE:
                    # A yield or await suspends the frame mid-line: its step waits for the resume.
                    top.lasti = frame.f_lasti
                    suspended[code_id(frame)] = top
                    return None
                if top.seen and stack and (top.exc is not None or frame.f_code.co_code[frame.f_lasti] not in _NORMAL_EXIT):
                    # Leaving by an exception (also after a `finally` block ran): the caller's
                    # "exception" event for it is the same exception passing through, not a raise.
                    caller = stack[-1]
                    recorder._passing = (top.seen, caller.line, caller)
                if top.exhausted and top.exc is None and not recorder._pending and top.calls == 0 and top.meter is None:
                    pass  # a one-line `for` that ran out just before the return (see "line")
                elif top.line:
                    if top.current is None and not recorder._pending and top.exc is None:
                        append((top.prefix, top.key, top.line, None, sample(top)))  # a RecordedStep
                    else:
                        finish(top, frame, top.exc)
                    if len(steps) >= max_steps:  # a chain of returns appends with no line between
                        recorder._truncate(frame)
                return None
            if event == "exception":
                stale[0] = True  # a raise may leave a line anywhere, and handlers run unseen
                top = stack[-1]
                exc = top.exc = arg[1]
                seen = top.seen = code_id(exc)
                if recorder._passing != (seen, top.line, top):
                    raised_at(exc, top)
                else:
                    recorder._passing = None
            return local_trace

        return global_trace, local_trace

    # -- memory readings ---------------------------------------------------------------------------
    def _sample_every_line(self, state: _Frame) -> tuple[int, int]:
        return self.probe.sample()

    def _make_sample(self) -> Callable[[_Frame], tuple[int, int]]:
        """The probe's reading after ``state``'s line: for a probe that asks for it (``CudaProbe``), the
        last reading again unless the line (memory_gate) or something since can have changed memory."""
        if not self._gated:
            return self._sample_every_line
        probe_sample = self.probe.sample
        stale = self._stale
        reading = [(0, 0)]

        def sample(state: _Frame) -> tuple[int, int]:
            if not stale[0]:
                effect = state.effect
                if effect == 0:
                    return reading[0]
                # Operators and stores touch only objects that exist: nothing to free or grow while
                # nothing is allocated; calls count only when each went into traced lecture code.
                if effect > 0 and reading[0][0] == 0 and state.calls >= effect - 1:
                    return reading[0]
            stale[0] = False
            value = reading[0] = probe_sample()
            return value

        return sample

    # -- the slow path (lines with directives, renderings or output) ------------------------------
    def _note_raise(self, exc: BaseException, state: _Frame) -> None:
        raised = self._raised
        if len(raised) > 256:  # ids of exceptions long gone; the one that escapes was raised last
            raised.clear()
        raised[id(exc)] = (state.prefix, state.key, state.line, len(self.steps))

    def raised_at(self, exc: BaseException) -> tuple[Any, ...] | None:
        """(prefix, key, line, step count then) of the traced line that raised ``exc`` last, or None."""
        return self._raised.get(id(exc))

    def _record(self, state: _Frame, extras: dict[str, Any] | None) -> None:
        # A plain tuple, as on the hot path: every inspected line comes here, and building the
        # NamedTuple cost the loop that inspects a value on every line about 8%.
        registry = self.encoder.registry
        if registry.dirty and self._gated:
            # Encoding a tensor may allocate on its device (indices, copies): read after it, as a
            # read on every line would.
            registry.dirty = False
            self._stale[0] = True
        self._append((state.prefix, state.key, state.line, extras, self._sample(state)))

    def _finish_line(self, state: _Frame, frame: FrameType, unwinding: Any = None) -> None:
        extras: dict[str, Any] = {}
        if self.drain is not None:
            self.drain()
        current = state.current
        if state.meter is not None:
            self._stale[0] = True  # the measurement replays the line's operations
            meter, state.meter = state.meter, None
            try:
                extras["compute"] = meter.stop(frame.f_globals, frame.f_locals)
            except Exception as exc:  # measuring must never break the lecture
                self.warn_once(f"{state.key[0]}:{state.line}: @flops failed: {type(exc).__name__}: {exc}")
        if current is not None and not isinstance(unwinding, GeneratorExit):
            # (a generator closed at its yield bound nothing there: its names hold older values)
            # A line that raised may not have bound its names: no warning for those.
            quiet = unwinding is not None
            if current is _INSPECT_ALL or current.all_locals:  # --inspect-all, or a bare # @inspect
                env = self._all_locals(frame)
                for name in current.inspect:  # names an @ask on the line needs (dotted ones too)
                    if name not in env and (
                        found := self._inspect(name, frame.f_locals, frame.f_globals, state, quiet, frame.f_code)
                    ):
                        env[name] = found
            else:
                f_locals, f_globals = frame.f_locals, frame.f_globals
                env = {}
                for name in current.inspect:
                    try:
                        value = f_locals[name]  # the common case: a plain local
                    except KeyError:
                        if (found := self._inspect(name, f_locals, f_globals, state, quiet, frame.f_code)) is not None:
                            env[name] = found
                    else:
                        env[name] = self.encoder.encode(value)
            if env and current.rows:  # ``@inspect x rows=32``: the site folds x's grid after 32 rows
                env = {name: _with_rows(value, current.rows) for name, value in env.items()}
            if env or current.flops:
                state.snapshot = True
            if env:
                extras["env"] = env
            if current.clear:
                extras["clear"] = list(current.clear)
        if self._pending:
            if self._renderings:
                extras["renderings"], self._renderings = self._renderings, []
                if current is not None and current.animate:  # @animate: the site shows them one at a time
                    for rendering in extras["renderings"]:
                        rendering["animate"] = True
            if self._speaker_notes:
                extras["speaker_notes"], self._speaker_notes = self._speaker_notes, []
            if self._stdout:
                self.output.attach(extras, self.encoder.scrub("".join(self._stdout)))
                self._stdout = []
            if self._stderr:
                self.stderr_output.attach(extras, self.encoder.scrub("".join(self._stderr)))
                self._stderr = []
            self._pending = False
        if unwinding is not None:
            extras["unwind"] = unwinding
        if self.encoder.problems:
            self._report_problems(state)
        self._record(state, extras or None)

    def _report_problems(self, state: _Frame) -> None:
        """Warn, naming file:line, about values the encoder could not show as they are."""
        for problem in self.encoder.problems:
            self.warn_once(f"{state.key[0]}:{state.line}: {problem}")
        self.encoder.problems.clear()

    def _record_entry(self, state: _Frame, frame: FrameType, entry: tuple[int, tuple[str, ...]]) -> None:
        """``def f(a, b):  # @inspect a b``: a step on the def line holding the arguments on entry."""
        line, names = entry
        f_locals, f_globals = frame.f_locals, frame.f_globals
        saved, state.line = state.line, line  # so that warnings name the def line
        env = self._all_locals(frame) if ALL_LOCALS in names else {}  # a bare @inspect: every argument
        env.update(
            {name: self._inspect(name, f_locals, f_globals, state, code=frame.f_code) for name in names if name != ALL_LOCALS}
        )
        self._report_problems(state)
        state.line = saved
        state.snapshot = True
        self._stale[0] = True  # what the caller's line ran before this call, and the encoded arguments
        self.steps.append(RecordedStep(state.prefix, state.key, line, {"env": env}, self._sample(state)))
        if len(self.steps) >= self.max_steps:
            self._truncate(frame)

    def _inspect(
        self, name: str, f_locals: Any, f_globals: dict[str, Any], state: _Frame, quiet: bool = False, code: Any = None
    ) -> dict[str, Any] | None:
        # a function's own variables (not a module's or a class body's): unbound when absent
        local_names = (
            code.co_varnames + code.co_cellvars + code.co_freevars if code is not None and code.co_flags & _OPTIMIZED else ()
        )
        try:
            value = lookup(name, f_locals, f_globals, local_names)
        except UnboundLocalError:
            return None  # the function's own variable, deleted or not yet bound: no card (never a global's)
        except Exception as exc:
            message = f"@inspect {name}: {type(exc).__name__}: {exc}"
            if not quiet:
                self.warn_once(f"{state.key[0]}:{state.line}: {message}")
            return {"type": "missing", "name": name, "message": self.encoder.scrub(message)}
        return self.encoder.encode(value)

    def _all_locals(self, frame: FrameType) -> dict[str, Any]:
        import types

        env = {}
        for name, value in frame.f_locals.items():
            if name.startswith("__") or isinstance(value, (types.ModuleType, types.FunctionType, type)):
                continue
            env[name] = self.encoder.encode(value)
        return env

    def _start_meter(self, state: _Frame, frame: FrameType) -> None:
        info = next((f for f in self.files.values() if f.path == state.key[0]), None)
        statement = info.parsed.statements.get(state.line) if info else None
        try:
            meter = self.meter_factory(statement)  # type: ignore[misc]
            meter.start()
        except Exception as exc:
            self.warn_once(f"{state.key[0]}:{state.line}: @flops could not start: {type(exc).__name__}: {exc}")
            return
        state.meter = meter

    def _truncate(self, frame: FrameType | None) -> None:
        self.truncated = True
        self._active = False
        sys.settrace(self._resume)
        while frame is not None:  # frames already traced would otherwise keep reporting lines
            if frame.f_trace is self._local_trace:  # the resumed tracer's frames keep theirs
                frame.f_trace = None
            frame = frame.f_back
        for state in reversed(self._stack):  # innermost first: dispatch modes unwind as a stack
            if state.meter is not None:
                with contextlib.suppress(Exception):
                    state.meter.cancel()
                state.meter = None
        self._stack.clear()
        self._suspended.clear()
        self.warn_once(f"step cap reached ({self.max_steps} steps): recording stopped, the lecture runs on untraced")
