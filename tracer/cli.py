"""The ``lectrace`` command line: run, check, build, serve.

It parses arguments, calls the runner/regeneration/site layers, prints one line per problem and
maps outcomes to exit codes. It must not contain tracing or rendering logic of its own.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

from tracer import layout
from typing import Sequence

EXIT_OK = 0
EXIT_LECTURE_FAILED = 1  # a lecture raised (its trace, with the error, was still written)
EXIT_BAD_INPUT = 2  # bad arguments, missing file, syntax error, import error: nothing written
EXIT_STALE = 3  # check: a trace is missing, stale or invalid
EXIT_TIMEOUT = 124  # a lecture ran past --timeout: nothing written, previous trace kept

EPILOG = """exit codes:
  0    success
  1    a lecture raised an exception (its trace is still written, ending at the failing line)
  2    bad input: missing file, syntax error, import error, no main(); nothing written
  3    check: a trace is missing, stale, invalid, or a lecture failed
  124  a lecture ran past --timeout; nothing written, the previous trace is kept
"""


def _progress(recorder_box: list, stop: threading.Event, label: str) -> None:
    from rich.console import Console

    console = Console(stderr=True)
    with console.status(f"{label}: starting") as status:
        while not stop.wait(0.1):
            recorder = recorder_box[0] if recorder_box else None
            if recorder is None:
                continue
            stack = recorder._stack
            where = f"{stack[-1].key[0]}:{stack[-1].line}" if stack else ""
            status.update(f"{label}: {len(recorder.steps):,} steps  {where}")


def _start_timeout(seconds: float | None, recorder_box: list, label: str) -> threading.Timer | None:
    """A watchdog that ends a lecture running past ``seconds``, naming the last line reached."""
    if not seconds:
        return None
    import os

    def expire() -> None:
        recorder = recorder_box[0] if recorder_box else None
        where = label
        if recorder is not None and recorder.steps:
            step = recorder.steps[-1]
            where = f"{step[1][0]}:{step[2]}"
        stack = getattr(recorder, "_stack", None)
        if stack:
            where = f"{stack[-1].key[0]}:{stack[-1].line}"
        sys.stderr.write(f"{where}: timeout: {label} ran longer than {seconds:g}s; previous trace kept\n")
        sys.stderr.flush()
        os._exit(EXIT_TIMEOUT)

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()
    return timer


def cmd_run(args: argparse.Namespace) -> int:
    from tracer.capture.runner import LectureError, run_lecture

    if args.output and len(args.lectures) > 1:
        print("lectrace: -o/--output takes a single lecture", file=sys.stderr)
        return EXIT_BAD_INPUT
    worst = EXIT_OK
    for lecture in args.lectures:
        from tracer import regen

        refusal = regen.cuda_guard(Path(lecture), Path(args.output) if args.output else None, force=args.force)
        if refusal is not None:
            print(refusal.message, file=sys.stderr)
            if refusal.blocking:
                worst = max(worst, EXIT_BAD_INPUT)
                continue
            if refusal.skip:
                continue
        box: list = []
        stop = threading.Event()
        show = sys.stderr.isatty() and not args.quiet
        thread = threading.Thread(target=_progress, args=(box, stop, lecture), daemon=True) if show else None
        if thread:
            thread.start()
        timer = _start_timeout(args.timeout, box, lecture)
        started = time.perf_counter()
        try:
            result = run_lecture(lecture, output=args.output, seed=args.seed, inspect_all=args.inspect_all,
                                 max_steps=args.max_steps, on_recorder=box.append,
                                 measure_flops=not args.no_flops)
        except LectureError as exc:
            print(exc, file=sys.stderr)
            worst = max(worst, EXIT_BAD_INPUT)
            continue
        finally:
            if timer:
                timer.cancel()
            stop.set()
            if thread:
                thread.join()
        seconds = time.perf_counter() - started
        if result.error_line:
            print(result.error_line, file=sys.stderr)
            worst = max(worst, EXIT_LECTURE_FAILED)
        if not args.quiet:
            status = "raised" if result.status == "error" else "ok"
            shown = result.output
            try:
                shown = result.output.resolve().relative_to(Path.cwd().resolve())
            except ValueError:
                pass
            print(f"{result.lecture}: {status}, {result.steps:,} steps in {seconds:.1f}s -> {shown}",
                  file=sys.stderr)
    return worst


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="lectrace", description="Trace executable lectures and publish them.",
                                     epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="trace lectures into site/traces/NAME.json", epilog=EPILOG,
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    run.add_argument("lectures", nargs="+", metavar="LECTURE", help="lecture file(s), e.g. lectures/hello.py")
    run.add_argument("-o", "--output", help="trace path (default: site/traces/NAME.json)")
    run.add_argument("--seed", type=int, default=0, help="seed for random, numpy and torch (default 0)")
    run.add_argument("--inspect-all", action="store_true", help="record every local variable at every step")
    run.add_argument("--max-steps", type=int, default=layout.DEFAULT_MAX_STEPS, help="stop recording after this many steps")
    run.add_argument("--timeout", type=float, default=None, help="give up on a lecture after this many seconds")
    run.add_argument("--no-flops", action="store_true", help="skip @flops measurement (quicker drafts)")
    run.add_argument("--force", action="store_true", help="replace a trace made on CUDA even on a CPU-only machine")
    run.add_argument("-q", "--quiet", action="store_true", help="no progress or summary output")
    run.set_defaults(func=cmd_run)

    try:
        from tracer import regen
    except ImportError:
        regen = None
    if regen is not None:
        regen.add_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("lectrace: interrupted; traces written so far are complete, nothing half-written", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
