"""The ssh transport: one connection to a runner's host, content-addressed file sending, fetching results.

``Host`` opens one master connection (``ssh -M``, its socket in a private temporary folder) that every
later command reuses (except one run with ``shared=False``, on a connection of its own), and closes
it when done, so nothing is left running on either side. Files go
to ``REMOTE_DIR/store/SHA256`` (only those the host lacks, one ``tar`` stream) and each run's work tree,
``REMOTE_DIR/work/TOKEN``, is made of hard links into that store. ``fetch`` brings a ``tar`` of chosen
paths back. A command that cannot reach the host raises :class:`HostError` (one line). This module
must not decide what to send or what a run means: ``dispatch`` does.
"""

from __future__ import annotations

import io
import shlex
import subprocess
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Callable

from tracer.runners.config import Runner
from tracer.runners.launch import Finished, run_command

CONNECT_SECONDS = 20
SSH_LOST = 255  # ssh's own exit status: it could not connect, or the connection dropped


class HostError(Exception):
    """The host cannot be reached or the connection dropped; str() is one line."""


class Host:
    """One ssh connection to ``runner.host``; use as a context manager."""

    def __init__(self, runner: Runner) -> None:
        assert runner.host is not None
        self.runner = runner
        self._folder = tempfile.TemporaryDirectory(prefix="chalktrace-ssh-")
        self._socket = str(Path(self._folder.name) / "control")
        self._master: subprocess.Popen[bytes] | None = None

    def _base(self, shared: bool = True) -> list[str]:
        return [
            "ssh",
            "-o",
            "BatchMode=yes",  # never wait for a password prompt nobody sees
            "-o",
            f"ConnectTimeout={CONNECT_SECONDS}",
            "-o",
            "ServerAliveInterval=10",  # a dropped connection is noticed within half a minute
            "-o",
            "ServerAliveCountMax=3",
            "-S",
            self._socket if shared else "none",
            *self.runner.ssh,
        ]

    def __enter__(self) -> "Host":
        assert self.runner.host is not None
        self._master = subprocess.Popen(
            [*self._base(), "-M", "-N", "-o", "ControlPersist=no", self.runner.host],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        deadline = time.monotonic() + CONNECT_SECONDS + 5
        while not Path(self._socket).exists():
            if self._master.poll() is not None or time.monotonic() > deadline:
                ended = self._master.poll() is not None and self._master.stderr is not None
                error = self._master.stderr.read().decode("utf-8", "replace") if ended and self._master.stderr else ""
                self.close()
                last = [line for line in error.splitlines() if line.strip()]
                raise HostError(f"cannot connect to {self.runner.host}: {last[-1] if last else 'no answer'}")
            time.sleep(0.05)
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        master, self._master = self._master, None
        if master is not None:
            if master.poll() is None:
                subprocess.run(
                    [*self._base(), "-O", "exit", self.runner.host or ""], capture_output=True, timeout=CONNECT_SECONDS
                )
            try:
                master.wait(5)
            except subprocess.TimeoutExpired:
                master.kill()
                master.wait()
            if master.stderr is not None:
                master.stderr.close()
        self._folder.cleanup()

    def argv(self, script: str, shared: bool = True) -> list[str]:
        """The local command that runs shell ``script`` on the host (in the ssh user's home), through
        the master connection unless ``shared`` is False."""
        return [*self._base(shared), self.runner.host or "", script]

    def run(
        self,
        script: str,
        *,
        stdin: bytes | None = None,
        seconds: float | None = None,
        cancel: Callable[[], None] | None = None,
        what: str = "",
        shared: bool = True,
    ) -> Finished:
        """Run ``script`` on the host; :class:`HostError` when ssh itself failed (exit 255).
        ``shared=False`` opens a connection of its own: the master may be the connection that failed."""
        done = run_command(self.argv(script, shared), stdin=stdin, seconds=seconds, cancel=cancel)
        if done.returncode == SSH_LOST:
            raise HostError(
                f"ssh to {self.runner.host} failed{' while ' + what if what else ''}: {done.last_line() or 'connection lost'}"
            )
        return done

    def fetch(self, directory: str, names: list[str], into: Path) -> None:
        """Copy ``names`` (relative to ``directory`` on the host; missing ones skipped) into ``into``."""
        quoted = " ".join(shlex.quote(n) for n in names)
        script = (
            f'cd {shlex.quote(directory)} && for n in {quoted}; do [ -e "$n" ] && printf \'%s\\n\' "$n"; done | tar -cf - -T -'
        )
        done = subprocess.run(self.argv(script), capture_output=True, stdin=subprocess.DEVNULL, start_new_session=True)
        if done.returncode == SSH_LOST:
            last = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise HostError(
                f"ssh to {self.runner.host} failed while bringing the traces back: {last[-1] if last else 'connection lost'}"
            )
        try:
            with tarfile.open(fileobj=io.BytesIO(done.stdout)) as archive:
                archive.extractall(into, filter="data")
        except tarfile.TarError as exc:
            raise HostError(f"{self.runner.host}: the traces came back damaged ({exc})") from None


def upload_archive(blobs: dict[str, Path], link_script: str) -> bytes:
    """A tar of ``blobs/SHA256`` files and the ``link.sh`` that builds the work tree from them."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for digest, path in sorted(blobs.items()):
            archive.add(path, arcname=f"blobs/{digest}", recursive=False)
        script = link_script.encode("utf-8")
        info = tarfile.TarInfo("link.sh")
        info.size = len(script)
        archive.addfile(info, io.BytesIO(script))
    return buffer.getvalue()
