"""Trace a torchrun-style lecture: launch its ranks with torchrun, then merge their shards.

``chalktrace run --nproc-per-node N LECTURE`` runs ``python -m torch.distributed.run --standalone``
(torchrun's own launcher: it picks a free rendezvous port, sets ``RANK``/``WORLD_SIZE``/
``MASTER_ADDR``/``MASTER_PORT`` and stops the other ranks when one fails) with
``python -m tracer run --shard-dir DIR LECTURE`` as each rank; every rank traces ``main()`` and writes
``DIR/rank-R.json``; the shards are then merged (``shards.merge_directory``) into the lecture's
trace, written atomically. Several nodes run the same ``torchrun ... -m tracer run --shard-dir``
into a shared directory and ``chalktrace merge DIR`` joins them. A launch past its timeout is killed
as a whole process group (no orphans) and nothing is written. This module must not trace anything
itself; it only starts, watches and merges.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from tracer.contract import course_layout, paths
from tracer.capture.ranks import shards
from tracer.capture.trace_writer import dumps
from tracer.contract.files import write_atomic
from tracer.contract.trace_validation import validation_error


@dataclass
class LaunchResult:
    output: Path | None
    status: str  # "ok", "error" (a rank failed; trace written), "timeout" or "failed" (nothing written)
    message: str | None  # one line: the failed rank's path:line, or why nothing was written
    ranks: int = 0
    steps: int = 0


def trace_text(trace: dict) -> str:
    """A merged trace as text: steps one per line, the ranks' steps likewise."""
    from tracer.capture.trace_writer import ranks_json

    header = {key: value for key, value in trace.items() if key not in ("steps", "ranks", "frames")}
    text = dumps(header)[:-1]
    if trace.get("ranks") is not None:
        text += ',\n"ranks":' + ranks_json(trace["ranks"])
    frames = trace.get("frames") or []
    text += ',\n"frames":[\n' + ",\n".join(map(dumps, frames)) + "\n]" if frames else ',\n"frames":[]'
    body = ",\n".join(map(dumps, trace["steps"]))
    return text + (',\n"steps":[\n' + body + "\n]}\n" if body else ',"steps":[]}\n')


def merge(directory: Path, output: Path | None) -> LaunchResult:
    """Merge the shards in ``directory`` into one trace at ``output`` (default: the lecture's trace)."""
    trace, failure = shards.merge_directory(directory)
    if output is None:
        root = paths.find_project_root(Path.cwd())
        output = course_layout.trace_path(root, Path(trace["lecture"]["path"]))
    problem = validation_error(trace)
    if problem:
        raise shards.ShardError(f"{directory}: merged trace is invalid {problem}")
    write_atomic(output, trace_text(trace))
    shards.remove_status_files(directory)
    return LaunchResult(
        output,
        "error" if failure else "ok",
        failure,
        ranks=len(trace["ranks"]["launches"][0]["streams"]),
        steps=sum(len(s["steps"]) for s in trace["ranks"]["launches"][0]["streams"]),
    )


def run_torchrun(
    lecture: Path, nproc: int, *, output: Path | None, seed: int = 0, timeout: float | None = None, extra: list[str] | None = None
) -> LaunchResult:
    """Trace ``lecture`` as ``nproc`` torchrun ranks on this machine and merge them into one trace."""
    lecture = Path(lecture).absolute()
    root = paths.find_project_root(lecture.parent)
    output = output or course_layout.trace_path(root, lecture)
    with tempfile.TemporaryDirectory(prefix="chalktrace-shards-") as tmp:
        command = [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--standalone",
            "--nnodes",
            "1",
            "--nproc-per-node",
            str(nproc),
            "--max-restarts",
            "0",
            "--monitor-interval",
            "0.2",
            "-m",
            "tracer",
            "run",
            "-q",
            "--shard-dir",
            tmp,
            "--seed",
            str(seed),
            *(extra or []),
            str(lecture),
        ]
        env = dict(os.environ, CHALKTRACE_T0=repr(time.time()), PYTHONUNBUFFERED="1")
        env.setdefault("OMP_NUM_THREADS", "1")  # torchrun's default; said here so it does not warn
        process = subprocess.Popen(
            command,
            cwd=root,
            env=env,
            start_new_session=True,
            preexec_fn=_die_with_parent,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            _out, err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            from tracer.capture.ranks.spawn import describe_hang
            from tracer.capture.ranks.shards import read_json

            hung = [
                (int(p.stem.split("-")[1]), read_json(p) or {})
                for p in sorted(Path(tmp).glob("rank-*.where"))
                if not (Path(tmp) / f"{p.stem}.json").exists()
            ]
            _kill_group(process)
            where, what = describe_hang(hung) if hung else (str(lecture), "no rank reported where it was")
            return LaunchResult(
                None, "timeout", f"{where}: timeout: ranks ran longer than {timeout:g}s: {what}; previous trace kept"
            )
        finally:
            if process.poll() is None:
                _kill_group(process)
        if not shards.shard_files(Path(tmp)):
            tail = [line for line in err.splitlines() if line.strip()][-3:]
            return LaunchResult(
                None, "failed", f"{lecture.name}: no rank wrote a trace (torchrun exit {process.returncode}): {' / '.join(tail)}"
            )
        result = merge(Path(tmp), output)
        if process.returncode and result.status == "ok":
            result.status, result.message = "error", f"{lecture.name}: torchrun exited with {process.returncode}"
        return result


def _die_with_parent() -> None:
    """In the torchrun launcher, before exec: SIGKILL it if chalktrace dies (its ranks follow it, since
    each rank dies with its own launcher), so a killed ``chalktrace run`` leaves no process behind."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:
        pass


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()
