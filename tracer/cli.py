"""The ``chalktrace`` command line: every command (run, check, build, serve, init, merge, diff) is registered here.

It parses arguments, calls the runner/regeneration/serve layers, prints one line per problem and
maps outcomes to the exit codes of ``tracer.exit_codes``. Each command is a ``cmd_NAME`` function
plus an ``add_NAME`` parser in :data:`COMMANDS`. It must not contain tracing, regeneration or
rendering logic of its own, and it imports the heavy layers (torch via the runner, watchdog, rich)
only inside the command that needs them, so ``chalktrace --help`` stays quick.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from functools import partial
from pathlib import Path
from typing import Any, Callable, Sequence

from tracer import layout
from tracer.exit_codes import EPILOG, ExitCode


def _progress(session_box: list, stop: threading.Event, label: str, stream: Any) -> None:
    from rich.console import Console

    console = Console(file=stream)  # the terminal: sys.stderr is the lecture's own while it runs
    with console.status(f"{label}: starting") as status:
        while not stop.wait(0.1):
            if not session_box:
                continue
            recorder = session_box[0].recorder
            where = recorder.location() or ""
            status.update(f"{label}: {len(recorder.steps):,} steps  {where}")


def _start_timeout(seconds: float | None, session_box: list, label: str) -> threading.Timer | None:
    """A watchdog that ends a lecture running past ``seconds``, naming the last line reached (the
    run's session, once it exists, is ``session_box[0]``: its ``abort()`` stops the ranks)."""
    if not seconds:
        return None
    stream = sys.stderr  # the terminal: while the lecture runs, sys.stderr is the lecture's own

    def expire() -> None:
        session = session_box[0] if session_box else None
        recorder = session.recorder if session is not None else None
        where = label
        if recorder is not None and recorder.steps:
            from tracer.capture.recorder import KEY, LINE

            step = recorder.steps[-1]
            where = f"{step[KEY][0]}:{step[LINE]}"
        if recorder is not None and recorder.location():
            where = recorder.location()
        hung = session.abort() if session is not None else None  # stop its ranks: no orphans
        if hung is not None:
            where, what = hung[0], f"{label} ran longer than {seconds:g}s: {hung[1]}"
            stream.write(f"{where}: timeout: {what}; previous trace kept\n")
        else:
            stream.write(f"{where}: timeout: {label} ran longer than {seconds:g}s; previous trace kept\n")
        stream.flush()
        os._exit(ExitCode.TIMEOUT)

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()
    return timer


def cmd_run(args: argparse.Namespace) -> int:
    if args.output and len(args.lectures) > 1:
        print("chalktrace: -o/--output takes a single lecture", file=sys.stderr)
        return ExitCode.BAD_INPUT
    worst: int = ExitCode.OK
    from tracer import regen

    if args.nproc_per_node:
        return _run_torchrun(args)
    for lecture in args.lectures:
        # regen owns the CUDA guard and the kept GPU run around the run itself
        worst = max(worst, regen.guarded_run(Path(lecture), Path(args.output) if args.output else None,
                                             force=args.force, trace=partial(_run_one, args, lecture)))
    return worst


def _run_one(args: argparse.Namespace, lecture: str) -> int:
    """Trace one lecture for ``cmd_run``; its exit code."""
    from tracer.capture.output_budget import OutputBudget
    from tracer.capture.runner import LectureError, run_lecture
    from tracer.capture.session import SessionOptions
    from tracer.capture.values import Limits

    box: list = []
    stop = threading.Event()
    show = sys.stderr.isatty() and not args.quiet
    thread = threading.Thread(target=_progress, args=(box, stop, lecture, sys.stderr), daemon=True) if show else None
    if thread:
        thread.start()
    timer = _start_timeout(args.timeout, box, lecture)
    started = time.perf_counter()
    try:
        options = SessionOptions(seed=args.seed, inspect_all=args.inspect_all, max_steps=args.max_steps,
                                 measure_flops=not args.no_flops, limits=Limits(tensor_elements=args.preview_elements),
                                 output_budget=OutputBudget(args.max_output_chars, args.max_output_chars),
                                 max_plot_points=args.max_plot_points)
        result = run_lecture(lecture, output=args.output, shard_dir=args.shard_dir, options=options,
                             on_session=box.append)
    except LectureError as exc:
        print(exc, file=sys.stderr)
        return ExitCode.BAD_INPUT
    finally:
        if timer:
            timer.cancel()
        stop.set()
        if thread:
            thread.join()
    seconds = time.perf_counter() - started
    worst = ExitCode.OK
    if result.error_line:
        print(result.error_line, file=sys.stderr)
        # Anything but "ok" means main() did not complete: never exit 0 for it.
        worst = ExitCode.INTERRUPTED if result.status == "interrupted" else ExitCode.LECTURE_FAILED
    if not args.quiet:
        status = {"ok": "ok", "error": "raised", "exited": "exited before main() returned",
                  "interrupted": "interrupted"}.get(result.status, result.status)
        shown = result.output
        if shown is not None:
            try:
                shown = shown.resolve().relative_to(Path.cwd().resolve())
            except ValueError:
                pass
        print(f"{result.lecture}: {status}, {result.steps:,} steps in {seconds:.1f}s -> {shown}",
              file=sys.stderr)
    return worst


def _run_torchrun(args: argparse.Namespace) -> int:
    """``run --nproc-per-node N``: the lecture is a torchrun script; trace every rank and merge them."""
    from tracer.capture.ranks.torchrun import run_torchrun
    from tracer.capture.ranks.shards import ShardError

    if len(args.lectures) > 1:
        print("chalktrace: --nproc-per-node takes a single lecture", file=sys.stderr)
        return ExitCode.BAD_INPUT
    lecture = Path(args.lectures[0])
    if not lecture.is_file():
        print(f"{lecture}: no such lecture file", file=sys.stderr)
        return ExitCode.BAD_INPUT
    extra = (["--inspect-all"] if args.inspect_all else []) + (["--no-flops"] if args.no_flops else [])
    extra += ["--max-steps", str(args.max_steps)]
    started = time.perf_counter()
    try:
        result = run_torchrun(lecture, args.nproc_per_node, output=Path(args.output) if args.output else None,
                              seed=args.seed, timeout=args.timeout, extra=extra)
    except ShardError as exc:
        print(exc, file=sys.stderr)
        return ExitCode.LECTURE_FAILED
    if result.message:
        print(result.message, file=sys.stderr)
    if result.status == "timeout":
        return ExitCode.TIMEOUT
    if result.status == "failed":
        return ExitCode.LECTURE_FAILED
    if not args.quiet:
        print(f"{lecture}: {'raised' if result.status == 'error' else 'ok'}, {result.ranks} ranks, "
              f"{result.steps:,} steps in {time.perf_counter() - started:.1f}s -> {result.output}", file=sys.stderr)
    return ExitCode.LECTURE_FAILED if result.status == "error" else ExitCode.OK


def cmd_merge(args: argparse.Namespace) -> int:
    from tracer.capture.ranks.torchrun import merge
    from tracer.capture.ranks.shards import ShardError

    try:
        result = merge(Path(args.directory), Path(args.output) if args.output else None)
    except ShardError as exc:
        print(exc, file=sys.stderr)
        return ExitCode.BAD_INPUT
    if result.message:
        print(result.message, file=sys.stderr)
    if not args.quiet:
        print(f"chalktrace merge: {result.ranks} ranks, {result.steps:,} steps -> {result.output}", file=sys.stderr)
    return ExitCode.LECTURE_FAILED if result.status == "error" else ExitCode.OK


def _project_root() -> Path:
    return layout.find_project_root(Path.cwd())


def _course_root(command: str, *, site: bool) -> Path | None:
    """The course the command runs in, or None after printing why there is none here."""
    root = _project_root()
    if not (root / layout.LECTURES_DIR).is_dir():
        print(f"chalktrace {command}: not in a course: no {layout.LECTURES_DIR}/ folder in {root} "
              "(run it in a course's folder; `chalktrace init DIR` makes one)", file=sys.stderr)
        return None
    if site and not (root / "mkdocs.yml").is_file():
        print(f"chalktrace {command}: not in a course: no mkdocs.yml in {root} (`chalktrace init DIR` makes one; "
              "`build --no-site` only traces)", file=sys.stderr)
        return None
    return root


def cmd_check(args: argparse.Namespace) -> int:
    from tracer import regen

    root = _course_root("check", site=False)
    if root is None:
        return ExitCode.BAD_INPUT
    report = regen.check(root, jobs=args.jobs, timeout=args.timeout, show=not args.quiet)
    for line in report.skipped + report.notes:
        print(line, file=sys.stderr)
    for problem in report.problems:
        print(problem, file=sys.stderr)
    if report.problems:
        print(f"chalktrace check: {len(report.problems)} problem(s) in {report.lectures} lecture(s)", file=sys.stderr)
        return ExitCode.PROBLEMS
    print(f"chalktrace check: {report.lectures} lecture(s) run, every committed trace fresh and valid, no value drifted",
          file=sys.stderr)
    return ExitCode.OK


def cmd_diff(args: argparse.Namespace) -> int:
    import json

    from tracer import trace_diff
    from tracer.trace_format import TraceError, load_trace

    try:
        old, new = load_trace(args.old), load_trace(args.new)
    except TraceError as exc:
        print(f"chalktrace diff: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    changes = trace_diff.diff_traces(old, new)
    shown = changes if args.all else [c for c in changes if not c.run_dependent]
    hidden = len(changes) - len(shown)
    if args.json:
        print(json.dumps({"old": args.old, "new": args.new, "equal": not shown, "run_dependent_hidden": hidden,
                          "changes": trace_diff.to_json(shown)}, indent=1, ensure_ascii=False))
    else:
        for change in shown:
            print(trace_diff.format_change(change))
        if not args.quiet:
            left_out = f"; {hidden} run-dependent difference(s) left out (timings; --all shows them)" if hidden else ""
            print(f"chalktrace diff: {len(shown)} difference(s){left_out}", file=sys.stderr)
    return ExitCode.DIFFERENT if shown else ExitCode.OK


def cmd_build(args: argparse.Namespace) -> int:
    from tracer import regen

    root = _course_root("build", site=not args.no_site)
    if root is None:
        return ExitCode.BAD_INPUT
    return regen.build(root, jobs=args.jobs, timeout=args.timeout, force=args.force,
                       site=not args.no_site, show=not args.quiet)


def cmd_serve(args: argparse.Namespace) -> int:
    from tracer.serve import serve

    root = _course_root("serve", site=True)
    if root is None:
        return ExitCode.BAD_INPUT
    return serve(root, address=args.address, timeout=args.timeout, force=args.force)


def cmd_init(args: argparse.Namespace) -> int:
    from tracer.new_course import CourseExists, create_course

    try:
        written = create_course(Path(args.directory), name=args.name, requirement=args.requirement)
    except CourseExists as exc:
        print(f"chalktrace: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    if not args.quiet:
        print(f"chalktrace: created {args.directory}/ ({', '.join(written)}); next: see its README.md", file=sys.stderr)
    return ExitCode.OK


# -- parsers ---------------------------------------------------------------------------------------
def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def add_run(sub: Any) -> argparse.ArgumentParser:
    from tracer.capture.api import PLOT_DATA_POINTS
    from tracer.capture.output_budget import HEAD_CHARS
    from tracer.capture.values import Limits

    run = sub.add_parser("run", help="trace lectures into site/traces/NAME.json")
    run.add_argument("lectures", nargs="+", metavar="LECTURE", help="lecture file(s), e.g. lectures/hello.py")
    run.add_argument("-o", "--output", help="trace path (default: site/traces/NAME.json)")
    run.add_argument("--seed", type=int, default=0, help="seed for random, numpy and torch (default 0)")
    run.add_argument("--inspect-all", action="store_true", help="record every local variable at every step")
    run.add_argument("--max-steps", type=_positive_int, default=layout.DEFAULT_MAX_STEPS,
                     help="stop recording after this many steps")
    run.add_argument("--timeout", type=float, default=None, help="give up on a lecture after this many seconds")
    run.add_argument("--max-output-chars", type=int, default=HEAD_CHARS, metavar="N",
                     help=f"printed output (stdout, and stderr) kept per lecture: the first N and the last N characters "
                          f"(default {HEAD_CHARS:,}; the trace notes what was left out)")
    run.add_argument("--preview-elements", type=int, default=Limits.tensor_elements, metavar="N",
                     help=f"values kept per tensor/array preview (default {Limits.tensor_elements})")
    run.add_argument("--max-plot-points", type=_positive_int, default=PLOT_DATA_POINTS, metavar="N",
                     help=f"data points kept per plot(): an even sample of N (default {PLOT_DATA_POINTS:,}; "
                          "the trace notes when a plot was sampled)")
    run.add_argument("--no-flops", action="store_true", help="skip @flops measurement (quicker drafts)")
    run.add_argument("--force", action="store_true", help="replace a trace made on CUDA even on a CPU-only machine")
    run.add_argument("-q", "--quiet", action="store_true", help="no progress or summary output")
    run.add_argument("--nproc-per-node", type=int, metavar="N",
                     help="the lecture is a torchrun script: launch N ranks with torchrun, trace each, merge them")
    run.add_argument("--shard-dir", metavar="DIR",
                     help="as one rank under torchrun: write this rank's shard into DIR (then `chalktrace merge DIR`)")
    return run


def add_merge(sub: Any) -> argparse.ArgumentParser:
    merge = sub.add_parser("merge", help="merge the rank shards in DIR (torchrun ranks, any nodes) into one trace")
    merge.add_argument("directory", metavar="DIR", help="directory the ranks wrote rank-R.json shards into")
    merge.add_argument("-o", "--output", help="trace path (default: site/traces/NAME.json of the shards' lecture)")
    merge.add_argument("-q", "--quiet", action="store_true")
    return merge


def _add_parallel_tracing(parser: argparse.ArgumentParser) -> None:
    """Options of the commands that re-trace many lectures."""
    cores = os.cpu_count() or 1
    parser.add_argument("-j", "--jobs", type=int, default=cores, help=f"parallel lectures (default {cores})")
    parser.add_argument("--timeout", type=float, default=layout.DEFAULT_TIMEOUT_SECONDS, help="seconds per lecture")


def add_check(sub: Any) -> argparse.ArgumentParser:
    check = sub.add_parser("check", help="re-trace every lecture in a temp dir; fail on stale/missing/invalid traces")
    _add_parallel_tracing(check)
    check.add_argument("-q", "--quiet", action="store_true")
    return check


def add_diff(sub: Any) -> argparse.ArgumentParser:
    diff = sub.add_parser("diff", help="what changed between two traces: one line per changed value, step, "
                                       "rendering or output (exit 0 equal, 1 different)")
    diff.add_argument("old", metavar="A", help="the trace before (e.g. the committed site/traces/NAME.json)")
    diff.add_argument("new", metavar="B", help="the trace after")
    diff.add_argument("--json", action="store_true", help="print the changes as JSON records")
    diff.add_argument("--all", action="store_true",
                      help="also show run-dependent fields (timings, allocator figures; see trace_format.RUN_DEPENDENT)")
    diff.add_argument("-q", "--quiet", action="store_true", help="no summary line")
    return diff


def add_build(sub: Any) -> argparse.ArgumentParser:
    build = sub.add_parser("build", help="re-trace lectures whose sources changed, then build the site")
    _add_parallel_tracing(build)
    build.add_argument("--force", action="store_true", help="replace stale CUDA traces with CPU traces")
    build.add_argument("--no-site", action="store_true", help="only re-trace; skip mkdocs build")
    build.add_argument("-q", "--quiet", action="store_true")
    return build


def add_serve(sub: Any) -> argparse.ArgumentParser:
    serve = sub.add_parser("serve", help="serve the site and re-trace a lecture when it is saved")
    serve.add_argument("-a", "--address", default="127.0.0.1:8000")
    serve.add_argument("--timeout", type=float, default=layout.DEFAULT_TIMEOUT_SECONDS, help="seconds per lecture")
    serve.add_argument("--force", action="store_true", help="replace stale CUDA traces with CPU traces")
    return serve


def add_init(sub: Any) -> argparse.ArgumentParser:
    init = sub.add_parser("init", help="create a new course repository (mkdocs.yml, lectures/hello.py, CI script, "
                                       "GitHub Actions workflow)")
    init.add_argument("directory", metavar="DIR", help="where to create it (must be new or empty)")
    init.add_argument("--name", help="the course's name (default: from DIR)")
    init.add_argument("--requirement", default=None, metavar="SPEC",
                      help="what requirements.txt installs chalktrace from: a version spec, a wheel path/URL "
                           "('chalktrace[torch] @ file:///path/chalktrace-0.1.0-py3-none-any.whl') or a VCS URL "
                           "(default: the source this chalktrace was installed from, pinned: a VCS URL at its commit "
                           "or the wheel's path; `chalktrace==X.Y` once released); "
                           "requirements-site.txt gets it without extras")
    init.add_argument("-q", "--quiet", action="store_true")
    return init


# Every command: name -> (add its parser, run it). A new command is one entry here plus its two functions.
COMMANDS: dict[str, tuple[Callable[[Any], argparse.ArgumentParser], Callable[[argparse.Namespace], int]]] = {
    "run": (add_run, cmd_run),
    "check": (add_check, cmd_check),
    "build": (add_build, cmd_build),
    "serve": (add_serve, cmd_serve),
    "init": (add_init, cmd_init),
    "merge": (add_merge, cmd_merge),
    "diff": (add_diff, cmd_diff),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="chalktrace", description="Trace executable lectures and publish them.",
                                     epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (add, command) in COMMANDS.items():
        command_parser = add(sub)
        command_parser.epilog = EPILOG
        command_parser.formatter_class = argparse.RawDescriptionHelpFormatter
        command_parser.set_defaults(func=command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("chalktrace: interrupted; traces written so far are complete, nothing half-written", file=sys.stderr)
        return ExitCode.INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
