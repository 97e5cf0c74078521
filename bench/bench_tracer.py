"""Tracer speed and trace size, measured in one run (figures, not pass/fail).

Prints: (a) traced / untraced wall time for tensor-dominated lectures, and the recorder's share of
it (traced with every inspected value recorded as a placeholder, no value captured), (b) lines per second on a
pure-Python loop while recording and for a whole ``chalktrace run`` (recording + writing), and the
same loop under a naive tracer that extracts the whole stack on every line, (c) trace bytes
per step, and (d) trace bytes per step of a 1,000-deep recursion against the same function called
1,000 times from a flat loop (each stack position is written once, so depth must not multiply the
size), and (e) the loop under a CUDA memory probe whose allocator read costs what an H100's does, read
only when memory can have changed against a read after every line, (f) capture µs per inspected
1M-element tensor on each device there is, with the copies to the host and scalar reads its card
took (capture on the device: one small copy, none), and per inspected 4 x 4 tensor (a training
loop's, shown whole; float32 and bfloat16), (g) ``chalktrace run`` of the loop with and without its
previous trace in place (``--rerun`` alone). Run:
``.venv/bin/python bench/bench_tracer.py`` (``--size`` for (c) and (d) only, ``--probe`` for (e) only, ``--capture`` for (f) only).
"""

from __future__ import annotations

import contextlib
import importlib.util
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tracer.capture.runner import run_lecture  # noqa: E402

LOOP = ROOT / "bench" / "lectures" / "loop.py"
TENSOR = ROOT / "bench" / "lectures" / "tensor_work.py"
LECTURE_02 = ROOT / "lectures" / "lecture_02.py"
RECURSION = ROOT / "bench" / "lectures" / "recursion.py"
FLAT_CALLS = ROOT / "bench" / "lectures" / "flat_calls.py"


def _load(path: Path):
    sys.path.insert(0, str(path.parent))
    try:
        spec = importlib.util.spec_from_file_location(f"bench_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(path.parent))


def untraced_seconds(path: Path) -> float:
    import torch

    torch.manual_seed(0)
    module = _load(path)
    import io
    import contextlib

    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        module.main()
    return time.perf_counter() - started


def traced_seconds(path: Path, measure_flops: bool = True) -> tuple[float, int]:
    """Seconds spent in main() under the recorder (recording only), and the step count."""
    box = []

    def hook(recorder):
        start, stop = recorder.start, recorder.stop

        def timed_start(*args, **kwargs):  # Recorder.start(resume=...) returns the trace guard
            box.append(time.perf_counter())
            return start(*args, **kwargs)  # the trace guard, which the traced process enters

        def timed_stop():
            stop()
            box.append(time.perf_counter())

        recorder.start, recorder.stop = timed_start, timed_stop

    result = run_lecture(path, write=False, on_recorder=hook, max_steps=10**7, measure_flops=measure_flops)
    return box[1] - box[0], result.steps


@contextlib.contextmanager
def values_not_captured():
    """Every inspected value recorded as a placeholder: the recorder's own cost, value capture left out."""
    from tracer.capture.values import ValueEncoder

    encode = ValueEncoder.encode
    ValueEncoder.encode = lambda self, value: {"type": "int", "value": 0}
    try:
        yield
    finally:
        ValueEncoder.encode = encode


def naive_lines_per_second(path: Path) -> float:
    """A naive tracer: traces every frame and extracts the whole stack on every lecture line."""
    module = _load(path)
    steps = []
    target = str(path)

    def trace(frame, event, arg):
        if event == "line" and frame.f_code.co_filename == target:
            steps.append((traceback.extract_stack(frame), dict(frame.f_locals)))
        return trace

    started = time.perf_counter()
    sys.settrace(trace)
    try:
        module.main()
    finally:
        sys.settrace(None)
    return len(steps) / (time.perf_counter() - started)


def bytes_per_step(path: Path) -> tuple[int, int]:
    """(trace bytes, steps) of one ``chalktrace run`` of ``path``."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "t.json"
        result = run_lecture(path, output=out, max_steps=10**7)
        return out.stat().st_size, result.steps


def depth_sizes() -> None:
    deep_nbytes, deep_steps = bytes_per_step(RECURSION)
    flat_nbytes, flat_steps = bytes_per_step(FLAT_CALLS)
    deep, flat = deep_nbytes / deep_steps, flat_nbytes / flat_steps
    print(
        f"(d) 1,000-deep recursion: {deep_nbytes:,} bytes, {deep_steps:,} steps, {deep:.0f} bytes/step; "
        f"flat loop of the same calls: {flat_nbytes:,} bytes, {flat_steps:,} steps, {flat:.0f} bytes/step; "
        f"ratio {deep / flat:.2f}x (target <= 2x)"
    )


def capture_microseconds(
    devices: list[str], repeats: int = 20, shape: tuple[int, ...] = (1000, 1000), dtype: str = "float32"
) -> dict[str, float]:
    """µs to encode (inspect) one tensor of ``shape`` (1000x1000: 1M elements) and ``dtype``, per device:
    statistics, heatmap, previews and exact cells, as an ``@inspect`` of it records them (best of
    ``repeats``)."""
    import torch

    from tracer.capture.values import ValueEncoder

    found = {}
    for device in devices:
        tensor = torch.randn(*shape, device=device).to(getattr(torch, dtype))
        best = float("inf")
        for _ in range(repeats):
            encoder = ValueEncoder()
            if device == "cuda":
                torch.cuda.synchronize()
            started = time.perf_counter()
            encoder.encode(tensor)
            best = min(best, time.perf_counter() - started)
        found[device] = best * 1e6
    return found


def capture_readout(device: str) -> tuple[int, int, int]:
    """(copies to the host, their bytes, scalar reads) while one 1000x1000 float32 tensor on ``device``
    is encoded: capture on the device reads a card back in one small copy and no scalar."""
    import torch

    from tracer.capture.device_readout import host_reads
    from tracer.capture.values import ValueEncoder

    tensor = torch.randn(1000, 1000, device=device)
    encoder = ValueEncoder()
    with host_reads() as reads:
        encoder.encode(tensor)
    return len(reads.copies), sum(reads.copies), reads.scalars


def rerun_figures(rounds: int = 2) -> None:
    """(g) ``chalktrace run`` of the loop (200,003 steps) as a command, with no previous trace, and with
    its previous trace (about 20 MB) in place: the header of the previous trace is all a run reads."""
    import resource
    import subprocess

    def one(target: Path) -> tuple[float, float]:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "tracer", "run", str(LOOP), "-o", str(target), "--max-steps", "1000000", "-q"],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        return time.perf_counter() - started, cpu

    fresh, again = [], []
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "loop.json"
        for _ in range(rounds):
            target.unlink(missing_ok=True)
            fresh.append(one(target))
            again.append(one(target))
        nbytes = target.stat().st_size
    best_fresh, best_again = min(fresh), min(again)
    print(
        f"(g) `chalktrace run` of the loop: no previous trace {best_fresh[0]:.2f} s wall ({min(c for _, c in fresh):.2f} s CPU); "
        f"previous {nbytes / 1e6:.0f} MB trace in place {best_again[0]:.2f} s wall ({min(c for _, c in again):.2f} s CPU); "
        f"best of {rounds}, alternating"
    )


def gated_probe_figures(read_seconds: float = 22.9e-6) -> None:
    """(e) the loop under a CUDA probe whose allocator read costs what it costs on an H100
    (``torch._C._cuda_memoryStats``: 22.9 µs), read only when memory can have changed, against a read
    after every line; on a GPU machine ``--real-cuda`` times the real allocator instead."""
    from tracer.capture.memory import CudaProbe

    reads = [0]

    def stats() -> tuple[int, int]:
        reads[0] += 1
        until = time.perf_counter() + read_seconds
        while time.perf_counter() < until:
            pass
        return (0, 0)

    rates = {}
    for every_line in (False, True):
        reads[0] = 0
        box: list = []

        def hook(recorder, box=box):
            start, stop = recorder.start, recorder.stop

            def timed_start(*args, **kwargs):
                box.append(time.perf_counter())
                return start(*args, **kwargs)  # the trace guard, which the traced process enters

            def timed_stop():
                stop()
                box.append(time.perf_counter())

            recorder.start, recorder.stop = timed_start, timed_stop

        probe = CudaProbe(lambda: 0, lambda: 0, stats, skip_unchanged=not every_line)
        result = run_lecture(LOOP, write=False, on_recorder=hook, max_steps=10**7, probe_factory=lambda registry: probe)
        seconds = box[1] - box[0]
        rates[every_line] = (result.steps / seconds, reads[0], result.steps, seconds)
    rate, count, steps, seconds = rates[False]
    every_rate, every_count, _, every_seconds = rates[True]
    print(
        f"(e) loop under a CUDA probe whose read costs {read_seconds * 1e6:.1f} µs: read when memory can change "
        f"{rate:,.0f} lines/s ({count:,} reads for {steps:,} lines, 1 per {steps / max(count, 1):,.0f}); "
        f"read after every line {every_rate:,.0f} lines/s ({every_count:,} reads); "
        f"probe cost {(every_seconds - seconds) / steps * 1e6 + read_seconds * count / steps * 1e6:.2f} µs/line "
        f"avoided, {read_seconds * count / steps * 1e6:.2f} µs/line left (target <= 2 µs)"
    )


def main() -> None:
    print("chalktrace tracer benchmark (one run; figures on this machine)")
    if "--probe" in sys.argv[1:]:
        gated_probe_figures()
        return
    if "--rerun" in sys.argv[1:]:
        rerun_figures()
        return
    if "--capture" in sys.argv[1:]:
        capture_figures()
        return
    if "--size" in sys.argv[1:]:
        nbytes, steps = bytes_per_step(LOOP)
        print(f"(c) loop trace: {nbytes:,} bytes, {nbytes / steps:.0f} bytes/step (target <= 200)")
        depth_sizes()
        return
    # (a) overhead on tensor-dominated lectures
    for path in (TENSOR, LECTURE_02):
        if not path.exists():
            print(f"(a) {path.relative_to(ROOT)}: not present, skipped")
            continue
        untraced_seconds(path)  # warm up imports and kernels
        # Alternate the two and keep each one's best of five: a shared machine's noise hits both.
        plain_runs, traced_runs, measured_runs, recorder_runs = [], [], [], []
        for _ in range(5):
            plain_runs.append(untraced_seconds(path))
            seconds, steps = traced_seconds(path, measure_flops=False)
            traced_runs.append(seconds)
            with values_not_captured():
                recorder_runs.append(traced_seconds(path, measure_flops=False)[0])
        measured_runs.append(traced_seconds(path, measure_flops=True)[0])
        plain, traced, measured, recorder = min(plain_runs), min(traced_runs), min(measured_runs), min(recorder_runs)
        print(
            f"(a) {path.relative_to(ROOT)}: untraced {plain:.3f}s, traced {traced:.3f}s, "
            f"ratio {traced / plain:.2f}x (target <= 1.3x), {steps} steps; "
            f"the recorder alone (values not captured) {recorder:.3f}s, {recorder / plain:.2f}x; "
            f"with @flops measurement (timed replays) {measured:.3f}s"
        )

    # (b) pure-Python loop; best of three (noise on a shared machine only ever slows a run down)
    recording, end_to_end = [], []
    for _ in range(3):
        seconds, steps = traced_seconds(LOOP)
        recording.append(steps / seconds)
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "loop.json"
            started = time.perf_counter()
            run_lecture(LOOP, output=out, max_steps=10**7)
            end_to_end.append(steps / (time.perf_counter() - started))
            nbytes = out.stat().st_size
    naive = max(naive_lines_per_second(LOOP) for _ in range(2))
    recording_rate = max(recording)
    print(
        f"(b) loop: {steps:,} lines; recording {recording_rate:,.0f} lines/s (target >= 500,000); "
        f"whole run incl. writing {max(end_to_end):,.0f} lines/s (target >= 200,000); best of 3 "
        f"(all: {', '.join(f'{r:,.0f}' for r in recording)} / {', '.join(f'{r:,.0f}' for r in end_to_end)})"
    )
    print(f"    naive extract_stack tracer: {naive:,.0f} lines/s; ours is {recording_rate / naive:.1f}x faster (target >= 10x)")
    # (c) bytes per step
    print(f"(c) loop trace: {nbytes:,} bytes, {nbytes / steps:.0f} bytes/step (target <= 200)")
    depth_sizes()
    gated_probe_figures()
    rerun_figures()
    capture_figures()


def capture_figures() -> None:
    """(f) capture µs per inspected 1M-element tensor, and what its card read back from the device."""
    import torch

    devices = ["cpu", "cuda"] if torch.cuda.is_available() else ["cpu"]
    capture = capture_microseconds(devices)
    print("(f) capture µs per inspected 1M-element float32 tensor: " + ", ".join(f"{k} {v:,.0f}" for k, v in capture.items()))
    for dtype, why in (
        ("float32", "a training loop's, shown whole"),
        ("bfloat16", "shown whole too; its decimals looked up once seen"),
    ):
        small = capture_microseconds(devices, repeats=400, shape=(4, 4), dtype=dtype)
        print(f"    per inspected 4 x 4 {dtype} tensor ({why}): " + ", ".join(f"{k} {v:,.0f}" for k, v in small.items()))
    for device in devices:
        copies, nbytes, scalars = capture_readout(device)
        print(f"    on the device ({device}): {copies} copy to the host ({nbytes:,} bytes), {scalars} scalar reads per card")


if __name__ == "__main__":
    main()
