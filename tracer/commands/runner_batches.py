"""Which lectures a command traces through a runner, and tracing them there (for run, build, check, serve).

``split`` decides per lecture: ``--runner NAME`` sends every lecture to NAME (``--runner local``: none),
else a lecture goes to the first runner whose ``lectures`` patterns match it, else it stays here.
Inside a run that a runner launched (``paths.RUNNER_ENV`` is set) every lecture stays here, so a
runner never sends work on again. ``trace_batches`` traces each runner's lectures as one batch
(``tracer.runners.dispatch``) and says what happened, one line per lecture. This module must not
parse command lines or talk to Slurm or ssh itself.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Callable

from tracer.commands.retrace_status import RetraceStatus
from tracer.commands.run_protocol import RunOutcome
from tracer.contract import paths
from tracer.runners.config import Runner, load_runners, runner_for


def split(lectures: list[Path], project_root: Path, chosen: str | None) -> tuple[list[Path], list[tuple[Runner, list[Path]]]]:
    """(lectures traced here, [(runner, its lectures)]); RunnerError when the settings or ``chosen`` are wrong."""
    if os.environ.get(paths.RUNNER_ENV):
        return list(lectures), []
    runners = load_runners(project_root)
    here: list[Path] = []
    batches: dict[str, tuple[Runner, list[Path]]] = {}
    for lecture in lectures:
        runner = runner_for(lecture, project_root, runners, chosen)
        if runner is None:
            here.append(lecture)
        else:
            batches.setdefault(runner.name, (runner, []))[1].append(lecture)
    return here, list(batches.values())


def trace_batches(
    batches: list[tuple[Runner, list[Path]]],
    output_of: Callable[[Path], Path],
    project_root: Path,
    *,
    timeout: float,
    force: bool,
    seed: int | None = None,  # None: the course's [tool.chalktrace] seed, else 0
    run_options: list[str] | None = None,
    show: bool = True,
    status: RetraceStatus | None = None,
) -> list[RunOutcome]:
    """Trace each batch through its runner, one runner after another (Slurm fans a batch out);
    ``status`` (serve's) is told when each starts, gets its Slurm job, and ends."""
    from tracer.runners.dispatch import Batch, trace_batch

    outcomes: list[RunOutcome] = []
    for runner, lectures in batches:
        names = ", ".join(paths.shown_path(p, project_root) for p in lectures)
        if show:
            print(f"chalktrace: tracing {names} on runner {runner.where()}", file=sys.stderr)
        if status is not None:
            status.started(runner, lectures)

        def told(job: str, runner: Runner = runner, lectures: list[Path] = lectures) -> None:
            if show:
                print(f"chalktrace: runner {runner.name}: Slurm job {job}", file=sys.stderr)
            if status is not None:
                status.job(runner, lectures, job)

        batch = Batch(
            runner=runner,
            lectures=lectures,
            outputs=[output_of(p) for p in lectures],
            project_root=project_root,
            timeout=timeout,
            force=force,
            seed=seed,
            run_options=list(run_options or []),
            on_job=told,
        )
        for outcome in trace_batch(batch):
            if outcome.ok and show:
                print(
                    f"{paths.shown_path(outcome.lecture, project_root)}: traced on runner {runner.name} "
                    f"in {outcome.seconds:.1f}s{where_it_ran(output_of(outcome.lecture))}",
                    file=sys.stderr,
                )
            if status is not None:
                status.finished(outcome)
            outcomes.append(outcome)
    return outcomes


def where_it_ran(trace: Path) -> str:
    """`` (gpu-node-04, Slurm job 812345)`` from a trace's ``ran_on``, or nothing."""
    from tracer.contract.trace_reading import read_header

    ran_on = (read_header(trace) or {}).get("ran_on") or {}
    if not ran_on:
        return ""
    job = f", Slurm job {ran_on['slurm_job_id']}" if ran_on.get("slurm_job_id") else ""
    return f" ({ran_on.get('host')}{job})"
