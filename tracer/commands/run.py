"""``chalktrace run``: trace lectures into ``site/traces/NAME.json`` (or ``-o``), one at a time or as torchrun ranks.

Each run goes through the kept-GPU-run protocol (``gpu_runs.guarded_run``), shows progress and
answers to the timeout timer (``capture.progress_and_timeout``). This module must not record steps itself: the
runner does; it imports the capture side (and so torch) only inside the command.
"""

from __future__ import annotations

import argparse
import threading
import time
from functools import partial
from pathlib import Path

from tracer.capture import terminal
from tracer.capture.terminal import say
from tracer.contract.trace_format import Status
from tracer.exit_codes import ExitCode

# What the summary line says of each run status.
STATUS_WORDS: dict[Status, str] = {
    "ok": "ok",
    "error": "raised",
    "exited": "exited before main() returned",
    "interrupted": "interrupted",
}


def main(args: argparse.Namespace) -> int:
    if args.output and len(args.lectures) > 1:
        say("chalktrace: -o/--output takes a single lecture")
        return ExitCode.BAD_INPUT
    worst: int = ExitCode.OK
    from tracer.commands import gpu_runs

    if not _course_defaults(args):
        return ExitCode.BAD_INPUT

    if args.nodes and not args.nproc_per_node:
        say("chalktrace: --nodes needs --nproc-per-node (the ranks per node)")
        return ExitCode.BAD_INPUT
    if args.nproc_per_node:
        return _run_torchrun(args)
    lectures, through_runners = _runner_split(args)
    if lectures is None:
        return ExitCode.BAD_INPUT
    worst = _run_on_runners(args, through_runners)
    for lecture in lectures:
        # gpu_runs owns the CUDA guard and the kept GPU run around the run itself
        worst = max(
            worst,
            gpu_runs.guarded_run(
                Path(lecture),
                Path(args.output) if args.output else None,
                force=args.force,
                trace=partial(_run_one, args, lecture),
            ),
        )
    return worst


def _course_defaults(args: argparse.Namespace) -> bool:
    """Fill the trace options left off the command line from the course's ``[tool.chalktrace]``, else the
    built-in defaults; False after saying why the course's settings cannot be used."""
    from tracer.capture.encoder_core import Limits
    from tracer.capture.output_budget import HEAD_CHARS
    from tracer.contract import paths
    from tracer.contract.helper_files import SettingsError
    from tracer.contract.trace_settings import DEFAULT_PREVIEW_ROWS, course_trace_settings

    try:
        course = course_trace_settings(paths.find_project_root(Path(args.lectures[0]).absolute().parent))
    except SettingsError as exc:
        say(f"chalktrace: {exc}")
        return False
    builtin = {
        "preview_elements": Limits.tensor_elements,
        "preview_rows": DEFAULT_PREVIEW_ROWS,
        "max_steps": paths.DEFAULT_MAX_STEPS,
        "max_output_chars": HEAD_CHARS,
        "flops": True,
        "seed": 0,
    }
    for key, value in builtin.items():
        if getattr(args, key) is None:
            setattr(args, key, course.get(key, value))
    return True


def _runner_split(args: argparse.Namespace) -> tuple[list[str] | None, list]:
    """(lectures traced here, [(runner, lectures)]); (None, []) after saying why the runners cannot be used."""
    from tracer.commands.runner_batches import split
    from tracer.contract import paths
    from tracer.runners.config import RunnerError

    if args.shard_dir:
        return list(args.lectures), []  # one rank of a launch: the launch decided where it runs
    root = paths.find_project_root(Path(args.lectures[0]).absolute().parent)
    try:
        here, batches = split([Path(p) for p in args.lectures], root, args.runner)
    except RunnerError as exc:
        say(f"chalktrace: {exc}")
        return None, []
    return [str(p) for p in here], batches


def _run_on_runners(args: argparse.Namespace, batches: list) -> int:
    """Trace the lectures that runners trace; the worst exit code (each failure said in one line)."""
    from tracer.commands.runner_batches import trace_batches
    from tracer.contract import course_layout, paths

    if not batches:
        return ExitCode.OK
    root = paths.find_project_root(Path(batches[0][1][0]).absolute().parent)
    options = ["--max-steps", str(args.max_steps), "--max-output-chars", str(args.max_output_chars)]
    options += ["--preview-elements", str(args.preview_elements), "--max-plot-points", str(args.max_plot_points)]
    options += ["--preview-rows", str(args.preview_rows)]
    options += (["--inspect-all"] if args.inspect_all else []) + (["--no-flops"] if not args.flops else [])
    outcomes = trace_batches(
        batches,
        lambda lecture: Path(args.output) if args.output else course_layout.trace_path(root, lecture.absolute()),
        root,
        timeout=args.timeout or paths.DEFAULT_TIMEOUT_SECONDS,
        force=args.force,
        seed=args.seed,
        run_options=options,
        show=not args.quiet,
    )
    for outcome in outcomes:
        if outcome.message:
            say(outcome.message)
    return max((o.returncode for o in outcomes), default=ExitCode.OK)


def _run_one(args: argparse.Namespace, lecture: str) -> int:
    """Trace one lecture for ``main``; its exit code."""
    from tracer.capture.output_budget import OutputBudget
    from tracer.capture.runner import LectureError, run_lecture
    from tracer.capture.traced_process import TraceOptions
    from tracer.capture.encoder_core import Limits
    from tracer.capture.progress_and_timeout import show_progress, start_timeout

    box: list = []
    stop = threading.Event()
    stream = terminal.stderr()  # saved at start: while the lecture runs, sys.stderr and fd 2 are its own
    show = stream.isatty() and not args.quiet
    thread = threading.Thread(target=show_progress, args=(box, stop, lecture, stream), daemon=True) if show else None
    if thread:
        thread.start()
    from tracer.capture import lingering_threads

    before = set(threading.enumerate())
    timer = start_timeout(args.timeout, box, lecture)
    started = time.perf_counter()
    deadline = time.monotonic() + args.timeout if args.timeout else None
    try:
        options = TraceOptions(
            seed=args.seed,
            inspect_all=args.inspect_all,
            max_steps=args.max_steps,
            measure_flops=args.flops,
            limits=Limits(tensor_elements=args.preview_elements),
            preview_rows=args.preview_rows,
            output_budget=OutputBudget(args.max_output_chars, args.max_output_chars),
            max_plot_points=args.max_plot_points,
        )
        result = run_lecture(lecture, output=args.output, shard_dir=args.shard_dir, options=options, on_process=box.append)
    except LectureError as exc:
        say(str(exc))
        return ExitCode.BAD_INPUT
    finally:
        if timer:
            timer.cancel()
        stop.set()
        if thread:
            thread.join()
    seconds = time.perf_counter() - started
    # the lecture's threads that outlive main(): named, and bounded by --timeout like the rest of the run
    lingering_threads.bound(before, lecture, deadline=deadline, seconds=args.timeout, stream=stream)
    _say_student_warnings(lecture, result.output)
    worst = ExitCode.OK
    if result.error_line:
        say(result.error_line)
        # Anything but "ok" means main() did not complete: never exit 0 for it.
        worst = ExitCode.INTERRUPTED if result.status == "interrupted" else ExitCode.LECTURE_FAILED
    if not args.quiet:
        status = STATUS_WORDS[result.status]
        shown = result.output
        if shown is not None:
            try:
                shown = shown.resolve().relative_to(Path.cwd().resolve())
            except ValueError:
                pass
        say(f"{result.lecture}: {status}, {result.steps:,} steps in {seconds:.1f}s -> {shown}")
    return worst


def _say_student_warnings(lecture: str, output: Path | None) -> None:
    """The warnings the written trace's page would show (``publish_policy``): the run said most as they
    happened; it says the missing alt texts here, and how many warnings ``check`` and ``build`` would fail on."""
    from tracer.contract.helper_files import SettingsError
    from tracer.contract.paths import find_project_root
    from tracer.contract.publish_policy import student_warnings
    from tracer.contract.trace_format import TraceError
    from tracer.contract.trace_reading import load_trace

    if output is None or not output.exists():
        return
    try:
        warnings = student_warnings(load_trace(output, validate=False), find_project_root(Path(lecture).absolute().parent))
    except (TraceError, SettingsError) as exc:
        say(f"chalktrace: {exc}")
        return
    for warning in warnings:
        if warning.kind == "alt-text":
            say(f"chalktrace: warning: {warning.text}")
    blocking = [w for w in warnings if not w.accepted]
    if blocking:
        kinds = ", ".join(dict.fromkeys(w.kind for w in blocking))
        say(
            f"{lecture}: {len(blocking)} warning(s) students would see ({kinds}); `chalktrace check` and `build` fail "
            "on them: fix them, or accept one with `# @accept KIND` on its line"
        )


def _ranks_through_slurm(args: argparse.Namespace, lecture: Path, output: Path | None, extra: list[str]):
    """``run --nodes M --nproc-per-node N``: the ranks start through the lecture's Slurm runner."""
    from tracer.contract import paths
    from tracer.runners.config import RunnerError, load_runners, runner_for
    from tracer.runners.ranks import run_ranks

    root = paths.find_project_root(lecture.absolute().parent)
    runner = runner_for(lecture.absolute(), root, load_runners(root), args.runner)
    if runner is None:
        raise RunnerError(f"{lecture}: --nodes needs a Slurm runner (--runner NAME, or one whose lectures match it)")
    return run_ranks(
        lecture,
        runner,
        nodes=args.nodes,
        tasks_per_node=args.nproc_per_node,
        output=output,
        seed=args.seed,
        timeout=args.timeout,
        extra=extra,
    )


def _run_torchrun(args: argparse.Namespace) -> int:
    """``run --nproc-per-node N``: the lecture is a torchrun script; trace every rank and merge them."""
    from tracer.capture.ranks.torchrun import run_torchrun
    from tracer.capture.ranks.shards import ShardError
    from tracer.runners.config import RunnerError

    if len(args.lectures) > 1:
        say("chalktrace: --nproc-per-node takes a single lecture")
        return ExitCode.BAD_INPUT
    lecture = Path(args.lectures[0])
    if not lecture.is_file():
        say(f"{lecture}: no such lecture file")
        return ExitCode.BAD_INPUT
    extra = (["--inspect-all"] if args.inspect_all else []) + (["--no-flops"] if not args.flops else [])
    extra += ["--max-steps", str(args.max_steps)]
    started = time.perf_counter()
    output = Path(args.output) if args.output else None
    try:
        if args.nodes:
            result = _ranks_through_slurm(args, lecture, output, extra)
        else:
            result = run_torchrun(lecture, args.nproc_per_node, output=output, seed=args.seed, timeout=args.timeout, extra=extra)
    except ShardError as exc:
        say(str(exc))
        return ExitCode.LECTURE_FAILED
    except RunnerError as exc:
        say(f"chalktrace: {exc}")
        return ExitCode.BAD_INPUT
    if result.message:
        say(result.message)
    if result.status == "timeout":
        return ExitCode.TIMEOUT
    if result.status == "failed":
        return ExitCode.LECTURE_FAILED
    if not args.quiet:
        say(
            f"{lecture}: {'raised' if result.status == 'error' else 'ok'}, {result.ranks} ranks, "
            f"{result.steps:,} steps in {time.perf_counter() - started:.1f}s -> {result.output}"
        )
    return ExitCode.LECTURE_FAILED if result.status == "error" else ExitCode.OK
