"""``chalktrace diff A B``: what changed between two traces, as lines or JSON records (exit 0 equal, 1 different).

The comparison itself is ``trace_diff``; this module prints it.
"""

from __future__ import annotations

import argparse
import os
import sys

from tracer.exit_codes import ExitCode


def main(args: argparse.Namespace) -> int:

    from tracer.commands import trace_diff
    from tracer.contract.trace_format import TraceError
    from tracer.contract.trace_reading import load_trace

    try:
        old, new = load_trace(args.old), load_trace(args.new)
    except TraceError as exc:
        print(f"chalktrace diff: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    changes = trace_diff.diff_traces(old, new)
    shown = changes if args.all else [c for c in changes if not c.run_dependent]
    hidden = len(changes) - len(shown)
    try:
        _show(args, shown, hidden)
    except BrokenPipeError:
        # `chalktrace diff A B | head`: the reader has what it wanted; the answer is still the exit code
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python's flush at exit must not fail again
    return ExitCode.DIFFERENT if shown else ExitCode.OK


def _show(args: argparse.Namespace, shown: list, hidden: int) -> None:
    import json

    from tracer.commands import trace_diff

    if args.json:
        print(
            json.dumps(
                {
                    "old": args.old,
                    "new": args.new,
                    "equal": not shown,
                    "run_dependent_hidden": hidden,
                    "changes": trace_diff.to_json(shown),
                },
                indent=1,
                ensure_ascii=False,
            )
        )
    else:
        for change in shown:
            print(trace_diff.format_change(change))
        if not args.quiet:
            left_out = f"; {hidden} run-dependent difference(s) left out (timings; --all shows them)" if hidden else ""
            print(f"chalktrace diff: {len(shown)} difference(s){left_out}", file=sys.stderr)
    sys.stdout.flush()  # a closed pipe is found here, not at exit
