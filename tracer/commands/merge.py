"""``chalktrace merge DIR``: merge the rank shards torchrun ranks wrote (any nodes) into one trace.

This module must not read shards itself: ``capture.ranks.torchrun.merge`` does.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tracer.exit_codes import ExitCode


def main(args: argparse.Namespace) -> int:
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
