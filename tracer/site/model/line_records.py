"""What the trace says about each statement of a lecture's main file, as one ``LineRecord`` per line.

``collect_lines(trace)`` folds the steps into records (runs, last values, renderings, output,
errors, compute); ``add_rank_lines(records, trace)`` folds in what the ranks of a distributed trace
did there (``rank_model`` makes the per-rank records, this module owns where they land). Read mode
(``page_model``) builds its document from these records. ``shows_something`` is the one test of
whether a line (or one step, or one rank's line) recorded anything besides its renderings: values,
printed output, errors or compute (a rank's collectives); read mode, step mode and the ranks all
ask it. Plain data only: this module must not produce markup, touch files, or know how a page is
laid out.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tracer.site.model.animate import is_partial
from tracer.site.model.rank_model import RankLine, launches, rank_lines, rank_timelines, trace_step_to_viewer
from tracer.contract.trace_access import step_frame
from tracer.contract.trace_format import Compute, ErrorInfo, Rendering, Step, Trace, Value


def shows_something(*, values: object, output: object, errors: object, compute: object) -> bool:
    """Whether a line (or a step) recorded something besides its renderings: values, printed output
    (stdout or stderr), errors, or compute (for a rank's line: its collectives)."""
    return bool(values or output or errors or compute)


def step_shows_something(step: Step) -> bool:
    """``shows_something`` for one step of a trace."""
    return shows_something(
        values=step["env"], output=step.get("stdout") or step.get("stderr"), errors=step.get("error"), compute=step.get("compute")
    )


def rank_line_shows_something(line: RankLine) -> bool:
    """``shows_something`` for what the ranks did on one line."""
    return shows_something(values=line.env, output=line.stdout or line.stderr, errors=line.errors, compute=line.collectives)


@dataclass
class LineRecord:
    """What the trace says about one statement of the main file (keyed by its first line)."""

    line: int
    first_step: int
    last_step: int = -1  # last completed (non-call) step; -1 until one completes
    runs: int = 0
    env: dict[str, tuple[int, Value]] = field(default_factory=dict)  # name -> (step, value), last run
    # A helper's line runs once per call: its runs during the first call of its function (the whole
    # run of a function called once, such as main), their values (the last of them) and last step.
    first_call_runs: int = 0
    first_call_env: dict[str, tuple[int, Value]] = field(default_factory=dict)
    first_call_step: int = -1
    renderings: list[tuple[int, Rendering]] = field(default_factory=list)
    errors: list[tuple[int, ErrorInfo]] = field(default_factory=list)
    compute: tuple[int, Compute] | None = None
    stdout: str = ""
    stderr: str = ""  # what the lecture wrote to sys.stderr on this line (warnings too)
    ranks: RankLine | None = None  # what each rank did on this line (distributed traces)

    def shows_something(self) -> bool:
        """The line recorded values, output, errors or compute (renderings and ranks aside)."""
        return shows_something(values=self.env, output=self.stdout or self.stderr, errors=self.errors, compute=self.compute)

    def annotated(self) -> bool:
        """Anything follows the statement in read mode: what it recorded, rendered, or its ranks did."""
        return self.shows_something() or bool(self.renderings) or self.ranks is not None


def collect_lines(trace: Trace) -> dict[int, LineRecord]:
    """Fold the steps into one record per executed statement of the main file.

    A step in another file (a helper module) lends its renderings and errors to the innermost
    main-file line on its stack, so they show where the main file called into it. A function's
    first call lasts from its first step until a step whose stack no longer holds it at that depth.
    """
    main = trace["lecture"]["path"]
    records: dict[int, LineRecord] = {}
    first_calls: dict[tuple[str, str], int] = {}  # (path, function) -> stack depth, while its first call runs
    called: set[tuple[str, str]] = set()
    for index, step in enumerate(trace["steps"]):
        frame = step_frame(step)
        stack = step.get("stack") or [frame]
        for key, depth in list(first_calls.items()):
            if len(stack) < depth or (stack[depth - 1]["path"], stack[depth - 1]["function"]) != key:
                del first_calls[key]  # it returned: later runs are other calls
        key = (frame["path"], frame["function"])
        if key not in called:
            called.add(key)
            first_calls[key] = len(stack)
        if frame["path"] == main:
            record = records.setdefault(frame["line"], LineRecord(line=frame["line"], first_step=index))
            if not step.get("call") and not is_partial(step):  # an @animate line runs once, over its parts
                record.runs += 1
                record.last_step = index
                for name, value in step["env"].items():
                    record.env[name] = (index, value)
                if key in first_calls:
                    record.first_call_runs += 1
                    record.first_call_step = index
                    record.first_call_env.update((name, (index, value)) for name, value in step["env"].items())
                if step.get("compute"):
                    record.compute = (index, step["compute"])
                record.stdout += step.get("stdout", "")
                record.stderr += step.get("stderr", "")
        else:
            outer = next((f for f in reversed(step["stack"]) if f["path"] == main), None)
            if outer is None:
                continue
            record = records.setdefault(outer["line"], LineRecord(line=outer["line"], first_step=index))
        record.renderings.extend((index, r) for r in step["renderings"])
        if step.get("error"):
            record.errors.append((index, step["error"]))
    return records


def add_rank_lines(records: dict[int, LineRecord], trace: Trace) -> None:
    """Give the read-mode line records what the ranks did (``LineRecord.ranks``): lines only
    rank code ran become records too. Step numbers are made those of step mode, which follows the
    lowest rank's timeline first (a line only higher ranks ran links into the lowest of those)."""
    timelines = rank_timelines(trace)
    if not timelines:
        return
    first = timelines[0]
    torchrun = any(launch["step"] is None for launch in launches(trace))
    mapping = trace_step_to_viewer(trace)
    if mapping:
        for known in records.values():
            known.first_step = mapping.get(known.first_step, known.first_step)
            if known.last_step >= 0:
                known.last_step = mapping.get(known.last_step, known.last_step)
    offsets, at = {}, 0
    for timeline in timelines:
        offsets[timeline.rank] = at
        at += len(timeline.steps)
    local_of = {
        (timeline.rank, launch, index): offsets[timeline.rank] + local
        for timeline in timelines
        for local, (launch, index, _done) in enumerate(timeline.origin)
        if launch >= 0
    }
    for line, rank_line in rank_lines(trace).items():
        record = records.get(line)
        # the lowest rank's step of the line; a line rank 0 never ran (an `if rank == 1:` body) opens
        # in the timeline of the lowest rank that ran it
        rank = first.rank if first.rank in rank_line.last else min(rank_line.last, default=first.rank)
        last = rank_line.last.get(rank)
        key = (rank, rank_line.launch, last) if last is not None else None
        steps = [local_of[key]] if key is not None and key in local_of else []
        if record is None:
            anchor = (
                steps[-1]
                if steps
                else next((local for local, (launch, _index, _done) in enumerate(first.origin) if launch == rank_line.launch), 0)
            )
            record = records[line] = LineRecord(line=line, first_step=anchor, last_step=anchor)
            record.runs = max(rank_line.runs.values(), default=0)
        elif steps:
            record.last_step = steps[-1]
        if not record.renderings:
            record.renderings = list(rank_line.renderings)
        if rank_line_shows_something(rank_line):
            record.ranks = rank_line
            if torchrun:  # the trace's own steps are the lowest rank's: the per-rank view replaces them
                record.env, record.stdout, record.stderr, record.errors = {}, "", "", []


def document_lines(trace: Trace) -> dict[int, LineRecord]:
    """The records read mode shows: the main file's lines, with what the ranks did there."""
    records = collect_lines(trace)
    if trace.get("ranks"):
        add_rank_lines(records, trace)
    return records
