"""Tracing a batch of lectures through one runner: send, launch, bring back, accept or refuse.

``trace_batch`` is the whole journey for one runner and some lectures. Without a ``host`` the launch
template runs here (``srun`` on a login node whose file system the nodes share, or a plain command)
and the traces are written in the course's work folder, ``build/.chalktrace-runs/TOKEN/``; with a ``host``,
the files the lectures need go there over ssh (``ssh.Host``) and the traces come back. One lecture is
one launch; several lectures of an ``srun`` runner are one ``sbatch --wait`` job array, so Slurm fans
them out. Each lecture ends as a ``RunOutcome``: accepted (``bring_back``), or a one-line reason
naming the lecture and the job, the committed trace untouched. This module must not parse command
lines or build the site.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shlex
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from tracer import __version__
from tracer.capture.remote import CACHE_DIR
from tracer.commands.run_protocol import RunOutcome
from tracer.contract import paths
from tracer.contract.course_layout import quiet_layout_of
from tracer.contract.trace_reading import read_header
from tracer.exit_codes import ExitCode
from tracer.runners import bring_back, slurm
from tracer.runners.config import Runner
from tracer.runners.launch import Finished, run_command
from tracer.runners.ssh import Host, HostError, upload_archive

RUNS_DIR = ".chalktrace-runs"  # local runs' outputs, in the course's work folder (build/; shared with the nodes)
WORK = ".chalktrace"  # inside a run's work tree: out/ (traces), logs/ (array tasks), src/ (sent chalktrace), run.pid
SKIPPED_NAMES = ("__pycache__", ".git", ".DS_Store")


@dataclass
class Batch:
    runner: Runner
    lectures: list[Path]
    outputs: list[Path]  # where each accepted trace goes (the committed trace, or -o, or check's temp dir)
    project_root: Path
    timeout: float  # chalktrace run --timeout of each lecture (the job's own limit is Slurm's)
    force: bool = False
    seed: int | None = None  # None: the course's [tool.chalktrace] seed, else 0
    run_options: list[str] = field(default_factory=list)  # more `chalktrace run` options, passed on
    on_job: Callable[[str], None] | None = None  # told the Slurm job id once Slurm has one


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def needed_files(batch: Batch) -> dict[str, Path]:
    """What a host needs to trace the batch, by project-relative path: everything under lectures/
    (helpers, images, data, the media cache), the course settings, the runner's ``files`` patterns and
    any other file the committed traces record having read."""
    root = batch.project_root
    layout = quiet_layout_of(root)
    # never inputs: what chalktrace writes (traces, the site, build/), an edtrace course's var/
    written = [layout.traces_dir, layout.work_dir, layout.site_dir, root / "site", root / "build"]
    written += [layout.scratch_dir] if layout.scratch_dir else []
    found: dict[str, Path] = {}

    def add(path: Path) -> None:
        if any(path.is_relative_to(folder) for folder in written):
            return
        if path.is_file() and not any(part in SKIPPED_NAMES or part.startswith(".") for part in path.relative_to(root).parts):
            relpath = paths.project_relpath(path, root)
            if relpath is not None:
                found[relpath] = path

    for path in sorted(layout.lectures_dir.rglob("*")):
        add(path)
    for name in ("pyproject.toml", "mkdocs.yml"):
        add(root / name)
    for pattern in batch.runner.files:
        for path in sorted(root.glob(pattern)):
            add(path)
    for lecture in batch.lectures:
        for relpath in (read_header(layout.trace_path(lecture)) or {}).get("sources") or {}:
            add(root / relpath)
    return found


def chalktrace_files(runner: Runner, scratch: Path) -> dict[str, Path]:
    """This chalktrace's own files to send (``chalktrace = "sent"``: the running source; a wheel's path:
    its files), by their path in the work tree; none for ``"installed"``."""
    if runner.chalktrace == "installed":
        return {}
    if runner.chalktrace == "sent":
        package = paths.PACKAGE_DIR
    else:
        import zipfile

        unpacked = scratch / "wheel"
        with zipfile.ZipFile(Path(runner.chalktrace).expanduser()) as wheel:
            wheel.extractall(unpacked, [n for n in wheel.namelist() if n.startswith("tracer/")])
        package = unpacked / "tracer"
    return {
        f"{WORK}/src/tracer/{p.relative_to(package).as_posix()}": p
        for p in sorted(package.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    }


def _run_line(batch: Batch, lecture: str, output: str, python: str) -> str:
    """The ``chalktrace run`` of one lecture, as a shell command."""
    command = [python, "-m", "tracer", "run", lecture, "-o", output, "-q", "--timeout", f"{batch.timeout:g}"]
    command += (["--seed", str(batch.seed)] if batch.seed is not None else []) + batch.run_options
    if batch.force:
        command.append("--force")
    return shlex.join(command)


def _environment(batch: Batch, token: str, src: str | None) -> dict[str, str]:
    env = {paths.RUNNER_ENV: batch.runner.name, "PYTHONUNBUFFERED": "1", **slurm.job_env(token)}
    env.setdefault("PYTHONHASHSEED", os.environ.get("PYTHONHASHSEED", "0"))
    if src is not None:
        env["PYTHONPATH"] = src
    return env


def _launch_script(batch: Batch, lectures: list[str], outputs: list[str], *, token: str, python: str, log_dir: str) -> str:
    """The shell script that launches the batch (after ``setup``): one launch, or an ``sbatch`` array."""
    runner = batch.runner
    lines = [_run_line(batch, lecture, output, python) for lecture, output in zip(lectures, outputs)]
    if len(lines) > 1 and runner.uses_slurm:
        return slurm.array_command(runner, lines, token=token, log_dir=log_dir)
    # one lecture after another; the first failure does not stop the rest
    return "; ".join(runner.launch.replace("{command}", line) for line in lines)


def trace_batch(batch: Batch) -> list[RunOutcome]:
    """Trace ``batch.lectures`` through ``batch.runner``; an outcome per lecture, in order."""
    started = time.perf_counter()
    try:
        if batch.runner.host is None:
            return _trace_here(batch, started)
        return _trace_on_host(batch, started)
    except HostError as exc:
        return [_failed(batch, lecture, str(exc), started) for lecture in batch.lectures]


def _failed(batch: Batch, lecture: Path, why: str, started: float, code: int = ExitCode.BAD_INPUT) -> RunOutcome:
    return RunOutcome(
        lecture,
        code,
        time.perf_counter() - started,
        f"{paths.shown_path(lecture, batch.project_root)}: runner {batch.runner.where()}: {why}; the previous trace is kept",
    )


class _JobWatch:
    """Asks Slurm for the job id of this launch (by its name) while it runs, and tells ``on_job`` once."""

    def __init__(self, ask: Callable[[str], str], token: str, on_job: Callable[[str], None] | None) -> None:
        self._ask, self._token, self._on_job = ask, token, on_job
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True) if on_job else None
        if self._thread:
            self._thread.start()

    def _watch(self) -> None:
        query = f"squeue --noheader --name={slurm.job_name(self._token)} --format=%i 2>/dev/null | head -n 1"
        while not self._done.wait(0.3):
            try:
                job = self._ask(query).strip()
            except (HostError, OSError):
                return
            if job and self._on_job is not None:
                self._on_job(job.split("_")[0])
                return

    def stop(self) -> None:
        self._done.set()
        if self._thread:
            self._thread.join(5)


def _final_states(ask: Callable[[str], str], token: str) -> list[slurm.JobState]:
    """The launch's jobs as Slurm says they ended; a job still winding down (COMPLETING just after a
    cancel or a failure) is asked about again for a few seconds."""
    for _ in range(20):
        states = slurm.job_states(ask(slurm.states_command()), token)
        if not any(s.state in slurm.PASSING_STATES for s in states):
            break
        time.sleep(0.25)
    return states


def _settle(
    batch: Batch,
    token: str,
    finished: Finished,
    returned: dict[Path, Path],
    logs: Path,
    ask: Callable[[str], str],
    started: float,
) -> list[RunOutcome]:
    """Accept or refuse each lecture's returned trace; name the job of those that came back with none."""
    missing = any(not trace.exists() for trace in returned.values())
    states = _final_states(ask, token) if batch.runner.uses_slurm and missing else []
    if batch.runner.uses_slurm and not missing:
        states = slurm.job_states(ask(slurm.states_command()), token)
    outcomes = []
    for index, (lecture, output) in enumerate(zip(batch.lectures, batch.outputs)):
        trace = returned[lecture]
        job = next((s for s in states if s.task == index), None) or next((s for s in states if s.task is None), None)
        if not trace.exists():
            log = logs / f"task-{index}.log"
            said = [line for line in (log.read_text(errors="replace").splitlines() if log.exists() else []) if line.strip()]
            detail = said[-1].strip() if said else finished.last_line()
            if job is not None and job.state in slurm.BAD_STATES:
                why = job.describe()
            elif finished.returncode is None:
                why = f"job {slurm.job_name(token)} stopped"
            else:
                named = f"Slurm job {job.job_id}" if job else f"job {slurm.job_name(token)}"
                why = f"{named} wrote no trace (exit {finished.returncode})"
            code = ExitCode.TIMEOUT if job is not None and job.state == "TIMEOUT" else ExitCode.BAD_INPUT
            outcomes.append(_failed(batch, lecture, why + (f": {detail}" if detail and detail not in why else ""), started, code))
            continue
        refused = bring_back.refusal(trace, lecture, output, batch.project_root, force=batch.force)
        if refused:
            named = f" (Slurm job {job.job_id})" if job else ""
            outcomes.append(_failed(batch, lecture, f"the trace{named} {refused}", started))
            continue
        note = bring_back.put_in_place(trace, output, lecture, batch.project_root)
        if note:
            print(note, file=sys.stderr)
        status = (read_header(output) or {}).get("status")
        code = ExitCode.OK if status == "ok" else ExitCode.LECTURE_FAILED
        message = finished.last_line() if code else ""
        outcomes.append(RunOutcome(lecture, code, time.perf_counter() - started, message))
    return outcomes


def _trace_here(batch: Batch, started: float) -> list[RunOutcome]:
    """Run the launch template on this machine, in the course folder (shared with the nodes)."""
    root = batch.project_root
    token = secrets.token_hex(6)
    run_dir = quiet_layout_of(root).work_dir / RUNS_DIR / token
    (run_dir / "logs").mkdir(parents=True)
    try:
        runner = batch.runner
        python = runner.python if (runner.python != "python3" or runner.setup) else sys.executable
        src = str(paths.PACKAGE_DIR.parent) if runner.chalktrace == "sent" else None
        if runner.chalktrace not in ("sent", "installed"):
            chalktrace_files(runner, run_dir)
            src = str(run_dir / "wheel")
        names = [paths.shown_path(p, batch.project_root) for p in batch.lectures]
        outs = [str(run_dir / f"{p.stem}.json") for p in batch.lectures]
        script = _launch_script(batch, names, outs, token=token, python=python, log_dir=str(run_dir / "logs"))
        if runner.setup:
            script = f"{{ {runner.setup}\n}} && {script}"
        env = dict(os.environ, **_environment(batch, token, src))

        def ask(query: str) -> str:
            return run_command(["bash", "-c", query], env=env, seconds=30).stdout

        def cancel() -> None:
            if runner.uses_slurm:
                run_command(["bash", "-c", slurm.cancel_command(token)], env=env, seconds=30)

        watch = _JobWatch(ask, token, batch.on_job if runner.uses_slurm else None)
        try:
            limit = None if runner.uses_slurm else (batch.timeout + 60) * len(names)
            finished = run_command(["bash", "-c", script], cwd=root, env=env, seconds=limit, cancel=cancel)
        finally:
            watch.stop()
        returned = {p: run_dir / f"{p.stem}.json" for p in batch.lectures}
        return _settle(batch, token, finished, returned, run_dir / "logs", ask, started)
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)


def _trace_on_host(batch: Batch, started: float) -> list[RunOutcome]:
    """Send what the lectures need to the host, run the launch there, bring the traces back."""
    runner = batch.runner
    token = secrets.token_hex(6)
    remote = runner.remote_dir.rstrip("/")
    store, work, incoming = f"{remote}/store", f"{remote}/work/{token}", f"{remote}/incoming/{token}"
    with tempfile.TemporaryDirectory(prefix="chalktrace-runner-") as scratch, Host(runner) as host:
        if runner.chalktrace == "installed":
            check = f"{{ {runner.setup}\n}} && " if runner.setup else ""
            said = host.run(check + f"{runner.python} -m tracer --version", what="asking its chalktrace version")
            theirs = said.stdout.strip().removeprefix("chalktrace ").strip()
            if theirs != __version__:
                why = f"chalktrace {theirs or '(none: ' + said.last_line() + ')'} there, this is {__version__}"
                return [_failed(batch, p, why + "; install the same version there", started) for p in batch.lectures]
        files = {**needed_files(batch), **chalktrace_files(runner, Path(scratch))}
        digests = {relpath: _digest(path) for relpath, path in files.items()}
        listed = host.run(f"mkdir -p {store} && ls {store}", what="listing the files it has")
        have = set(listed.stdout.split())
        missing = {digest: files[relpath] for relpath, digest in digests.items() if digest not in have}
        directories = sorted({str(Path(relpath).parent) for relpath in digests} | {f"{WORK}/out", f"{WORK}/logs"})
        link = ["set -e", f"store=$(cd {store} && pwd)", f"mkdir -p {work} && cd {work}"]
        link.append("mkdir -p " + " ".join(shlex.quote(d) for d in directories))
        link += [f'ln -f "$store/{digest}" {shlex.quote(relpath)}' for relpath, digest in sorted(digests.items())]
        sent = host.run(
            f"mkdir -p {incoming} && tar -xf - -C {incoming} && "
            f'for f in {incoming}/blobs/*; do [ -e "$f" ] && mv -f "$f" {store}/; done; '
            f"sh {incoming}/link.sh; status=$?; rm -rf {incoming}; exit $status",
            stdin=upload_archive(missing, "\n".join(link) + "\n"),
            what="sending the lecture files",
        )
        if sent.returncode:
            raise HostError(f"{runner.host}: could not store the lecture files: {sent.last_line()}")
        names = [paths.shown_path(p, batch.project_root) for p in batch.lectures]
        outs = [f"{WORK}/out/{p.stem}.json" for p in batch.lectures]
        python = runner.python
        src = f"$PWD/{WORK}/src" if runner.chalktrace != "installed" else None
        env = _environment(batch, token, src)
        exports = "export " + " ".join(f"{k}={v if k == 'PYTHONPATH' else shlex.quote(v)}" for k, v in env.items())
        launch = _launch_script(batch, names, outs, token=token, python=python, log_dir=f"{WORK}/logs")
        setup = f"{{ {runner.setup}\n}} && " if runner.setup else ""
        script = f"cd {work} && echo $$ > {WORK}/run.pid && {setup}{exports} && {launch}"

        def cancel() -> None:
            stop = f"kill -TERM -- -$(cat {work}/{WORK}/run.pid) 2>/dev/null; sleep 1; kill -KILL -- -$(cat {work}/{WORK}/run.pid) 2>/dev/null"
            try:
                # On a connection of its own: after a drop the master is the connection that failed,
                # and a command sent through its socket while it is going away need not come back.
                host.run(
                    (slurm.cancel_command(token) + "; " if runner.uses_slurm else "") + stop + f"; rm -rf {work}",
                    seconds=60,
                    shared=False,
                )
            except HostError:
                pass  # the host cannot be reached at all: nothing more can be done from here

        def ask(query: str) -> str:
            return host.run(query, seconds=30).stdout

        watch = _JobWatch(ask, token, batch.on_job if runner.uses_slurm else None)
        try:
            finished = host.run(script, cancel=cancel, what=f"running job {slurm.job_name(token)}")
        except HostError:
            cancel()  # the connection dropped, not the job: a new connection ends it, as Ctrl-C would
            raise
        finally:
            watch.stop()
        back = Path(scratch) / "back"
        back.mkdir()
        cache = paths.shown_path(quiet_layout_of(batch.project_root).lectures_dir / CACHE_DIR, batch.project_root)
        host.fetch(work, [*outs, f"{WORK}/logs", cache], back)
        host.run(f"rm -rf {work}", what="cleaning up")
        copied = bring_back.merge_cache(back / cache, batch.project_root / cache)
        if copied:
            print(f"chalktrace: {len(copied)} cached media file(s) brought back from {runner.host}", file=sys.stderr)
        returned = {p: back / WORK / "out" / f"{p.stem}.json" for p in batch.lectures}
        return _settle(batch, token, finished, returned, back / WORK / "logs", ask, started)
