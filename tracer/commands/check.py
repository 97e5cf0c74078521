"""``chalktrace check``: re-trace every lecture into a temporary directory and compare with the committed traces.

Every lecture must run, every committed trace must be valid and fresh (``freshness``), no value may
have drifted (``drift``), the kept GPU runs must be sound (``gpu_runs``) and no trace may lack its
lecture. This module reports problems; it must not write into the committed traces.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tracer.contract.paths import shown_path
from tracer.commands.course import course_root
from tracer.commands.drift import value_drift
from tracer.commands.edtrace_names import unported_names
from tracer.commands.freshness import course_lectures, course_skipped, freshness
from tracer.commands.gpu_runs import gpu_run_problems
from tracer.commands.runner_batches import split, trace_batches
from tracer.commands.trace_problems import lenient_warnings, publish_problems
from tracer.commands.run_protocol import RunOutcome, run_many
from tracer.contract import course_layout
from tracer.contract.course_layout import quiet_layout_of
from tracer.contract.lecture_files import course_path
from tracer.contract.source_facts import read_source
from tracer.contract.trace_format import Trace, TraceError
from tracer.contract.trace_settings import recorded_options, run_arguments
from tracer.contract.trace_reading import load_trace, read_header
from tracer.exit_codes import ExitCode
from tracer.runners.config import RunnerError


@dataclass
class CheckReport:
    lectures: int = 0
    problems: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # "path: reason" for each .py that is not traced
    notes: list[str] = field(default_factory=list)  # what was not checked, and why


def _written_trace(output: Path, outcome: RunOutcome) -> Trace | None:
    """The trace a run wrote (it completed, or main() raised and its error trace was written), else None."""
    if not (outcome.ok or outcome.returncode == ExitCode.LECTURE_FAILED) or not output.exists():
        return None
    try:
        return load_trace(output, validate=False)
    except TraceError:
        return None


def _committed_options(lecture: Path, project_root: Path) -> tuple[str, ...]:
    """The run options the committed trace of ``lecture`` was made with (none recorded, or no trace: the
    course's [tool.chalktrace] and the defaults), so that a trace made with `run --preview-elements 64` is
    re-traced alike rather than reported as drift."""
    header = read_header(course_layout.trace_path(project_root, lecture))
    return tuple(run_arguments(recorded_options(header))) if header is not None else ()


def check(
    project_root: Path, *, jobs: int, timeout: float, show: bool = True, retrace: bool = False, runner: str | None = None
) -> CheckReport:
    """Re-trace every lecture into a temporary directory and compare with the committed traces.
    ``retrace``: the lectures a runner traces are re-traced through it (``runner``: all through that one)."""
    layout = quiet_layout_of(project_root)
    lectures = course_lectures(layout)
    report = CheckReport(
        lectures=len(lectures), skipped=[f"{course_path(p, project_root)}: skipped: {why}" for p, why in course_skipped(layout)]
    )
    traces_dir = layout.traces_dir
    with tempfile.TemporaryDirectory(prefix="chalktrace-check-") as tmp:
        outputs = [Path(tmp) / f"{p.stem}.json" for p in lectures]
        output_of = dict(zip(lectures, outputs))
        batches = split(lectures, project_root, runner)[1] if retrace or runner else []
        on_runners = {p for _runner, some in batches for p in some}
        here = [p for p in lectures if p not in on_runners]
        traced = run_many(
            here,
            [output_of[p] for p in here],
            jobs=jobs,
            timeout=timeout,
            force=True,
            project_root=project_root,
            show=show,
            options=[_committed_options(p, project_root) for p in here],
        )
        done = dict(zip(here, traced))
        for outcome in trace_batches(batches, output_of.__getitem__, project_root, timeout=timeout, force=True, show=show):
            done[outcome.lecture] = outcome
        outcomes = [done[p] for p in lectures]
        for lecture, output, outcome in zip(lectures, outputs, outcomes):
            name = shown_path(lecture, project_root)
            committed = course_layout.trace_path(project_root, lecture)
            committed_rel = shown_path(committed, project_root)
            ran = _written_trace(output, outcome)
            if ran is not None:  # what students would see: an error, a name an @inspect did not find, a warning box
                report.problems.extend(publish_problems(ran, project_root))
                report.notes.extend(lenient_warnings(ran, project_root))
            elif not outcome.ok:
                reason = outcome.message or f"exit {outcome.returncode}"
                report.problems.append(f"{name}: lecture failed: {reason.splitlines()[-1]}")
            if not committed.exists():
                if outcome.returncode != ExitCode.BAD_INPUT:  # a refused run already says why there is none
                    report.problems.append(f"{committed_rel}: missing; run `chalktrace build` and commit the trace")
                continue
            try:
                load_trace(committed)
            except TraceError as exc:
                report.problems.append(str(exc).replace(str(project_root) + os.sep, ""))
                continue
            why = freshness(lecture, committed, project_root)
            if why:
                report.problems.append(f"{committed_rel}: {why}; run `chalktrace build` and commit the trace")
                continue
            fresh = read_header(output) if ran is not None else None
            if fresh is not None:
                drifted, notes = value_drift(committed, output, project_root, lecture)
                report.problems.extend(drifted)
                report.notes.extend(notes)
                now_sources = set(fresh.get("sources") or {})
                then_sources = set((read_header(committed) or {}).get("sources") or {})
                if now_sources != then_sources:
                    added = sorted(now_sources - then_sources)
                    removed = sorted(then_sources - now_sources)
                    report.problems.append(
                        f"{committed_rel}: stale (sources now {'+' + ', +'.join(added) if added else ''}"
                        f"{' ' if added and removed else ''}{'-' + ', -'.join(removed) if removed else ''});"
                        " run `chalktrace build` and commit the trace"
                    )
    report.problems.extend(gpu_run_problems(project_root, lectures))
    report.problems.extend(unported_uses(project_root, layout.lectures_dir, recursive=not layout.edtrace))
    known = {p.stem for p in lectures}
    for orphan in sorted(traces_dir.glob("*.json")):
        if orphan.stem not in known:
            missing = shown_path(layout.lectures_dir / orphan.stem, project_root)
            trace = shown_path(orphan, project_root)
            report.problems.append(
                f"{trace}: no lecture {missing}.py for this trace; delete it (`git rm {trace}`, or `chalktrace build` removes it)"
            )
    return report


def unported_uses(project_root: Path, lectures_dir: Path, recursive: bool = True) -> list[str]:
    """Each edtrace name a lecture or helper uses that chalktrace has no equivalent for yet, at its
    file:line (an edtrace course's root: its own files only, not its subfolders and environments)."""
    found = []
    files = lectures_dir.rglob("*.py") if recursive else lectures_dir.glob("*.py")
    for path in sorted(files) if lectures_dir.is_dir() else []:
        try:
            source = read_source(path)
        except (OSError, UnicodeDecodeError, SyntaxError):
            continue  # the lecture's own run reports it
        found.extend(unported_names(shown_path(path, project_root), source))
    return found


def main(args: argparse.Namespace) -> int:
    root = course_root("check", site=False)
    if root is None:
        return ExitCode.BAD_INPUT
    try:
        report = check(root, jobs=args.jobs, timeout=args.timeout, show=not args.quiet, retrace=args.retrace, runner=args.runner)
    except RunnerError as exc:
        print(f"chalktrace: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    for line in report.skipped + report.notes:
        print(line, file=sys.stderr)
    for problem in report.problems:
        print(problem, file=sys.stderr)
    if report.problems:
        print(f"chalktrace check: {len(report.problems)} problem(s) in {report.lectures} lecture(s)", file=sys.stderr)
        return ExitCode.PROBLEMS
    print(
        f"chalktrace check: {report.lectures} lecture(s) run, every committed trace fresh and valid, no value drifted",
        file=sys.stderr,
    )
    return ExitCode.OK
