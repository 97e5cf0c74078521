"""The ``chalktrace`` command line: it parses arguments, dispatches to one module per command, maps exit codes.

Every command (run, check, build, serve, present, export, init, execute, merge, diff) is an ``add_NAME`` parser here plus the
``main(args)`` of ``tracer.commands.NAME``, registered in :data:`COMMANDS`. This module must not
contain tracing, regeneration or rendering logic, and it imports a command's module (and so torch,
watchdog, rich) only when that command runs, so ``chalktrace --help`` stays quick.
"""

from __future__ import annotations

import argparse
import importlib
import math
import os
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

from tracer.capture import terminal
from tracer.capture.terminal import say
from tracer import __version__
from tracer.contract import paths
from tracer.exit_codes import EPILOG, ExitCode


def _int_at_least(text: str, least: int, wanted: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"must be {wanted}, got {value}")
    return value


def _positive_int(text: str) -> int:
    return _int_at_least(text, 1, "at least 1")


def _whole_number(text: str) -> int:
    return _int_at_least(text, 0, "0 or more")


def _seconds(text: str) -> float:
    """A time limit: a finite number of seconds above 0 (no limit: leave the option out)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(
            f"must be a finite number of seconds above 0, got {text!r} (leave the option out for the default)"
        )
    return value


def add_run(sub: Any) -> argparse.ArgumentParser:
    from tracer.capture.api import PLOT_DATA_POINTS
    from tracer.capture.output_budget import HEAD_CHARS
    from tracer.contract.trace_settings import DEFAULT_PREVIEW_ROWS
    from tracer.capture.encoder_core import Limits

    run = sub.add_parser("run", help="trace lectures into site/traces/NAME.json")
    run.add_argument("lectures", nargs="+", metavar="LECTURE", help="lecture file(s), e.g. lectures/hello.py")
    run.add_argument("-o", "--output", help="trace path (default: site/traces/NAME.json)")
    run.add_argument(
        "--seed", type=int, default=None, help="seed for random, numpy and torch (default: [tool.chalktrace] seed, else 0)"
    )
    run.add_argument("--inspect-all", action="store_true", help="record every local variable at every step")
    run.add_argument(
        "--max-steps",
        type=_positive_int,
        default=None,
        help=f"stop recording after this many steps (default: [tool.chalktrace] max_steps, else {paths.DEFAULT_MAX_STEPS:,})",
    )
    run.add_argument(
        "--timeout", type=_seconds, default=None, help="give up on a lecture after this many seconds (above 0; default: no limit)"
    )
    run.add_argument(
        "--max-output-chars",
        type=_whole_number,
        default=None,
        metavar="N",
        help=f"printed output (stdout, and stderr) kept per lecture: the first N and the last N characters "
        f"(default: [tool.chalktrace] max_output_chars, else {HEAD_CHARS:,}; the trace notes what was left out)",
    )
    run.add_argument(
        "--preview-elements",
        type=_positive_int,
        default=None,
        metavar="N",
        help=f"values kept per tensor/array preview (default: [tool.chalktrace] preview_elements, else {Limits.tensor_elements})",
    )
    run.add_argument(
        "--preview-rows",
        type=_positive_int,
        default=None,
        metavar="N",
        help=f"value grid rows a card shows before folding the rest (default: [tool.chalktrace] preview_rows, "
        f"else {DEFAULT_PREVIEW_ROWS}; `# @inspect x rows=N` sets one value's)",
    )
    run.add_argument(
        "--max-plot-points",
        type=_positive_int,
        default=PLOT_DATA_POINTS,
        metavar="N",
        help=f"data points kept per plot(): an even sample of N (default {PLOT_DATA_POINTS:,}; "
        "the trace notes when a plot was sampled)",
    )
    run.add_argument(
        "--flops",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="measure @flops; --no-flops skips it (quicker drafts; default: [tool.chalktrace] flops, else measured)",
    )
    run.add_argument("--force", action="store_true", help="replace a trace made on CUDA even on a CPU-only machine")
    run.add_argument("-q", "--quiet", action="store_true", help="no progress or summary output")
    _add_runner(run)
    run.add_argument(
        "--nproc-per-node",
        type=_positive_int,
        metavar="N",
        help="the lecture is a torchrun script: launch N ranks with torchrun, trace each, merge them",
    )
    run.add_argument(
        "--nodes",
        type=_positive_int,
        metavar="M",
        help="with --nproc-per-node N: start the ranks through the lecture's Slurm runner, srun --nodes=M --ntasks-per-node=N",
    )
    run.add_argument(
        "--shard-dir",
        metavar="DIR",
        help="as one rank under torchrun: write this rank's shard into DIR (then `chalktrace merge DIR`)",
    )
    return run


def _add_runner(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--runner",
        metavar="NAME",
        help="trace through the runner [tool.chalktrace.runners.NAME] of pyproject.toml (Slurm, ssh); "
        "'local': on this machine (default: a lecture a runner's `lectures` match goes to that runner)",
    )


def add_merge(sub: Any) -> argparse.ArgumentParser:
    merge = sub.add_parser("merge", help="merge the rank shards in DIR (torchrun ranks, any nodes) into one trace")
    merge.add_argument("directory", metavar="DIR", help="directory the ranks wrote rank-R.json shards into")
    merge.add_argument("-o", "--output", help="trace path (default: site/traces/NAME.json of the shards' lecture)")
    merge.add_argument("-q", "--quiet", action="store_true")
    return merge


def _add_parallel_tracing(parser: argparse.ArgumentParser) -> None:
    """Options of the commands that re-trace many lectures."""
    cores = os.cpu_count() or 1
    parser.add_argument("-j", "--jobs", type=_positive_int, default=cores, help=f"parallel lectures (default {cores})")
    parser.add_argument(
        "--timeout",
        type=_seconds,
        default=paths.DEFAULT_TIMEOUT_SECONDS,
        help=f"seconds per lecture, above 0 (default {paths.DEFAULT_TIMEOUT_SECONDS:g})",
    )


def add_check(sub: Any) -> argparse.ArgumentParser:
    check = sub.add_parser("check", help="re-trace every lecture in a temp dir; fail on stale/missing/invalid traces")
    _add_parallel_tracing(check)
    check.add_argument(
        "--retrace",
        action="store_true",
        help="re-trace the lectures a runner traces through that runner (default: here, as every other lecture)",
    )
    _add_runner(check)
    check.add_argument("-q", "--quiet", action="store_true")
    return check


def add_diff(sub: Any) -> argparse.ArgumentParser:
    diff = sub.add_parser(
        "diff",
        help="what changed between two traces: one line per changed value, step, rendering or output (exit 0 equal, 1 different)",
    )
    diff.add_argument("old", metavar="A", help="the trace before (e.g. the committed site/traces/NAME.json)")
    diff.add_argument("new", metavar="B", help="the trace after")
    diff.add_argument("--json", action="store_true", help="print the changes as JSON records")
    diff.add_argument(
        "--all",
        action="store_true",
        help="also show run-dependent fields (timings, allocator figures; see commands/run_dependent.py)",
    )
    diff.add_argument("-q", "--quiet", action="store_true", help="no summary line")
    return diff


def add_build(sub: Any) -> argparse.ArgumentParser:
    build = sub.add_parser("build", help="re-trace lectures whose sources changed, then build the site")
    _add_parallel_tracing(build)
    build.add_argument("--force", action="store_true", help="replace stale CUDA traces with CPU traces")
    build.add_argument("--no-site", action="store_true", help="only re-trace; skip mkdocs build")
    build.add_argument("-q", "--quiet", action="store_true")
    _add_runner(build)
    return build


def add_serve(sub: Any) -> argparse.ArgumentParser:
    serve = sub.add_parser("serve", help="serve the site and re-trace a lecture when it is saved")
    serve.add_argument("-a", "--address", default="127.0.0.1:8000")
    serve.add_argument(
        "--timeout",
        type=_seconds,
        default=paths.DEFAULT_TIMEOUT_SECONDS,
        help=f"seconds per lecture, above 0 (default {paths.DEFAULT_TIMEOUT_SECONDS:g})",
    )
    serve.add_argument("--force", action="store_true", help="replace stale CUDA traces with CPU traces")
    _add_runner(serve)
    return serve


def _port(text: str) -> int:
    port = _int_at_least(text, 1, "a port from 1 to 65535")
    if port > 65535:
        raise argparse.ArgumentTypeError(f"must be a port from 1 to 65535, got {port}")
    return port


def add_present(sub: Any) -> argparse.ArgumentParser:
    present = sub.add_parser(
        "present", help="present live: students' devices follow your steps (a presenter link, an audience link and QR code)"
    )
    present.add_argument(
        "lecture", nargs="?", default=None, metavar="LECTURE", help="the lecture to open (NAME or lectures/NAME.py)"
    )
    present.add_argument("--port", type=_port, default=8000, help="the port to serve on (default 8000)")
    present.add_argument("--lan", action="store_true", help="listen on every interface, so devices on your network can join")
    present.add_argument(
        "--max-audience", type=_positive_int, default=1000, help="at most this many audience connections (default 1000)"
    )
    present.add_argument(
        "--timeout",
        type=_seconds,
        default=paths.DEFAULT_TIMEOUT_SECONDS,
        help=f"seconds per lecture when stale traces are re-traced first (default {paths.DEFAULT_TIMEOUT_SECONDS:g})",
    )
    present.add_argument("--force", action="store_true", help="replace stale CUDA traces with CPU traces")
    return present


def add_export(sub: Any) -> argparse.ArgumentParser:
    export = sub.add_parser(
        "export", help="one lecture as one file to share: a self-contained HTML page, a PDF handout or PDF slides"
    )
    export.add_argument("lecture", metavar="LECTURE", help="the lecture (NAME or lectures/NAME.py)")
    kind = export.add_mutually_exclusive_group(required=True)
    kind.add_argument(
        "--html", action="store_true", help="one HTML file with step mode, read mode, images, plots and math; no speaker notes"
    )
    kind.add_argument("--pdf", action="store_true", help="a PDF printed by headless Chromium (the export extra)")
    export.add_argument(
        "--layout",
        choices=("book", "slides"),
        default="book",
        help="with --pdf: book, an A4 handout of the read page (default); slides, one 16:9 page per (sub)section and @animate part",
    )
    export.add_argument(
        "--notes", action="store_true", help="with --pdf --layout slides: each slide's speaker notes on a page after it"
    )
    export.add_argument("-o", "--output", required=True, metavar="FILE", help="the file to write (replaced atomically)")
    return export


def add_init(sub: Any) -> argparse.ArgumentParser:
    init = sub.add_parser(
        "init", help="create a new course repository (mkdocs.yml, lectures/hello.py, CI script, GitHub Actions workflow)"
    )
    init.add_argument("directory", metavar="DIR", nargs="?", help="where to create it (must be new or empty)")
    init.add_argument(
        "--here",
        action="store_true",
        help="use the course in this folder as it is (an edtrace course: lectures at the root, traces in "
        "var/traces/): writes chalktrace.toml and touches nothing else",
    )
    init.add_argument(
        "--title", "--name", dest="name", help="the course's title, written once as mkdocs.yml's site_name (default: from DIR)"
    )
    init.add_argument(
        "--requirement",
        default=None,
        metavar="SPEC",
        help="what requirements.txt installs chalktrace from: a VCS URL at a commit "
        "('chalktrace[torch] @ git+https://HOST/OWNER/chalktrace@COMMIT') or a version spec, never a local path "
        "(default: the git checkout or VCS URL this chalktrace was installed from, at its commit, else "
        "chalktrace[torch]>=VERSION); requirements-site.txt gets it without extras",
    )
    init.add_argument("-q", "--quiet", action="store_true")
    return init


def add_execute(sub: Any) -> argparse.ArgumentParser:
    execute = sub.add_parser(
        "execute",
        help="edtrace's one-lecture form (also `python -m tracer.execute -m lecture_01`): trace one lecture of "
        "the course here, build the site and open its page",
    )
    execute.add_argument("-m", "--module", required=True, metavar="MODULE", help="the lecture, as a module name (lecture_01)")
    execute.add_argument("--no-open", action="store_true", help="print the page's path instead of opening it in a browser")
    return execute


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
    "present": (add_present, command("present")),
    "export": (add_export, command("export")),
    "init": (add_init, command("init")),
    "execute": (add_execute, command("execute")),
    "merge": (add_merge, command("merge")),
    "diff": (add_diff, command("diff")),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="chalktrace",
        description="Trace executable lectures and publish them.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"chalktrace {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for add, run in COMMANDS.values():
        command_parser = add(sub)
        command_parser.epilog = EPILOG
        command_parser.formatter_class = argparse.RawDescriptionHelpFormatter
        command_parser.set_defaults(func=run)
    return parser


HASH_SEED = "0"  # PYTHONHASHSEED of traced processes unless the caller set one: sets of strings keep one order


def _fixed_hash_seed(command: str) -> None:
    """String hashing is randomised per process unless PYTHONHASHSEED is set before it starts: set it
    (children of check/build/serve inherit it) and start ``run`` again under it (once; a caller's own
    PYTHONHASHSEED is kept)."""
    if os.environ.get("PYTHONHASHSEED") is not None:
        return
    os.environ["PYTHONHASHSEED"] = HASH_SEED
    if command == "run" and sys.orig_argv and hasattr(os, "execv"):
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        os.execv(sys.executable, [sys.executable, *sys.orig_argv[1:]])


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if argv is None:  # the command line itself (not a caller passing arguments in-process)
        _fixed_hash_seed(args.command)
    terminal.save()  # chalktrace's own stderr: a lecture that patches print or sys.stderr cannot swallow it
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        say("chalktrace: interrupted; traces written so far are complete, nothing half-written")
        return ExitCode.INTERRUPTED
    except OSError as exc:  # a full disk, a read-only folder: one line, and the previous trace is intact
        say(os_error_line(exc))
        return ExitCode.BAD_INPUT


def os_error_line(exc: OSError) -> str:
    """``path: reason`` of a file-system error, the path as the user would type it."""
    path = exc.filename
    if path is not None:
        shown = Path(os.fsdecode(path))
        try:
            shown = shown.resolve().relative_to(Path.cwd().resolve())
        except (ValueError, OSError):
            pass
        return f"chalktrace: {shown}: {exc.strerror or exc}; nothing written there (a previous file is kept)"
    return f"chalktrace: {exc.strerror or exc}; nothing written (previous files are kept)"


if __name__ == "__main__":
    sys.exit(main())
