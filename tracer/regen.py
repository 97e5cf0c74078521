"""Regeneration: which traces are stale or drifted, re-tracing them (in parallel), and guarding CUDA traces.

Freshness is decided by content hashes: a trace records the sha256 of every lecture file and image
it used (``sources``); it is fresh when each of those files still hashes the same. A trace made on
CUDA is never silently replaced by a CPU trace, and never lost: ``--force`` replaces it but keeps it
as the lecture's GPU run (``site/traces/gpu/NAME.json``), published beside the CPU trace until a GPU
machine traces the lecture again. ``check`` also compares each fresh run's values with the committed
trace (``trace_diff``): a difference beyond the fields that vary from run to run is drift. This module
must not record steps or render pages;
it orchestrates ``runner`` (in worker processes) and reports, and it parses no command lines
(``cli`` does).

``guarded_run`` holds the kept-GPU-run protocol around each ``chalktrace run``. Worker processes are driven
through one typed contract: a ``RunRequest``, the command ``run_command`` makes of it, and the
``Outcome`` ``read_outcome`` makes of the exit code and error lines.
"""

from __future__ import annotations

import ast
import contextlib
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from tracer import layout
from tracer.exit_codes import ExitCode
from tracer.helper_files import SettingsError, changed_decisions
from tracer.source_map import read_source, source_map
from tracer.trace_problems import trace_problems
from tracer.trace_format import READABLE_VERSIONS, SCHEMA_VERSION, TraceError, load_trace, read_header, sha256_file, write_atomic



@dataclass
class Refusal:
    message: str
    blocking: bool = False  # the command must fail
    skip: bool = False  # leave this lecture alone and carry on
    keep_gpu_run: tuple[Path, Path] | None = None  # (CUDA trace, where to keep it) before replacing it


def cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def stale_sources(trace: dict[str, Any], project_root: Path) -> list[str]:
    """Paths recorded in the trace whose current content differs (or that are gone)."""
    changed = []
    for rel, digest in (trace.get("sources") or {}).items():
        file = project_root / rel
        try:
            current = sha256_file(file)
        except OSError:
            changed.append(f"{rel} (missing)")
            continue
        if current != digest:
            changed.append(rel)
    return changed


def cuda_guard(lecture: Path, output: Path | None, *, force: bool, has_cuda: bool | None = None) -> Refusal | None:
    """Protect a trace made on CUDA from being replaced on a machine without CUDA."""
    lecture = lecture.absolute()
    project_root = layout.find_project_root(lecture.parent)
    target = output or layout.trace_path(project_root, lecture)
    header = read_header(target)
    if not header or (header.get("environment") or {}).get("device") != "cuda":
        return None
    if has_cuda is None:
        has_cuda = cuda_available()
    if has_cuda:
        return None
    gpu = (header.get("environment") or {}).get("gpu_name") or "a GPU"
    target = Path(rel(target, project_root))
    changed = stale_sources(header, project_root)
    if not changed:
        return Refusal(f"{target}: kept: fresh trace made on CUDA ({gpu}); this machine has no GPU", skip=True)
    if force:
        if target == Path(rel(layout.trace_path(project_root, lecture), project_root)):
            kept = layout.gpu_run_path(project_root, lecture.stem)
            return Refusal(f"{target}: --force: replacing the CUDA trace made on {gpu} with a CPU trace; the GPU run "
                           f"stays published, kept as {rel(kept, project_root)}",
                           keep_gpu_run=(project_root / target, kept))
        return Refusal(f"{target}: --force: replacing the CUDA trace made on {gpu} with a CPU trace; "
                       "its GPU memory figures and GPU timings are lost")
    return Refusal(f"{target}: stale trace made on CUDA ({gpu}; changed: {', '.join(changed)}); "
                   "re-trace it on a GPU, or pass --force to replace it with a CPU trace", blocking=True)




def guarded_run(lecture: Path, output: Path | None, *, force: bool, trace: Callable[[], int]) -> int:
    """One ``chalktrace run`` of ``lecture`` under the GPU-run protocol; ``trace()`` traces it and gives
    its exit code. The CUDA guard comes first: its message is printed; a blocking refusal is exit 2, a
    skip is exit 0 with nothing traced. A CUDA trace that a forced run replaces is kept as the
    lecture's GPU run while ``trace()`` runs (the copy is dropped again if nothing replaced it). A
    run that wrote the committed trace (``build`` names it with ``-o`` too) and left a CUDA trace
    there retires the kept GPU run, saying so."""
    refusal = cuda_guard(lecture, output, force=force)
    if refusal is not None:
        print(refusal.message, file=sys.stderr)
        if refusal.blocking:
            return ExitCode.BAD_INPUT
        if refusal.skip:
            return ExitCode.OK
    keep = refusal.keep_gpu_run if refusal is not None else None
    if keep is not None:
        keep_gpu_run(*keep)
    project_root = layout.find_project_root(lecture.absolute().parent)
    committed = layout.trace_path(project_root, lecture)
    target = output or committed
    before = read_header(target)
    try:
        code = trace()
    finally:
        if keep is not None:
            settle_gpu_run(*keep)
    after = read_header(target)
    if before is not None and before.get("status") == "ok" and after is not None and after.get("status") != "ok":
        print(f"{rel(target, project_root)}: the previous good trace was replaced by this {after.get('status')} "
              "trace (so the page shows where it broke); fix the lecture and run it again, or restore the "
              "committed one (git restore)", file=sys.stderr)
    if output is None or output.resolve() == committed.resolve():
        retired = retire_gpu_run(project_root, lecture)
        if retired:
            print(retired, file=sys.stderr)
    return code


def keep_gpu_run(trace: Path, kept: Path) -> None:
    """Copy the CUDA ``trace`` to ``kept`` before it is replaced (so it exists somewhere at every moment)."""
    write_atomic(kept, trace.read_text(encoding="utf-8"))


def settle_gpu_run(trace: Path, kept: Path) -> None:
    """After a run meant to replace ``trace``: drop the copy made by :func:`keep_gpu_run` if nothing replaced it."""
    if _is_cuda_trace(trace) and kept.exists():
        kept.unlink()


def retire_gpu_run(project_root: Path, lecture: Path) -> str | None:
    """A new CUDA trace of ``lecture`` supersedes its kept GPU run: remove that, saying so."""
    kept = layout.gpu_run_path(project_root, lecture.stem)
    if kept.exists() and _is_cuda_trace(layout.trace_path(project_root, lecture)):
        kept.unlink()
        return f"{rel(kept, project_root)}: removed; this GPU trace supersedes it"
    return None


def _is_cuda_trace(path: Path) -> bool:
    header = read_header(path)
    return header is not None and (header.get("environment") or {}).get("device") == "cuda"


def gpu_run_problems(project_root: Path, lectures: list[Path]) -> list[str]:
    """What is wrong with the kept GPU runs: each must be a valid CUDA trace of a lecture traced on CPU."""
    names = {p.stem for p in lectures}
    problems = []
    for kept in sorted((project_root / layout.TRACES_DIR / layout.GPU_RUNS_SUBDIR).glob("*.json")):
        shown = rel(kept, project_root)
        try:
            trace = load_trace(kept)
        except TraceError as exc:
            problems.append(str(exc).replace(str(project_root) + os.sep, ""))
            continue
        if kept.stem not in names or trace["lecture"]["name"] != kept.stem:
            problems.append(f"{shown}: kept GPU run of no lecture lectures/{kept.stem}.py")
        elif (trace.get("environment") or {}).get("device") != "cuda":
            problems.append(f"{shown}: not a CUDA trace; only GPU runs are kept here")
        elif _is_cuda_trace(project_root / layout.TRACES_DIR / f"{kept.stem}.json"):
            problems.append(f"{shown}: superseded by the CUDA trace {layout.TRACES_DIR}/{kept.stem}.json; delete it")
    return problems


# -- discovery -------------------------------------------------------------------------------------
def _binds_main(tree: ast.Module) -> bool:
    """Whether module-level code binds the name ``main`` (def, async def, assignment, import, star import)."""
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name == "main":
                return True
            continue  # names bound inside are not module-level
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if any(alias.name == "*" or (alias.asname or alias.name.split(".")[0]) == "main" for alias in node.names):
                return True
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id == "main":
            return True
        todo.extend(ast.iter_child_nodes(node))
    return False


def skip_reason(path: Path) -> str | None:
    """Why ``path`` (in the lectures directory) is not traced as a lecture, or None when it is."""
    if path.name.startswith("_"):
        return "helper module (name starts with _)"
    try:
        facts = source_map(read_source(path))
    except (UnicodeDecodeError, OSError, SyntaxError):
        return None  # let the run report the problem with file and line
    if facts.error is not None:
        return None
    if not _binds_main(facts.tree):
        return "no main at module level (define `def main():`)"
    return None


def discover(lectures_dir: Path) -> list[Path]:
    """Lecture files: ``*.py`` that bind ``main`` at module level; names starting with ``_`` are helpers."""
    return sorted(p for p in lectures_dir.glob("*.py") if skip_reason(p) is None)


def skipped(lectures_dir: Path) -> list[tuple[Path, str]]:
    """The ``*.py`` files of ``lectures_dir`` that are not lectures, each with the reason."""
    return [(p, why) for p in sorted(lectures_dir.glob("*.py")) if (why := skip_reason(p)) is not None]


def rel(path: Path, root: Path) -> str:
    return layout.shown_path(path, root)


def freshness(lecture: Path, trace_file: Path, project_root: Path) -> str | None:
    """None when ``trace_file`` is a fresh trace of ``lecture``, else why it is not."""
    header = read_header(trace_file)
    if header is None:
        return "missing" if not trace_file.exists() else "unreadable"
    if header.get("schema_version") not in READABLE_VERSIONS:  # an older readable one is upgraded on load
        return f"schema_version {header.get('schema_version')!r}, current is {SCHEMA_VERSION}"
    lecture_rel = rel(lecture, project_root)
    if lecture_rel not in (header.get("sources") or {}):
        return f"does not record {lecture_rel} among its sources"
    changed = stale_sources(header, project_root)
    if changed:
        return "stale (changed: " + ", ".join(changed) + ")"
    if "stepped_helpers" in header:  # older traces did not record it
        try:
            decisions = changed_decisions(header.get("sources") or {}, lecture_rel, header["stepped_helpers"] or [],
                                          project_root)
        except SettingsError as exc:
            return str(exc)
        if decisions:
            return "stale ([tool.chalktrace] trace_helpers: " + ", ".join(decisions) + ")"
    return None


# -- running lectures in worker processes ----------------------------------------------------------
@dataclass
class Outcome:
    lecture: Path
    returncode: int
    seconds: float
    message: str = ""  # the worker's error line(s), if any

    @property
    def ok(self) -> bool:
        return self.returncode == 0


@dataclass(frozen=True)
class RunRequest:
    """One lecture to trace in a fresh interpreter with ``chalktrace run`` (isolation, real timeouts, true
    parallelism): the whole contract between ``build``/``check`` and the traced subprocess is this
    request, :func:`run_command` and :func:`read_outcome`."""

    lecture: Path
    output: Path
    timeout: float  # seconds the run may take; the interpreter is killed KILL_GRACE_SECONDS after that
    force: bool = False
    seed: int = 0


KILL_GRACE_SECONDS = 60  # beyond the run's own --timeout, for start-up and writing the trace


def run_command(request: RunRequest) -> list[str]:
    """The command line that traces ``request``: the one place that spells ``chalktrace run``'s options."""
    command = [sys.executable, "-m", "tracer", "run", str(request.lecture), "-o", str(request.output), "-q",
               "--timeout", str(request.timeout), "--seed", str(request.seed)]
    if request.force:
        command.append("--force")
    return command


def read_outcome(request: RunRequest, returncode: int | None, stderr: str, seconds: float) -> Outcome:
    """What a run of ``request`` came to: its exit code (None: it was killed after its timeout and the
    grace) and its last three error lines (warnings left out)."""
    if returncode is None:
        return Outcome(request.lecture, ExitCode.TIMEOUT, seconds,
                       f"{request.lecture}: timeout: killed after {request.timeout + KILL_GRACE_SECONDS:g}s")
    lines = [line for line in stderr.splitlines() if line.strip() and not line.startswith("chalktrace: warning")]
    return Outcome(request.lecture, returncode, seconds, "\n".join(lines[-3:]))


def trace_in_subprocess(request: RunRequest) -> Outcome:
    """Trace one lecture in a fresh interpreter."""
    started = time.perf_counter()
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    try:
        done = subprocess.run(run_command(request), capture_output=True, text=True,
                              timeout=request.timeout + KILL_GRACE_SECONDS, env=env)
    except subprocess.TimeoutExpired:
        return read_outcome(request, None, "", time.perf_counter() - started)
    return read_outcome(request, done.returncode, done.stderr, time.perf_counter() - started)


class _Display:
    """Per-lecture progress: a live table on a terminal, one line per finished lecture otherwise."""

    def __init__(self, lectures: list[str], enabled: bool) -> None:
        self._live = None
        self._rows = {name: "queued" for name in lectures}
        if enabled and sys.stderr.isatty():
            from rich.live import Live

            self._live = Live(self._table(), refresh_per_second=8, transient=False,
                              console=__import__("rich.console").console.Console(stderr=True))
            self._live.start()

    def _table(self) -> Any:
        from rich.table import Table

        table = Table(show_header=False, box=None)
        for name, status in self._rows.items():
            table.add_row(name, status)
        return table

    def update(self, name: str, status: str, final: bool = False) -> None:
        self._rows[name] = status
        if self._live is not None:
            self._live.update(self._table())
        elif final:
            print(f"{name}: {status}", file=sys.stderr)

    def close(self) -> None:
        if self._live is not None:
            self._live.stop()


def run_many(lectures: list[Path], outputs: list[Path], *, jobs: int, timeout: float, force: bool,
             project_root: Path, show: bool = True) -> list[Outcome]:
    names = [rel(p, project_root) for p in lectures]
    display = _Display(names, show)

    def work(index: int) -> Outcome:
        display.update(names[index], "tracing…")
        outcome = trace_in_subprocess(RunRequest(lectures[index], outputs[index], timeout=timeout, force=force))
        last = outcome.message.splitlines()[-1] if outcome.message else outcome.returncode
        status = (f"traced in {outcome.seconds:.1f}s" if outcome.ok else
                  f"raised in {outcome.seconds:.1f}s ({last})" if outcome.returncode == ExitCode.LECTURE_FAILED
                  else f"FAILED ({last})")
        display.update(names[index], status, final=True)
        return outcome

    try:
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            return list(pool.map(work, range(len(lectures))))
    finally:
        display.close()


@contextlib.contextmanager
def build_lock(project_root: Path) -> Iterator[None]:
    """One build at a time per project: a second waits instead of racing on the same traces."""
    import fcntl

    lock_dir = project_root / "build"
    lock_dir.mkdir(parents=True, exist_ok=True)
    with open(lock_dir / ".chalktrace.lock", "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print("chalktrace: another build is running; waiting for it to finish", file=sys.stderr)
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


# -- commands --------------------------------------------------------------------------------------
@dataclass
class CheckReport:
    lectures: int = 0
    problems: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # "path: reason" for each .py that is not traced
    notes: list[str] = field(default_factory=list)  # what was not checked, and why


def _written_trace(output: Path, outcome: Outcome) -> dict[str, Any] | None:
    """The trace a run wrote (it completed, or main() raised and its error trace was written), else None."""
    if not (outcome.ok or outcome.returncode == ExitCode.LECTURE_FAILED) or not output.exists():
        return None
    try:
        return load_trace(output, validate=False)
    except TraceError:
        return None


def check(project_root: Path, *, jobs: int, timeout: float, show: bool = True) -> CheckReport:
    """Re-trace every lecture into a temporary directory and compare with the committed traces."""
    lectures_dir = project_root / layout.LECTURES_DIR
    lectures = discover(lectures_dir)
    report = CheckReport(lectures=len(lectures),
                         skipped=[f"{rel(p, project_root)}: skipped: {why}" for p, why in skipped(lectures_dir)])
    traces_dir = project_root / layout.TRACES_DIR
    with tempfile.TemporaryDirectory(prefix="chalktrace-check-") as tmp:
        outputs = [Path(tmp) / f"{p.stem}.json" for p in lectures]
        outcomes = run_many(lectures, outputs, jobs=jobs, timeout=timeout, force=True,
                            project_root=project_root, show=show)
        for lecture, output, outcome in zip(lectures, outputs, outcomes):
            name = rel(lecture, project_root)
            committed = layout.trace_path(project_root, lecture)
            committed_rel = rel(committed, project_root)
            ran = _written_trace(output, outcome)
            if ran is not None:  # what students would see: an error or a name an @inspect did not find
                report.problems.extend(trace_problems(ran))
            elif not outcome.ok:
                reason = outcome.message or f"exit {outcome.returncode}"
                report.problems.append(f"{name}: lecture failed: {reason.splitlines()[-1]}")
            if not committed.exists():
                report.problems.append(f"{committed_rel}: missing; run `chalktrace build` and commit the trace")
                continue
            try:
                load_trace(committed)
            except TraceError as exc:
                report.problems.append(str(exc).replace(str(project_root) + os.sep, ""))
                continue
            why = freshness(lecture, committed, project_root)
            if why:
                report.problems.append(f"{committed_rel}: {why}; run `chalktrace build` and commit the trace")
                continue
            fresh = read_header(output) if ran is not None else None
            if fresh is not None:
                drifted, notes = value_drift(committed, output, project_root, lecture)
                report.problems.extend(drifted)
                report.notes.extend(notes)
                now_sources = set(fresh.get("sources") or {})
                then_sources = set((read_header(committed) or {}).get("sources") or {})
                if now_sources != then_sources:
                    added = sorted(now_sources - then_sources)
                    removed = sorted(then_sources - now_sources)
                    report.problems.append(f"{committed_rel}: stale (sources now {'+' + ', +'.join(added) if added else ''}"
                                           f"{' ' if added and removed else ''}{'-' + ', -'.join(removed) if removed else ''});"
                                           " run `chalktrace build` and commit the trace")
    report.problems.extend(gpu_run_problems(project_root, lectures))
    known = {p.stem for p in lectures}
    for orphan in sorted(traces_dir.glob("*.json")):
        if orphan.stem not in known:
            report.problems.append(f"{rel(orphan, project_root)}: no lecture lectures/{orphan.stem}.py for this trace")
    return report


MAX_DRIFT_LINES = 20  # per lecture; `chalktrace diff` shows them all


def value_drift(committed: Path, fresh: Path, project_root: Path, lecture: Path) -> tuple[list[str], list[str]]:
    """(drift lines, notes): the values of a fresh run of ``lecture`` (its sources unchanged) against the
    committed trace's, one line per difference that is not run-dependent (``trace_format.RUN_DEPENDENT``).

    A trace made on another device (a CUDA trace on a machine without a GPU) is not value-checked:
    its memory figures, kernels and dtypes legitimately differ; the note says so."""
    from tracer import trace_diff

    shown = rel(committed, project_root)
    try:
        old, new = load_trace(committed, validate=False), load_trace(fresh, validate=False)
    except TraceError as exc:
        return [str(exc).replace(str(project_root) + os.sep, "")], []
    device_old = (old.get("environment") or {}).get("device")
    device_new = (new.get("environment") or {}).get("device")
    if device_old != device_new:
        gpu = (old.get("environment") or {}).get("gpu_name")
        made = f"a CUDA trace ({gpu or 'a GPU'})" if device_old == "cuda" else f"a {device_old} trace"
        here = "this machine has no GPU" if device_new != "cuda" else f"this machine ran it on {device_new}"
        return [], [f"{shown}: values not checked: {made}, and {here}"]
    changes = trace_diff.drift(trace_diff.diff_traces(old, new))
    if not changes:
        return [], []
    lines = [trace_diff.format_change(c, "committed", "now") for c in changes[:MAX_DRIFT_LINES]]
    if len(changes) > MAX_DRIFT_LINES:
        lines.append(f"{shown}: … and {len(changes) - MAX_DRIFT_LINES} more difference(s)")
    lecture_rel = rel(lecture, project_root)
    lines.append(f"{shown}: {len(changes)} value(s) drifted from the committed trace, its sources unchanged "
                 f"(`chalktrace run {lecture_rel} -o NEW.json && chalktrace diff {shown} NEW.json` shows them all); "
                 f"re-trace it with `chalktrace run {lecture_rel}` and commit, or find what changed (libraries?)")
    return lines, []


def plan_build(project_root: Path, lectures: list[Path], *, force: bool,
               has_cuda: bool | None = None) -> tuple[list[Path], list[str], list[str]]:
    """(lectures to re-trace, notes to print, blocking problems)."""
    todo: list[Path] = []
    notes: list[str] = []
    problems: list[str] = []
    for lecture in lectures:
        target = layout.trace_path(project_root, lecture)
        refusal = cuda_guard(lecture, target, force=force, has_cuda=has_cuda)
        if refusal is not None:
            if refusal.blocking:
                problems.append(refusal.message)
                continue
            notes.append(refusal.message)
            if refusal.skip:
                continue
        why = freshness(lecture, target, project_root)
        if why is None and not (refusal is not None and force):
            continue
        todo.append(lecture)
    return todo, notes, problems


def build(project_root: Path, *, jobs: int, timeout: float, force: bool, site: bool, show: bool = True) -> int:
    lectures = discover(project_root / layout.LECTURES_DIR)
    with build_lock(project_root):
        todo, notes, problems = plan_build(project_root, lectures, force=force)
        for note in notes:
            print(note, file=sys.stderr)
        if not todo:
            print(f"chalktrace: all {len(lectures)} traces fresh; nothing to re-trace", file=sys.stderr)
            outcomes: list[Outcome] = []
        else:
            print(f"chalktrace: re-tracing {len(todo)} of {len(lectures)} lectures with {min(jobs, len(todo))} "
                  f"process(es)", file=sys.stderr)
            outcomes = run_many(todo, [layout.trace_path(project_root, p) for p in todo], jobs=jobs, timeout=timeout,
                                force=force, project_root=project_root, show=show)
        # A run that raised wrote its error trace: the published traces' problems below name it.
        failed = [o for o in outcomes if not o.ok and o.returncode != ExitCode.LECTURE_FAILED]
        for outcome in failed:
            print(outcome.message or f"{rel(outcome.lecture, project_root)}: exit {outcome.returncode}",
                  file=sys.stderr)
        students_would_see = published_problems(project_root, lectures)
        for problem in students_would_see:
            print(problem, file=sys.stderr)
        for problem in problems:
            print(problem, file=sys.stderr)
        if site:
            code = build_site(project_root)
            if code:
                return code
        return ExitCode.LECTURE_FAILED if (failed or problems or students_would_see) else ExitCode.OK


def published_problems(project_root: Path, lectures: list[Path]) -> list[str]:
    """What the committed traces of ``lectures`` would show students that they should not see
    (``trace_problems``), each ``path:line: what``."""
    problems = []
    for lecture in lectures:
        committed = layout.trace_path(project_root, lecture)
        try:
            trace = load_trace(committed, validate=False)
        except TraceError:
            continue  # missing or unreadable: the site build reports it on the lecture's page
        problems.extend(trace_problems(trace))
    return problems


def build_site(project_root: Path, strict: bool = True) -> int:
    command = [sys.executable, "-m", "mkdocs", "build", "--quiet"] + (["--strict"] if strict else [])
    done = subprocess.run(command, cwd=project_root, env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
    if done.returncode:
        print("chalktrace: site build failed (see above)", file=sys.stderr)
    else:
        print(f"chalktrace: site built in {rel(project_root / layout.BUILD_DIR, project_root)}/", file=sys.stderr)
    return done.returncode
