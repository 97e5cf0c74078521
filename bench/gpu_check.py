"""One-command check of chalktrace on a GPU machine (torch installed, no network), in under 5 minutes.

It first names any Python package it needs and lacks (``NEEDED``), and stops there. Then it
(1) re-traces ``lectures/hello.py`` and ``lectures/lecture_02.py`` on CUDA into the folder named by
``--out`` (``chalktrace run`` in a child process, offline), and traces lecture_02 again with every
card computed on the host, counting the steps whose memory differs (value capture must not show in
the GPU memory a trace records); (2) runs the tests whose behaviour differs on CUDA; and (3) prints
the GPU's name with lines/s on the 200,000-line loop bench (and under the CPU probe, the machine's
own ceiling), traced/untraced on ``tensor_work`` and ``lecture_02``, the allocator read's µs, the
memory probe's allocator reads on the loop with their cost per line and its timed µs per line (read
only when memory can have changed, against a read after every line), value capture µs per inspected
1M-element tensor, and that capture runs on the device (a card's copies to the host and scalar
reads: one small copy, none). Figures also go to ``OUT/figures.json``, the tests' output to ``OUT/tests.txt``.

Run from the repository root::

    python3 bench/gpu_check.py --out /tmp/gpu-check            # on the GPU machine
    python3 bench/gpu_check.py --out /tmp/gpu-check --no-cuda  # dry run on CPU (CI runs this)

``--tests`` replaces the test selection and ``--quick`` takes one round of each figure (the CI dry run,
``tests/test_gpu_check.py``, uses both to stay short).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CUDA_TESTS = (
    "tests/capture/test_memory.py",
    "tests/capture/test_memory_gate.py",
    "tests/capture/test_runner.py",
    "tests/capture/test_compute.py",
    "tests/capture/test_values.py",
    "tests/capture/test_device_readout.py",
    "tests/test_lecture_02.py",
    "tests/test_hello.py",
)
LECTURES = ("hello", "lecture_02")
# What the re-traces and the tests import beyond torch: a GPU image often lacks the first two.
NEEDED = ("jsonschema", "jsonschema_rs", "jinja2", "rich", "numpy", "einops", "jaxtyping", "pytest", "hypothesis")


def missing_packages(names: tuple[str, ...]) -> list[str]:
    """Those of ``names`` that this Python cannot import (looked up without importing them)."""

    def found(name: str) -> bool:
        try:
            return importlib.util.find_spec(name) is not None
        except ImportError:  # a finder that refuses the name
            return False

    return [name for name in names if not found(name)]


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    env["CHALKTRACE_OFFLINE"] = "1"
    return env


def retrace(out: Path, figures: dict) -> None:
    for name in LECTURES:
        target = out / f"{name}.json"
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "tracer", "run", f"lectures/{name}.py", "-o", str(target)],
            cwd=ROOT,
            env=_child_env(),
            capture_output=True,
            text=True,
        )
        seconds = time.perf_counter() - started
        if done.returncode != 0 or not target.exists():
            print(f"re-trace {name}: FAILED (exit {done.returncode}): {(done.stderr or done.stdout).strip()[-400:]}")
            figures[f"retrace_{name}"] = {"ok": False, "exit": done.returncode}
            continue
        trace = json.loads(target.read_text(encoding="utf-8"))
        environment = trace.get("environment", {})
        steps = len(trace.get("steps", []))
        peak = max((step.get("memory", {}).get("peak_nbytes", 0) for step in trace.get("steps", [])), default=0)
        print(
            f"re-trace {name}: {trace.get('status')}, {steps:,} steps, {seconds:.1f} s, device {environment.get('device')}, "
            f"memory source {environment.get('memory_source')}, peak {peak / 2**20:.0f} MiB -> {target}"
        )
        figures[f"retrace_{name}"] = {"ok": trace.get("status") == "ok", "steps": steps, "seconds": seconds, "peak_nbytes": peak}


# `chalktrace run` with every tensor on a device read back whole, so that no card allocates there.
_HOST_CARDS_RUN = """import sys
from tracer.capture import torch_values
from tracer.cli import main
torch_values.READ_WHOLE_NBYTES = 1 << 62
sys.exit(main(sys.argv[1:]))
"""


def capture_in_peak(out: Path, figures: dict) -> None:
    """Does value capture show in the GPU memory a trace records? lecture_02 traced again with every
    card computed on the host, its memory compared step by step with the re-trace's."""
    mine, reference = out / "lecture_02.json", out / "lecture_02_host_cards.json"
    if not mine.exists():
        return
    done = subprocess.run(
        [sys.executable, "-c", _HOST_CARDS_RUN, "run", "lectures/lecture_02.py", "-o", str(reference)],
        cwd=ROOT,
        env=_child_env(),
        capture_output=True,
        text=True,
    )
    if done.returncode != 0 or not reference.exists():
        print(f"capture in the peak: FAILED (exit {done.returncode}): {(done.stderr or done.stdout).strip()[-400:]}")
        figures["capture_in_peak"] = {"ok": False}
        return
    memory = [
        [step.get("memory") for step in json.loads(path.read_text(encoding="utf-8"))["steps"]] for path in (mine, reference)
    ]
    differing = [(a or {}).get("peak_nbytes", 0) - (b or {}).get("peak_nbytes", 0) for a, b in zip(*memory) if a != b]
    print(
        f"capture in the peak: lecture_02's memory differs from a run with every card computed on the host on "
        f"{len(differing)} of {len(memory[0]):,} steps (peak raised by at most {max(differing, default=0):,} bytes)"
    )
    figures["capture_in_peak"] = {
        "ok": len(memory[0]) == len(memory[1]),
        "steps": len(memory[0]),
        "steps_differing": len(differing),
        "largest_peak_rise_nbytes": max(differing, default=0),
    }


def run_tests(out: Path, selection: list[str], figures: dict) -> None:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *selection],
        cwd=ROOT,
        env=_child_env(),
        capture_output=True,
        text=True,
    )
    (out / "tests.txt").write_text(done.stdout + done.stderr, encoding="utf-8")
    summary = (done.stdout.strip().splitlines() or ["(no output)"])[-1]
    print(f"tests ({len(selection)} selected, {time.perf_counter() - started:.0f} s): exit {done.returncode}: {summary}")
    figures["tests"] = {"exit": done.returncode, "summary": summary}


def _allocator_read_seconds(torch, repeats: int = 2000) -> dict[str, float]:
    """µs per call of each way to read CUDA memory."""
    device = torch.cuda.current_device()
    calls = {
        "_cuda_memoryStats": lambda: torch._C._cuda_memoryStats(device),
        "memory_allocated": torch.cuda.memory_allocated,
        "mem_get_info": torch.cuda.mem_get_info,
        "is_initialized": torch.cuda.is_initialized,
    }
    found = {}
    for name, call in calls.items():
        call()
        started = time.perf_counter()
        for _ in range(repeats):
            call()
        found[name] = (time.perf_counter() - started) / repeats * 1e6
    return found


def figures_here(cuda: bool, figures: dict, rounds: int = 3) -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    sys.path.insert(0, str(ROOT))
    import torch

    import bench_tracer as bench
    from tracer.capture.memory import CudaProbe, RecordedTensorsProbe
    from tracer.capture.runner import run_lecture

    name = torch.cuda.get_device_name() if cuda else "none (--no-cuda)"
    print(f"GPU: {name}; torch {torch.__version__}; Python {platform.python_version()}; {os.cpu_count()} CPUs")
    figures["machine"] = {"gpu": name, "torch": torch.__version__, "python": platform.python_version()}
    if cuda:
        torch.zeros(1, device="cuda")  # CUDA initialized, as in a lecture that has used it
        reads_us = _allocator_read_seconds(torch)
        print("allocator read µs/call: " + ", ".join(f"{key} {value:.2f}" for key, value in reads_us.items()))
        figures["allocator_read_us"] = reads_us

    # Lines/s on the loop: recording, and the whole run with its trace written.
    recording, whole = [], []
    for _ in range(rounds):
        seconds, steps = bench.traced_seconds(bench.LOOP)
        recording.append(steps / seconds)
        target = Path(os.environ.get("TMPDIR", "/tmp")) / f"gpu_check_loop_{os.getpid()}.json"
        started = time.perf_counter()
        run_lecture(bench.LOOP, output=target, max_steps=10**7)
        whole.append(steps / (time.perf_counter() - started))
        target.unlink(missing_ok=True)
    naive = bench.naive_lines_per_second(bench.LOOP) if rounds > 1 else float("nan")
    print(
        f"loop: {steps:,} lines; recording {max(recording):,.0f} lines/s, whole run {max(whole):,.0f} lines/s "
        f"(best of {rounds}); naive extract_stack tracer {naive:,.0f} lines/s ({max(recording) / naive:.1f}x)"
    )
    figures["loop"] = {"lines": steps, "recording_lines_per_s": max(recording), "whole_lines_per_s": max(whole), "naive": naive}

    # The memory probe per line: the CUDA allocator read only when memory can have changed (gated),
    # and read after every line, against the CPU probe. The timed differences are small beside this
    # kind of machine's run-to-run noise (the CPU probe's own µs/line moved by a fifth between runs
    # on an H200), so the gated probe's reads are also counted: their count times the allocator
    # read's µs is the cost the gate leaves per line, whatever the noise.
    if cuda:
        reads = [0]

        def counted_probe(registry):
            probe = CudaProbe.from_torch()
            sample = probe.sample

            def counted() -> tuple[int, int]:
                reads[0] += 1
                return sample()

            # The recorder takes the probe's sample method when it starts.
            probe.sample = counted  # type: ignore[method-assign]
            return probe

        probes = {
            "cpu_recorded": lambda registry: RecordedTensorsProbe(registry),
            "cuda_gated": counted_probe,
            "cuda_every_line": lambda registry: _every_line(CudaProbe.from_torch()),
        }
        rates: dict[str, list[float]] = {label: [] for label in probes}
        for _ in range(rounds):  # alternating, so that the machine's drift hits each probe alike
            for label, factory in probes.items():
                seconds, steps = _traced(bench, run_lecture, factory)
                rates[label].append(seconds / steps * 1e6)
        gated_reads = reads[0] // (2 * rounds)  # _traced runs the lecture twice
        cpu, gated, every = (min(rates[label]) for label in probes)
        left = gated_reads * reads_us["_cuda_memoryStats"] / steps
        print(
            f"memory probe on the loop: the CPU probe {cpu:.2f} µs/line ({1e6 / cpu:,.0f} lines/s, this machine's "
            f"ceiling); the CUDA probe read when memory can change {gated_reads:,} times for {steps:,} lines "
            f"(1 per {steps / max(gated_reads, 1):,.0f}), cost left {left:.2f} µs/line (target <= 2); "
            f"timed over the CPU probe: {gated - cpu:+.2f} µs/line gated, {every - cpu:+.2f} read after every line"
        )
        figures["probe_us_per_line"] = {
            "cpu_probe_us_per_line": cpu,
            "gated_reads": gated_reads,
            "lines": steps,
            "gated_read_cost_left": left,
            "gated": gated - cpu,
            "every_line": every - cpu,
        }

    # Traced / untraced, best of 3 each, alternating.
    for path in (bench.TENSOR, bench.LECTURE_02) if rounds > 1 else (bench.TENSOR,):
        bench.untraced_seconds(path)
        plain = min(bench.untraced_seconds(path) for _ in range(rounds))
        traced, steps = min(bench.traced_seconds(path, measure_flops=False) for _ in range(rounds))
        print(
            f"{path.relative_to(ROOT)}: untraced {plain:.3f} s, traced {traced:.3f} s, ratio {traced / plain:.2f}x, {steps} steps"
        )
        figures[f"ratio_{path.stem}"] = {"untraced_s": plain, "traced_s": traced, "ratio": traced / plain}

    # Value capture per inspected 1M-element tensor.
    capture = bench.capture_microseconds(["cpu", "cuda"] if cuda else ["cpu"], repeats=20 if rounds > 1 else 2)
    print(
        "capture µs per inspected 1M-element float32 tensor: "
        + ", ".join(f"{key} {value:,.0f}" for key, value in capture.items())
    )
    figures["capture_us_per_1m_tensor"] = capture
    # Capture on the device: each card is computed there and read back in one small copy.
    readout = {}
    for device in capture:
        copies, nbytes, scalars = bench.capture_readout(device)
        readout[device] = {"copies": copies, "nbytes": nbytes, "scalar_reads": scalars}
        print(
            f"capture on the device ({device}): used; a 1M-element card is {copies} copy to the host "
            f"({nbytes:,} bytes) and {scalars} scalar reads"
        )
    figures["capture_readout"] = readout


def _every_line(probe):
    probe.skip_unchanged = False
    return probe


def _traced(bench, run_lecture, factory) -> tuple[float, int]:
    best = None
    for _ in range(2):
        box: list[float] = []

        def hook(recorder):
            start, stop = recorder.start, recorder.stop

            def timed_start(*args, **kwargs):
                box.append(time.perf_counter())
                return start(*args, **kwargs)  # the trace guard, which the traced process enters

            def timed_stop():
                stop()
                box.append(time.perf_counter())

            recorder.start, recorder.stop = timed_start, timed_stop

        result = run_lecture(bench.LOOP, write=False, on_recorder=hook, max_steps=10**7, probe_factory=factory)
        seconds = box[1] - box[0]
        best = seconds if best is None else min(best, seconds)
    return best, result.steps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=Path, help="folder for the re-traced lectures and the figures")
    parser.add_argument("--no-cuda", action="store_true", help="dry run on CPU: CUDA hidden from this process and its children")
    parser.add_argument("--tests", nargs="*", help="test selection instead of the CUDA-sensitive test files")
    parser.add_argument("--quick", action="store_true", help="one round of each figure, lecture_02 re-traced but not timed")
    args = parser.parse_args(argv)
    missing = missing_packages(NEEDED)
    if missing:
        print(
            f"gpu_check: this Python lacks {', '.join(missing)}: install them, or carry their wheels onto "
            "PYTHONPATH (bench/README.md, 'On a GPU')",
            file=sys.stderr,
        )
        return 2
    if args.no_cuda:
        os.environ["CUDA_VISIBLE_DEVICES"] = ""  # before torch is imported, here and in the children
    import torch

    cuda = torch.cuda.is_available()
    if not cuda and not args.no_cuda:
        print("gpu_check: no CUDA device here (use --no-cuda for a dry run on CPU)", file=sys.stderr)
        return 2
    started = time.perf_counter()
    args.out.mkdir(parents=True, exist_ok=True)
    figures: dict = {}
    retrace(args.out, figures)
    capture_in_peak(args.out, figures)
    run_tests(args.out, list(args.tests) if args.tests is not None else list(CUDA_TESTS), figures)
    figures_here(cuda, figures, rounds=1 if args.quick else 3)
    figures["seconds"] = time.perf_counter() - started
    (args.out / "figures.json").write_text(json.dumps(figures, indent=1), encoding="utf-8")
    print(f"gpu_check: done in {figures['seconds']:.0f} s; figures in {args.out / 'figures.json'}")
    failed = (
        figures["tests"]["exit"] != 0
        or not all(figures[f"retrace_{name}"]["ok"] for name in LECTURES)
        or not figures.get("capture_in_peak", {}).get("ok", False)
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
