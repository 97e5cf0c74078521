"""Slurm, through its own commands: the ``sbatch --wait`` job array for several lectures, ``scancel``
and what ``scontrol`` says about a job that ended badly.

Every job chalktrace starts is named ``chalktrace-TOKEN`` (``SLURM_JOB_NAME`` for ``srun``, ``--job-name``
for ``sbatch``), so it can be found and cancelled without parsing anything Slurm prints while it
runs. This module only builds command lines and reads Slurm's answers; it must not run anything
itself (``launch`` and ``ssh`` do) and never decides where a job runs: Slurm does.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from tracer.runners.config import Runner

JOB_NAME_PREFIX = "chalktrace-"
# Job states that mean the job did not finish by itself, as scontrol spells them, and what to tell the user.
BAD_STATES = {
    "FAILED": "failed",
    "TIMEOUT": "ran out of its Slurm time limit",
    "PREEMPTED": "was preempted",
    "CANCELLED": "was cancelled",
    "NODE_FAIL": "lost its node",
    "OUT_OF_MEMORY": "ran out of memory",
    "BOOT_FAIL": "could not boot its node",
    "DEADLINE": "missed its deadline",
}
# States a job passes through on its way to one of the above or COMPLETED.
PASSING_STATES = frozenset(
    ("PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING", "SIGNALING", "STAGE_OUT")
)


def job_name(token: str) -> str:
    return JOB_NAME_PREFIX + token


def job_env(token: str) -> dict[str, str]:
    """Environment that names the job of an ``srun`` or ``sbatch`` in a launch template (input variables
    both commands read), so it can be cancelled by name."""
    return {"SLURM_JOB_NAME": job_name(token), "SBATCH_JOB_NAME": job_name(token)}


def array_command(runner: Runner, commands: list[str], *, token: str, log_dir: str) -> str:
    """``sbatch --wait`` of a job array, task ``i`` running ``commands[i]`` (after the runner's setup).

    The allocation options are the runner's ``batch`` line, else those of its ``srun`` launch
    (``srun -p gpu --gres=gpu:1 {command}`` becomes ``sbatch -p gpu --gres=gpu:1``): the two commands
    take the same ones."""
    if runner.batch is not None:
        words = shlex.split(runner.batch)
    else:
        words = shlex.split(runner.launch.split("{command}", 1)[0])
        words[0] = "sbatch"
    cases = "".join(f"  {index}) {command} ;;\n" for index, command in enumerate(commands))
    script = (runner.setup + "\n" if runner.setup else "") + f'case "$SLURM_ARRAY_TASK_ID" in\n{cases}esac\n'
    options = [
        "--wait",
        "--parsable",
        f"--array=0-{len(commands) - 1}",
        f"--job-name={job_name(token)}",
        f"--output={log_dir}/task-%a.log",
        "--wrap=bash -c " + shlex.quote(script),  # sbatch wraps in /bin/sh; setup lines often need bash (source)
    ]
    return shlex.join(words[:1] + options[:-1] + words[1:] + options[-1:])


def cancel_command(token: str) -> str:
    """Cancels every job of this launch (an array's tasks too); quiet when there is none (any more)."""
    return f"scancel --quiet --name={job_name(token)} 2>/dev/null || true"


def states_command() -> str:
    """Asks for every job Slurm still remembers (for MinJobAge after it ended), one line each."""
    return "scontrol --oneliner show job 2>/dev/null || true"


@dataclass(frozen=True)
class JobState:
    job_id: str  # "812345", or "812345_2" for task 2 of an array
    state: str  # scontrol's JobState, e.g. COMPLETED, FAILED, TIMEOUT
    exit_code: str  # "1:0" (status:signal)
    reason: str
    task: int | None  # the array task (the lecture's index), None for a plain job

    def describe(self) -> str:
        """``Slurm job 812345_2 failed (exit 1)``."""
        what = BAD_STATES.get(self.state, self.state.lower())
        status, _, signal = self.exit_code.partition(":")
        detail = f"signal {signal}" if signal not in ("", "0") else f"exit {status}" if status not in ("", "0") else ""
        if self.reason and self.reason not in ("None", "NonZeroExitCode"):
            detail = f"{detail}, {self.reason}" if detail else self.reason
        return f"Slurm job {self.job_id} {what}" + (f" ({detail})" if detail else "")


def job_states(scontrol_output: str, token: str) -> list[JobState]:
    """The jobs of this launch among ``scontrol --oneliner show job``'s lines."""
    found = []
    for line in scontrol_output.splitlines():
        fields = dict(word.split("=", 1) for word in line.split() if "=" in word)
        if fields.get("JobName") != job_name(token):
            continue
        array_job, task = fields.get("ArrayJobId"), fields.get("ArrayTaskId")
        is_task = array_job is not None and task is not None and task.isdigit()
        found.append(
            JobState(
                job_id=f"{array_job}_{task}" if is_task else fields.get("JobId", "?"),
                state=fields.get("JobState", "UNKNOWN"),
                exit_code=fields.get("ExitCode", ""),
                reason=fields.get("Reason", ""),
                task=int(task) if is_task and task is not None else None,
            )
        )
    return found
