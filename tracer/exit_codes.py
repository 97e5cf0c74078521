"""The ``chalktrace`` command's exit codes, in one place.

Every command returns one of these; ``cli`` prints :data:`EPILOG` (made from the same table) in its
help, and the commands (``tracer.commands``) and the timeout timer use the names, never bare numbers. This
module must stay free of imports beyond the standard library.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    LECTURE_FAILED = 1  # a lecture raised (its trace, with the error, is still written); a build step failed;
    # build: a published trace shows an error or an @inspect that names nothing
    DIFFERENT = 1  # diff: the two traces differ (an alias of 1)
    BAD_INPUT = 2  # bad arguments, missing file, syntax error, import error, no main(): nothing written
    PROBLEMS = 3  # check: a trace is missing, stale or invalid, or a lecture failed
    TIMEOUT = 124  # a lecture ran past --timeout: nothing written, the previous trace is kept
    INTERRUPTED = 130  # Ctrl-C: traces written so far are complete


MEANINGS = {
    ExitCode.OK: "success",
    ExitCode.LECTURE_FAILED: "a lecture raised, or ended early with sys.exit()/os._exit() (its trace is still "
    "written, ending where it stopped, with status error/exited); diff: the traces differ",
    ExitCode.BAD_INPUT: "bad input: missing file, a folder, syntax error, import error, no main(); not in a course; "
    "serve's address in use; nothing written",
    ExitCode.PROBLEMS: "check: a trace is missing, stale, invalid or drifted, a lecture raised, or an @inspect names nothing",
    ExitCode.TIMEOUT: "a lecture ran past --timeout; nothing written, the previous trace is kept (when only threads "
    "it started outlive main(), its trace is written and they are named)",
    ExitCode.INTERRUPTED: "interrupted (Ctrl-C, or a KeyboardInterrupt in the lecture: its trace is written with "
    "status interrupted); traces written so far are complete",
}

EPILOG = "exit codes:\n" + "".join(f"  {int(code):<4} {MEANINGS[code]}\n" for code in ExitCode)
