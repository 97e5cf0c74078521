"""What a runner's trace must be before it replaces the committed one, and putting it in place.

A brought-back trace must load and validate, be the trace of the lecture that was sent, be made by
this chalktrace version, and record for every file it used the hash that file has here now (else it
was made from other files, and is refused as stale). A CPU trace does not replace a CUDA one unless
``--force`` says so (a runner without a GPU is a mistake in its settings). Cached media the run fetched
are copied into the course cache. This module must not run anything or talk to a host.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tracer import __version__
from tracer.commands.freshness import stale_sources
from tracer.commands.gpu_runs import retire_gpu_run
from tracer.contract import course_layout, paths
from tracer.contract.files import write_atomic
from tracer.contract.trace_format import TraceError
from tracer.contract.trace_reading import load_trace, read_header


def refusal(returned: Path, lecture: Path, target: Path, project_root: Path, *, force: bool) -> str | None:
    """Why the trace ``returned`` must not replace ``target`` (the trace of ``lecture``), or None."""
    try:
        trace = load_trace(returned)
    except TraceError as exc:
        return "came back invalid: " + str(exc).split(": ", 1)[-1]
    lecture_rel = paths.shown_path(lecture, project_root)
    if trace["lecture"]["name"] != lecture.stem or lecture_rel not in trace["sources"]:
        return f"came back as the trace of {trace['lecture']['path']}, not {lecture_rel}"
    made_by = (trace.get("environment") or {}).get("chalktrace")
    if made_by != __version__:
        return f"made by chalktrace {made_by} on the runner, this is {__version__}; install the same version there"
    changed = stale_sources(dict(trace), project_root)
    if changed:
        return f"refused as stale: made from other files than these ({', '.join(changed)} differ here)"
    before = read_header(target) or {}
    was_cuda = (before.get("environment") or {}).get("device") == "cuda"
    if was_cuda and trace["environment"].get("device") != "cuda" and not force:
        return "came back a CPU trace (the runner has no GPU) and would replace a CUDA trace; pass --force to accept it"
    return None


def put_in_place(returned: Path, target: Path, lecture: Path, project_root: Path) -> str | None:
    """Replace ``target`` with the accepted trace ``returned`` (atomically); a note when a kept GPU run retired."""
    write_atomic(target, returned.read_text(encoding="utf-8"))
    if target.resolve() == course_layout.trace_path(project_root, lecture).resolve():
        return retire_gpu_run(project_root, lecture)
    return None


def merge_cache(returned_cache: Path, cache: Path) -> list[str]:
    """Copy the cached media a run fetched (files absent here) into the course ``cache``, and add their
    entries to its index; the paths copied."""
    copied: list[str] = []
    if not returned_cache.is_dir():
        return copied
    for path in sorted(returned_cache.rglob("*")):
        relative = path.relative_to(returned_cache)
        here = cache / relative
        if path.is_file() and not here.exists() and path.suffix != ".json":
            here.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, here)
            copied.append(relative.as_posix())
    for index in sorted(returned_cache.glob("*.json")):  # URL -> file indexes: theirs adds to ours
        try:
            theirs = json.loads(index.read_text(encoding="utf-8"))
            ours = json.loads((cache / index.name).read_text(encoding="utf-8")) if (cache / index.name).exists() else {}
        except (OSError, ValueError):
            continue
        if isinstance(theirs, dict) and isinstance(ours, dict) and set(theirs) - set(ours):
            merged = {**theirs, **ours}
            write_atomic(cache / index.name, json.dumps(dict(sorted(merged.items())), indent=1, ensure_ascii=False) + "\n")
    return copied
