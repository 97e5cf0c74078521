"""Kept GPU runs: a trace made on CUDA is never silently replaced by a CPU trace, and never lost.

``--force`` replaces it but keeps it as the lecture's GPU run (``site/traces/gpu/NAME.json``),
published beside the CPU trace until a GPU machine traces the lecture again. ``guarded_run`` holds
this protocol around each ``chalktrace run``; ``cuda_guard`` is the decision, ``gpu_run_problems``
what ``check`` reports about the kept runs. This module must not trace lectures or parse command lines.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from tracer.contract.paths import shown_path
from tracer.commands.freshness import stale_sources
from tracer.contract import course_layout, paths
from tracer.contract.files import write_atomic
from tracer.contract.trace_format import TraceError
from tracer.contract.trace_reading import load_trace, read_header
from tracer.exit_codes import ExitCode


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


def cuda_guard(lecture: Path, output: Path | None, *, force: bool, has_cuda: bool | None = None) -> Refusal | None:
    """Protect a trace made on CUDA from being replaced on a machine without CUDA."""
    lecture = lecture.absolute()
    project_root = paths.find_project_root(lecture.parent)
    target = output or course_layout.trace_path(project_root, lecture)
    header = read_header(target)
    if not header or (header.get("environment") or {}).get("device") != "cuda":
        return None
    if has_cuda is None:
        has_cuda = cuda_available()
    if has_cuda:
        return None
    gpu = (header.get("environment") or {}).get("gpu_name") or "a GPU"
    target = Path(shown_path(target, project_root))
    changed = stale_sources(header, project_root)
    if not changed:
        return Refusal(f"{target}: kept: fresh trace made on CUDA ({gpu}); this machine has no GPU", skip=True)
    if force:
        if target == Path(shown_path(course_layout.trace_path(project_root, lecture), project_root)):
            kept = course_layout.gpu_run_path(project_root, lecture.stem)
            return Refusal(
                f"{target}: --force: replacing the CUDA trace made on {gpu} with a CPU trace; the GPU run "
                f"stays published, kept as {shown_path(kept, project_root)}",
                keep_gpu_run=(project_root / target, kept),
            )
        return Refusal(
            f"{target}: --force: replacing the CUDA trace made on {gpu} with a CPU trace; "
            "its GPU memory figures and GPU timings are lost"
        )
    return Refusal(
        f"{target}: stale trace made on CUDA ({gpu}; changed: {', '.join(changed)}); "
        "re-trace it on a GPU, or pass --force to replace it with a CPU trace",
        blocking=True,
    )


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
    project_root = paths.find_project_root(lecture.absolute().parent)
    committed = course_layout.trace_path(project_root, lecture)
    target = output or committed
    before = read_header(target)
    try:
        code = trace()
    finally:
        if keep is not None:
            settle_gpu_run(*keep)
    after = read_header(target)
    if before is not None and before.get("status") == "ok" and after is not None and after.get("status") != "ok":
        print(
            f"{shown_path(target, project_root)}: the previous good trace was replaced by this {after.get('status')} "
            "trace (so the page shows where it broke); fix the lecture and run it again, or restore the "
            "committed one (git restore)",
            file=sys.stderr,
        )
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
    kept = course_layout.gpu_run_path(project_root, lecture.stem)
    if kept.exists() and _is_cuda_trace(course_layout.trace_path(project_root, lecture)):
        kept.unlink()
        return f"{shown_path(kept, project_root)}: removed; this GPU trace supersedes it"
    return None


def _is_cuda_trace(path: Path) -> bool:
    header = read_header(path)
    return header is not None and (header.get("environment") or {}).get("device") == "cuda"


def gpu_run_problems(project_root: Path, lectures: list[Path]) -> list[str]:
    """What is wrong with the kept GPU runs: each must be a valid CUDA trace of a lecture traced on CPU."""
    names = {p.stem for p in lectures}
    problems = []
    layout = course_layout.quiet_layout_of(project_root)
    traces_dir = layout.traces_dir
    for kept in sorted((traces_dir / paths.GPU_RUNS_SUBDIR).glob("*.json")):
        shown = shown_path(kept, project_root)
        try:
            trace = load_trace(kept)
        except TraceError as exc:
            problems.append(str(exc).replace(str(project_root) + os.sep, ""))
            continue
        if kept.stem not in names or trace["lecture"]["name"] != kept.stem:
            problems.append(f"{shown}: kept GPU run of no lecture {shown_path(layout.lectures_dir / kept.stem, project_root)}.py")
        elif (trace.get("environment") or {}).get("device") != "cuda":
            problems.append(f"{shown}: not a CUDA trace; only GPU runs are kept here")
        elif _is_cuda_trace(traces_dir / f"{kept.stem}.json"):
            problems.append(
                f"{shown}: superseded by the CUDA trace {shown_path(traces_dir / kept.stem, project_root)}.json; delete it"
            )
    return problems
