"""A real single-node Slurm cluster and a real sshd on localhost, for the runner tests.

``slurm_cluster`` starts munged, slurmctld and slurmd (Debian's packages) as root in a temporary
folder, on free ports, with a node line of this machine's CPUs and memory (``slurmd -C``); ``ssh_server``
starts sshd on a free localhost port that accepts one key made for the test. Both stop everything
they started (jobs first). ``missing`` says why they cannot run here (then the tests skip, unless
``CHALKTRACE_REQUIRE_CLUSTER`` is set: CI installs the packages and requires them).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from helpers.network import free_port

REQUIRE_ENV = "CHALKTRACE_REQUIRE_CLUSTER"
SLURM_COMMANDS = ("munged", "slurmctld", "slurmd", "srun", "sbatch", "scancel", "squeue", "scontrol")
SSH_COMMANDS = ("ssh", "ssh-keygen")
SSHD = "/usr/sbin/sshd"


def missing(commands: tuple[str, ...]) -> str | None:
    """Why these engines cannot be started here, or None."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "the test cluster runs its daemons as root"
    absent = [c for c in commands if shutil.which(c) is None and not Path(f"/usr/sbin/{c}").exists()]
    if absent:
        return f"not installed: {', '.join(absent)} (Debian: slurmctld slurmd slurm-client munge openssh-server)"
    return None


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass
class Cluster:
    folder: Path
    conf: Path
    env: dict[str, str]  # os.environ plus SLURM_CONF: what Slurm's client commands need

    def squeue(self) -> list[str]:
        done = subprocess.run(["squeue", "--noheader", "--format=%i %j %T"], env=self.env, capture_output=True, text=True)
        return [line for line in done.stdout.splitlines() if line.strip()]


def _node_line() -> str:
    said = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, check=True).stdout.split()
    fields = dict(word.split("=", 1) for word in said if "=" in word)
    return (
        f"NodeName={fields['NodeName']} NodeAddr=127.0.0.1 CPUs={fields['CPUs']} RealMemory={fields['RealMemory']} State=UNKNOWN"
    )


@contextlib.contextmanager
def slurm_cluster() -> Iterator[Cluster]:
    folder = Path(tempfile.mkdtemp(prefix="chalktrace-slurm-"))
    folder.chmod(0o700)
    started: list[subprocess.Popen] = []
    try:
        key = folder / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o600)
        socket = folder / "munge.sock"
        started.append(
            subprocess.Popen(
                [
                    "munged",
                    "-F",
                    "--force",
                    f"--key-file={key}",
                    f"--socket={socket}",
                    f"--pid-file={folder}/munged.pid",
                    f"--log-file={folder}/munged.log",
                    f"--seed-file={folder}/munged.seed",
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        (folder / "state").mkdir()
        (folder / "spool").mkdir()
        node = _node_line()
        node_name = node.split()[0].split("=", 1)[1]
        conf = folder / "slurm.conf"
        conf.write_text(
            "\n".join(
                [
                    "ClusterName=chalktrace-test",
                    f"SlurmctldHost={node_name}(127.0.0.1)",
                    f"SlurmctldPort={free_port()}",
                    f"SlurmdPort={free_port()}",
                    "SlurmUser=root",
                    "AuthType=auth/munge",
                    "CredType=cred/munge",
                    f"AuthInfo=socket={socket}",
                    f"StateSaveLocation={folder}/state",
                    f"SlurmdSpoolDir={folder}/spool",
                    f"SlurmctldPidFile={folder}/slurmctld.pid",
                    f"SlurmdPidFile={folder}/slurmd.pid",
                    f"SlurmctldLogFile={folder}/slurmctld.log",
                    f"SlurmdLogFile={folder}/slurmd.log",
                    "ProctrackType=proctrack/linuxproc",
                    "TaskPlugin=task/none",
                    "SelectType=select/cons_tres",
                    "SelectTypeParameters=CR_Core",
                    "ReturnToService=2",
                    "MpiDefault=none",
                    "JobCompType=jobcomp/none",
                    "AccountingStorageType=accounting_storage/none",
                    "KillWait=5",
                    node,
                    f"PartitionName=debug Nodes={node_name} Default=YES MaxTime=INFINITE State=UP",
                    "",
                ]
            )
        )
        env = dict(os.environ, SLURM_CONF=str(conf))
        for daemon in ("slurmctld", "slurmd"):
            started.append(
                subprocess.Popen([daemon, "-D", "-f", str(conf)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            )
        deadline = time.monotonic() + 60
        while True:
            state = subprocess.run(["sinfo", "--noheader", "--format=%T"], env=env, capture_output=True, text=True).stdout
            if state.strip() == "idle":
                break
            if time.monotonic() > deadline or any(p.poll() is not None for p in started):
                log = "".join(p.read_text()[-2000:] for p in folder.glob("*.log"))
                raise RuntimeError(f"the test Slurm did not come up (sinfo: {state.strip()!r}):\n{log}")
            time.sleep(0.2)
        yield Cluster(folder, conf, env)
    finally:
        if (folder / "slurm.conf").exists() and started:  # end the jobs a failed test left, then the daemons
            env = dict(os.environ, SLURM_CONF=str(folder / "slurm.conf"))
            subprocess.run(["scancel", "--quiet", "--partition=debug"], env=env, capture_output=True, timeout=30)
            deadline = time.monotonic() + 20
            while (
                time.monotonic() < deadline
                and subprocess.run(["squeue", "--noheader"], env=env, capture_output=True, text=True, timeout=30).stdout.strip()
            ):
                time.sleep(0.2)
        for process in reversed(started):
            _stop(process)
        shutil.rmtree(folder, ignore_errors=True)


@dataclass
class SshServer:
    port: int
    options: list[str]  # ssh options that reach it with the test's key and known host key
    pid: int  # the listening sshd; each connection is a child of it

    def drop_connections(self) -> int:
        """Kill every connection's sshd process (as a network failure would end them); how many."""
        return self._signal_connections(signal.SIGKILL)

    def hang_connections(self) -> int:
        """Stop every connection's sshd process: the network goes silent and nothing is closed, as
        when a link fails without a reset (``drop_connections`` ends them after); how many."""
        return self._signal_connections(signal.SIGSTOP)

    def _signal_connections(self, sig: int) -> int:
        children = Path(f"/proc/{self.pid}/task/{self.pid}/children").read_text().split()
        for child in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(child), sig)
        return len(children)

    def runner_toml(self) -> str:
        return "ssh = [" + ", ".join(f'"{o}"' for o in self.options) + "]"


@contextlib.contextmanager
def ssh_server() -> Iterator[SshServer]:
    folder = Path(tempfile.mkdtemp(prefix="chalktrace-sshd-"))
    folder.chmod(0o700)
    server = None
    try:
        for name in ("host_key", "client_key"):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(folder / name)], check=True)
        (folder / "authorized_keys").write_text((folder / "client_key.pub").read_text())
        port = free_port()
        (folder / "known_hosts").write_text(f"[127.0.0.1]:{port} " + (folder / "host_key.pub").read_text())
        (folder / "sshd_config").write_text(
            "\n".join(
                [
                    f"Port {port}",
                    "ListenAddress 127.0.0.1",
                    f"HostKey {folder}/host_key",
                    f"AuthorizedKeysFile {folder}/authorized_keys",
                    f"PidFile {folder}/sshd.pid",
                    "StrictModes no",
                    "PasswordAuthentication no",
                    "KbdInteractiveAuthentication no",
                    "UsePAM no",
                    "PermitRootLogin prohibit-password",
                    "",
                ]
            )
        )
        Path("/run/sshd").mkdir(exist_ok=True)  # privilege separation folder sshd insists on
        server = subprocess.Popen([SSHD, "-D", "-e", "-f", str(folder / "sshd_config")], stderr=subprocess.PIPE)
        options = [
            "-p",
            str(port),
            "-i",
            str(folder / "client_key"),
            "-o",
            "IdentitiesOnly=yes",
            "-o",
            f"UserKnownHostsFile={folder}/known_hosts",
            "-o",
            "StrictHostKeyChecking=yes",
        ]
        deadline = time.monotonic() + 30
        while subprocess.run(["ssh", *options, "-o", "BatchMode=yes", "127.0.0.1", "true"], capture_output=True).returncode:
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    f"the test sshd did not come up: {server.stderr.read().decode() if server.poll() is not None else ''}"
                )
            time.sleep(0.2)
        yield SshServer(port, options, server.pid)
    finally:
        if server is not None:
            _stop(server)
            if server.stderr:
                server.stderr.close()
        shutil.rmtree(folder, ignore_errors=True)


def course(root: Path, runner_settings: str, lectures: dict[str, str]) -> Path:
    """A scratch course whose pyproject.toml declares the runner ``cluster`` with ``runner_settings``."""
    import textwrap

    (root / "lectures").mkdir(parents=True)
    (root / "site" / "traces").mkdir(parents=True)
    (root / "pyproject.toml").write_text(f"[project]\nname = 'scratch'\n\n[tool.chalktrace.runners.cluster]\n{runner_settings}\n")
    for name, source in lectures.items():
        (root / "lectures" / name).write_text(textwrap.dedent(source))
    return root


def pgrep_lecture(lecture: Path) -> list[str]:
    """Processes whose command line names ``lecture`` (the chalktrace run tracing it), as ``pid command``."""
    done = subprocess.run(["pgrep", "-a", "-f", lecture.name], capture_output=True, text=True)
    return [line for line in done.stdout.splitlines() if "pgrep" not in line]


def stop_server(server: subprocess.Popen) -> None:
    """End a ``chalktrace serve`` started in its own session, and everything it started."""
    for sig, seconds in ((signal.SIGTERM, 15), (signal.SIGKILL, 15)):
        try:
            os.killpg(server.pid, sig)
        except ProcessLookupError:
            pass
        try:
            server.wait(seconds)
            break
        except subprocess.TimeoutExpired:
            continue
    if server.stderr:
        server.stderr.close()
