"""Regeneration: which traces are stale, re-tracing them (in parallel), and guarding CUDA traces.

Freshness is decided by content hashes: a trace records the sha256 of every lecture file and image
it used (``sources``); it is fresh when each of those files still hashes the same. A trace made on
CUDA is never silently replaced by a CPU trace. This module must not record steps or render pages;
it orchestrates ``runner`` (in worker processes) and reports.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class Refusal:
    message: str
    blocking: bool = False  # the command must fail
    skip: bool = False  # leave this lecture alone and carry on


def cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def read_header(trace_path: Path) -> dict[str, Any] | None:
    """The trace's top-level fields, or None when it is missing or unreadable."""
    try:
        data = json.loads(trace_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def stale_sources(trace: dict[str, Any], project_root: Path) -> list[str]:
    """Paths recorded in the trace whose current content differs (or that are gone)."""
    changed = []
    for rel, digest in (trace.get("sources") or {}).items():
        file = project_root / rel
        try:
            current = hashlib.sha256(file.read_bytes()).hexdigest()
        except OSError:
            changed.append(f"{rel} (missing)")
            continue
        if current != digest:
            changed.append(rel)
    return changed


def cuda_guard(lecture: Path, output: Path | None, *, force: bool, has_cuda: bool | None = None) -> Refusal | None:
    """Protect a trace made on CUDA from being replaced on a machine without CUDA."""
    from tracer.runner import default_output, find_project_root

    lecture = lecture.absolute()
    project_root = find_project_root(lecture.parent)
    target = output or default_output(lecture, project_root)
    header = read_header(target)
    if not header or (header.get("environment") or {}).get("device") != "cuda":
        return None
    if has_cuda is None:
        has_cuda = cuda_available()
    if has_cuda:
        return None
    gpu = (header.get("environment") or {}).get("gpu_name") or "a GPU"
    changed = stale_sources(header, project_root)
    if not changed:
        return Refusal(f"{target}: kept: fresh trace made on CUDA ({gpu}); this machine has no GPU", skip=True)
    if force:
        return Refusal(f"{target}: --force: replacing the CUDA trace made on {gpu} with a CPU trace; "
                       "its GPU memory figures and GPU timings are lost")
    return Refusal(f"{target}: stale trace made on CUDA ({gpu}; changed: {', '.join(changed)}); "
                   "re-trace it on a GPU, or pass --force to replace it with a CPU trace", blocking=True)


def add_commands(sub: Any) -> None:
    """Register check/build/serve on the CLI's subparsers."""
    return None
