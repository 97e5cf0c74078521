"""A distributed lecture's ranks started through a Slurm runner: ``srun --nodes=M --ntasks-per-node=N``.

``chalktrace run --nodes M --nproc-per-node N LECTURE`` with a runner whose launch is an ``srun`` line
(and no ``host``: chalktrace runs where ``srun`` can be called, on a login node or through the
runner's ssh-less setup) puts ``--nodes``/``--ntasks-per-node`` into that line and runs one
``python -m tracer run --shard-dir DIR`` per task. Each task takes its rank, world size and local rank
from Slurm (``SLURM_PROCID``, ``SLURM_NTASKS``, ``SLURM_LOCALID``); the rendezvous is the first node
of the job on a port derived from the job id, so every task agrees without asking anyone. The shards
go to the course's work folder (shared with the nodes, as for any local runner) and are merged as a
torchrun launch's are (``torchrun.merge``). Ctrl-C or the timeout cancels the job (``scancel``).
This module must not trace or merge anything itself, and must not talk to a host.
"""

from __future__ import annotations

import os
import secrets
import shlex
import shutil
import sys
import time
from pathlib import Path

from tracer.capture.ranks.torchrun import LaunchResult, merge
from tracer.capture.ranks import shards
from tracer.contract import course_layout, paths
from tracer.contract.course_layout import quiet_layout_of
from tracer.runners import slurm
from tracer.runners.config import Runner, RunnerError
from tracer.runners.launch import run_command

RUNS_DIR = ".chalktrace-runs"
# every task computes the same rendezvous: the job's first node, a port from the job id
RANK_ENV = (
    'export RANK="$SLURM_PROCID" WORLD_SIZE="$SLURM_NTASKS" LOCAL_RANK="$SLURM_LOCALID" '
    'LOCAL_WORLD_SIZE="$SLURM_NTASKS_PER_NODE" '
    'MASTER_ADDR="$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)" '
    'MASTER_PORT="$((20000 + SLURM_JOB_ID % 20000))"; exec "$@"'
)


def srun_line(runner: Runner, nodes: int, tasks_per_node: int, command: str) -> str:
    """The runner's launch with the rank layout added to its ``srun`` and ``command`` in place."""
    words = shlex.split(runner.launch)
    if runner.host is not None or not words or words[0] != "srun":
        raise RunnerError(f"runner {runner.name}: --nodes needs a runner whose launch is an srun line and that has no host")
    layout = f"srun --nodes={nodes} --ntasks-per-node={tasks_per_node} --kill-on-bad-exit=1"
    return runner.launch.replace("srun", layout, 1).replace("{command}", command)


def run_ranks(
    lecture: Path,
    runner: Runner,
    *,
    nodes: int,
    tasks_per_node: int,
    output: Path | None,
    seed: int = 0,
    timeout: float | None = None,
    extra: list[str] | None = None,
) -> LaunchResult:
    """Trace ``lecture`` as ``nodes`` x ``tasks_per_node`` Slurm tasks and merge their shards."""
    lecture = Path(lecture).absolute()
    root = paths.find_project_root(lecture.parent)
    output = output or course_layout.trace_path(root, lecture)
    shown = paths.shown_path(lecture, root)
    token = secrets.token_hex(6)
    shard_dir = quiet_layout_of(root).work_dir / RUNS_DIR / f"ranks-{token}"
    shard_dir.mkdir(parents=True)
    try:
        rank = [sys.executable, "-m", "tracer", "run", "-q", "--shard-dir", str(shard_dir), "--seed", str(seed)]
        command = shlex.join(["bash", "-c", RANK_ENV, "rank", *rank, *(extra or []), str(lecture)])
        script = srun_line(runner, nodes, tasks_per_node, command)
        if runner.setup:
            script = f"{{ {runner.setup}\n}} && {script}"
        env = dict(os.environ, **slurm.job_env(token), CHALKTRACE_T0=repr(time.time()), PYTHONUNBUFFERED="1")
        env.setdefault("OMP_NUM_THREADS", "1")
        env[paths.RUNNER_ENV] = runner.name

        def cancel() -> None:
            run_command(["bash", "-c", slurm.cancel_command(token)], env=env, seconds=30)

        finished = run_command(["bash", "-c", script], cwd=root, env=env, seconds=timeout, cancel=cancel)
        job = f"job {slurm.job_name(token)}"
        if finished.returncode is None:
            return LaunchResult(
                None, "timeout", f"{shown}: runner {runner.name}: {job} ran longer than {timeout:g}s; the previous trace is kept"
            )
        if not shards.shard_files(shard_dir):
            why = f"{shown}: runner {runner.name}: {job} wrote no rank trace (exit {finished.returncode})"
            detail = finished.last_line()
            return LaunchResult(None, "failed", why + (f": {detail}" if detail else "") + "; the previous trace is kept")
        result = merge(shard_dir, output)
        if finished.returncode and result.status == "ok":
            result.status, result.message = "error", f"{shown}: runner {runner.name}: srun exited with {finished.returncode}"
        return result
    finally:
        shutil.rmtree(shard_dir, ignore_errors=True)
