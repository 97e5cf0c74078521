"""The ``chalktrace`` command line: it parses arguments, dispatches to one module per command, maps exit codes.

Every command (run, check, build, serve, init, merge, diff) is an ``add_NAME`` parser here plus the
``main(args)`` of ``tracer.commands.NAME``, registered in :data:`COMMANDS`. This module must not
contain tracing, regeneration or rendering logic, and it imports a command's module (and so torch,
watchdog, rich) only when that command runs, so ``chalktrace --help`` stays quick.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Any, Callable, Sequence

from tracer.contract import paths
from tracer.exit_codes import EPILOG, ExitCode


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
    run.add_argument("--max-steps", type=_positive_int, default=paths.DEFAULT_MAX_STEPS,
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
    parser.add_argument("--timeout", type=float, default=paths.DEFAULT_TIMEOUT_SECONDS, help="seconds per lecture")


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
    serve.add_argument("--timeout", type=float, default=paths.DEFAULT_TIMEOUT_SECONDS, help="seconds per lecture")
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


def command(name: str) -> Callable[[argparse.Namespace], int]:
    """The ``main`` of ``tracer.commands.NAME``, imported only when that command runs."""

    def run(args: argparse.Namespace) -> int:
        return int(importlib.import_module(f"tracer.commands.{name}").main(args))

    return run


# Every command: name -> (add its parser, run it). A new command is one entry here, its ``add_NAME``
# parser above and its module ``tracer/commands/NAME.py`` with ``main(args) -> int``.
COMMANDS: dict[str, tuple[Callable[[Any], argparse.ArgumentParser], Callable[[argparse.Namespace], int]]] = {
    "run": (add_run, command("run")),
    "check": (add_check, command("check")),
    "build": (add_build, command("build")),
    "serve": (add_serve, command("serve")),
    "init": (add_init, command("init")),
    "merge": (add_merge, command("merge")),
    "diff": (add_diff, command("diff")),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="chalktrace", description="Trace executable lectures and publish them.",
                                     epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    for add, run in COMMANDS.values():
        command_parser = add(sub)
        command_parser.epilog = EPILOG
        command_parser.formatter_class = argparse.RawDescriptionHelpFormatter
        command_parser.set_defaults(func=run)
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
