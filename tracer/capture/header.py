"""The trace header of one traced process: one function builds it, for a lecture and for a rank's shard.

``trace_header`` assembles the fields of ``trace_format.Trace`` that come before the steps: the
lecture's name and title, the sources the run loaded and their ``sha256_file`` digests (bytes on
disk, so a CRLF file is as fresh as any), the source text and hidden lines of files with steps, the
helper files stepped into (decided as the recorder does, for every helper loaded, so freshness can
re-decide them), the environment, status, error, caps and warnings. This module must not run
anything, format steps (``trace_writer`` does) or write files.
"""

from __future__ import annotations

import os
import platform
import socket
import sys
from typing import Any, Iterable

from tracer.capture.directives import parse_source
from tracer.capture.recorder import EXTRAS, KEY, LectureFile, RecordedStep
from tracer.capture.process_state import hash_seed
from tracer.capture.traced_process import TracedProcess
from tracer import __version__
from tracer.contract import course_layout, paths
from tracer.contract.helper_files import opted_in
from tracer.contract.source_facts import read_source
from tracer.contract.files import sha256_file
from tracer.contract.trace_format import SCHEMA_VERSION, Environment, ErrorInfo, RanOn, Status, Trace, TraceOptionsRecord


def cpu_arithmetic() -> str:
    """What decides how this CPU rounds float sums: the machine, torch's vector instruction set and its
    thread count (``x86_64, AVX512, 2 threads``); the machine alone where the lecture never imported torch."""
    torch = sys.modules.get("torch")
    if torch is None:
        return platform.machine()
    return f"{platform.machine()}, {torch.backends.cpu.get_cpu_capability()}, {torch.get_num_threads()} threads"


def environment(seed: int, memory_source: str) -> Environment:
    """Versions (chalktrace's own too) and device; libraries the lecture never imported are reported as null. ``hash_seed``:
    the process's PYTHONHASHSEED (the order of sets and dicts of strings), null when it was random."""
    env: dict[str, Any] = {
        "chalktrace": __version__,
        "python": platform.python_version(),
        "torch": None,
        "numpy": None,
        "device": "cpu",
        "gpu_name": None,
        "gpu_total_memory_nbytes": None,
        "memory_source": memory_source,
        "seed": seed,
        "hash_seed": hash_seed(),
        "cpu": cpu_arithmetic(),
    }
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        env["numpy"] = numpy.__version__
    torch = sys.modules.get("torch")
    if torch is not None:
        env["torch"] = torch.__version__
        if torch.cuda.is_available():
            props = torch.cuda.get_device_properties(0)
            env.update(device="cuda", gpu_name=props.name, gpu_total_memory_nbytes=int(props.total_memory))
    return env  # type: ignore[return-value]


def trace_options(options: Any) -> TraceOptionsRecord:
    """The ``chalktrace run`` options the trace was made with (``check`` re-traces with them); the seed
    is ``environment.seed``."""
    from tracer.capture.encoder_core import Limits
    from tracer.capture.output_budget import HEAD_CHARS

    return {
        "preview_elements": (options.limits or Limits()).tensor_elements,
        "max_steps": options.max_steps,
        "max_output_chars": options.output_budget.head_chars if options.output_budget else HEAD_CHARS,
        "flops": options.measure_flops,
        "preview_rows": options.preview_rows,
    }


def ran_on() -> RanOn | None:
    """Where a runner traced this process (its name is in the environment), else None: the host and the
    Slurm job (an array task as ``JOB_TASK``, as Slurm names it)."""
    runner = os.environ.get(paths.RUNNER_ENV)
    if not runner:
        return None
    array, task = os.environ.get("SLURM_ARRAY_JOB_ID"), os.environ.get("SLURM_ARRAY_TASK_ID")
    job = f"{array}_{task}" if array and task else os.environ.get("SLURM_JOB_ID")
    return {"runner": runner, "host": socket.gethostname(), "slurm_job_id": job or None}


def lecture_title(steps: list[RecordedStep], doc: str | None, name: str) -> str:
    """The lecture's first ``# `` heading it rendered, else its docstring's first line, else its name."""
    for step in steps:
        for rendering in (step[EXTRAS] or {}).get("renderings", ()):
            if rendering.get("type") == "markdown" and rendering["data"].startswith("# "):
                return rendering["data"][2:].splitlines()[0].strip()
    doc = (doc or "").strip()
    return doc.splitlines()[0] if doc else name


def loaded_files(traced: TracedProcess, module_files: Iterable[str]) -> list[LectureFile]:
    """Every lecture file of the run: those the recorder traced, and the other modules it loaded
    from the project (``module_files``: their ``__file__``), sorted by path."""
    recorder = traced.recorder
    files = list(recorder.files.values())
    for module_file in module_files:
        if module_file and module_file not in recorder.files and module_file.endswith(".py"):
            rel = recorder.relpath(module_file)
            if rel is not None:
                source = read_source(module_file)
                files.append(LectureFile(rel, source, parse_source(source)))
    return sorted(files, key=lambda f: f.path)


def trace_header(
    traced: TracedProcess,
    steps: list[RecordedStep],
    *,
    status: Status,
    files: list[LectureFile],
    title: str,
    error: ErrorInfo | None = None,
    reads: Iterable[str] = (),
) -> Trace:
    """The header of ``traced``'s trace (its ``steps`` field is empty: the writer adds the steps).
    ``reads``: other project files the run read (``file_reads``), hashed into ``sources`` too."""
    shown = traced.shown
    project_root = traced.project_root
    with_steps = {step[KEY][0] for step in steps}
    sources = {f.path: sha256_file(project_root / f.path) for f in files}
    for read in reads:
        if read not in sources:
            try:
                sources[read] = sha256_file(project_root / read)
            except OSError:
                pass  # gone again since: nothing to compare later
    scratch = course_layout.quiet_layout_of(project_root).scratch_dir
    for image in sorted(traced.sink.images):
        if scratch is not None and (project_root / image).resolve().is_relative_to(scratch.resolve()):
            continue  # an image the lecture drew into var/ is its output, not an input of freshness
        try:
            sources[image] = sha256_file(project_root / image)
        except OSError:
            pass  # api.image() already warned about a missing image
    patterns = traced.options.trace_helpers
    header: Trace = {
        "schema_version": SCHEMA_VERSION,
        "lecture": {"name": traced.lecture.stem, "path": shown, "title": title},
        "sources": dict(sorted(sources.items())),
        "files": {f.path: f.source for f in files if f.path in with_steps},
        "hidden_lines": {f.path: f.parsed.hidden_lines for f in files if f.parsed.hidden_lines and f.path in with_steps},
        "stepped_helpers": sorted(f.path for f in files if f.path != shown and opted_in(f.path, f.source, patterns)),
        "environment": environment(traced.options.seed, traced.probe.source),
        "options": trace_options(traced.options),
        "status": status,
        "truncated": traced.truncated() or None,
        "warnings": traced.recorder.warnings,
        "frames": [],  # written by trace_writer from the positions the steps name
        "steps": [],
    }
    where = ran_on()
    if where is not None:
        header["ran_on"] = where
    if error is not None:
        header["error"] = error
    return header
