"""What a runner costs: ``lectures/lecture_02.py`` traced here against through Slurm, ssh, and both.

It starts a real single-node Slurm (munged, slurmctld, slurmd) and sshd on localhost, as the runner
tests do (``tests/helpers/cluster.py``; root and Debian's packages needed), makes a scratch course with
``lecture_02`` (its helper and images) and three runners, and prints, with the machine's load:

- the wall time of ``chalktrace run lectures/lecture_02.py`` here (``--runner local``), and the
  overhead of each runner over it: ``srun`` on this machine, ssh to localhost (plain launch; the first
  run fills the host's content-addressed store, the later ones send nothing), and ssh + ``srun``;
- a three-lecture ``chalktrace build`` through Slurm (one ``sbatch --wait`` job array) against the same
  build here.

The overhead is each figure minus the local run's (the median of ``--repeats`` runs each, taken in
turn so that load changes hit every kind alike). Run: ``.venv/bin/python bench/bench_runners.py [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from helpers.cluster import SLURM_COMMANDS, SSH_COMMANDS, missing, slurm_cluster, ssh_server  # noqa: E402


def course(root: Path, runners: str, copies: int = 1) -> Path:
    (root / "lectures").mkdir(parents=True)
    (root / "site" / "traces").mkdir(parents=True)
    shutil.copy(REPO / "lectures" / "_accounting.py", root / "lectures")
    shutil.copytree(REPO / "lectures" / "images", root / "lectures" / "images")
    names = ["lecture_02.py"] if copies == 1 else [f"lecture_02_{chr(ord('a') + i)}.py" for i in range(copies)]
    for name in names:
        shutil.copy(REPO / "lectures" / "lecture_02.py", root / "lectures" / name)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "bench"\n\n[tool.chalktrace]\ntrace_helpers = ["lectures/_accounting.py"]\n\n' + runners
    )
    return root


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode:
        raise SystemExit(f"{' '.join(command)}: exit {done.returncode}\n{done.stderr[-2000:]}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    why = missing(SLURM_COMMANDS + SSH_COMMANDS)
    if why:
        raise SystemExit(f"bench_runners: {why}")
    python = sys.executable
    with (
        tempfile.TemporaryDirectory(prefix="chalktrace-bench-runners-") as scratch,
        slurm_cluster() as slurm,
        ssh_server() as sshd,
    ):
        remote = Path(scratch) / "remote-home"
        ssh = f'host = "127.0.0.1"\n{sshd.runner_toml()}\nremote_dir = "{remote}"\npython = "{python}"\n'
        srun = 'launch = "srun --time=00:30:00 {command}"\n'
        runners = (
            f"[tool.chalktrace.runners.slurm]\n{srun}\n"
            f"[tool.chalktrace.runners.ssh]\n{ssh}\n"
            f'[tool.chalktrace.runners.both]\n{ssh}setup = "export SLURM_CONF={slurm.conf}"\n{srun}'
        )
        root = course(Path(scratch) / "one", runners)
        env = dict(slurm.env, PYTHONHASHSEED="0")

        def run(runner: str) -> float:
            command = [python, "-m", "tracer", "run", "lectures/lecture_02.py", "-o", f"{scratch}/out.json", "-q", "--force"]
            return timed([*command, "--runner", runner], root, env)

        cold_ssh = run("ssh")  # fills the host's store: the lectures, images and chalktrace's source
        times: dict[str, list[float]] = {name: [] for name in ("local", "slurm", "ssh", "both")}
        for _ in range(args.repeats):
            for name in times:
                times[name].append(run(name))
        local = statistics.median(times["local"])
        print(f"load average {os.getloadavg()[0]:.1f} (2 cores shared), {args.repeats} runs each, medians")
        print(f"chalktrace run lectures/lecture_02.py here:          {local:6.2f} s")
        for name, label in (("slurm", "srun on this machine"), ("ssh", "ssh to localhost"), ("both", "ssh + srun")):
            seconds = statistics.median(times[name])
            print(
                f"  through {label:<24}                {seconds:6.2f} s  (overhead {seconds - local:+.2f} s, {seconds / local:.2f}x)"
            )
        print(f"  ssh, first run (store empty: {sum(1 for _ in (remote / 'store').iterdir())} files sent):   {cold_ssh:6.2f} s")

        three = course(Path(scratch) / "three", runners, copies=3)
        build = [python, "-m", "tracer", "build", "--no-site", "-q"]
        array = []
        here = []
        for _ in range(args.repeats):
            for traces in (three / "site" / "traces").glob("*.json"):
                traces.unlink()
            array.append(timed([*build, "--runner", "slurm"], three, env))
            for traces in (three / "site" / "traces").glob("*.json"):
                traces.unlink()
            here.append(timed([*build, "--runner", "local", "-j", "2"], three, env))
        print(f"three lecture_02 copies, chalktrace build here (-j 2):  {statistics.median(here):6.2f} s")
        print(f"  as one Slurm job array (sbatch --wait):              {statistics.median(array):6.2f} s")


if __name__ == "__main__":
    main()
