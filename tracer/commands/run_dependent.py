"""What varies from run to run: the fields ``check`` (drift) and ``diff`` skip unless asked.

The policy of the run-to-run comparison, kept beside the commands that apply it; it must not read or
write traces.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from tracer.contract.trace_format import Trace

# Two runs of one lecture on one machine write the same trace except for these fields. `chalktrace check`
# compares each fresh run with the committed trace and reports every other difference as drift;
# `chalktrace diff` leaves these out unless asked (--all). Each is skipped, not compared with a
# tolerance: none of them has a scale on which "close" means "the same". Any other value is compared
# exactly, except floats that differ only by rounding: the same lecture, seed and libraries give the
# same bits on one CPU, but another CPU's vector width sums in another order (a committed trace made on
# a laptop, checked on a CI runner), which moves float32 results by a few units in the last place.
RUN_DEPENDENT: dict[str, str] = {
    "compute.seconds": "@flops wall time of the line",
    "compute.flop_per_s": "@flops FLOPs divided by that time",
    "compute.mfu": "@flops FLOP/s over the device's peak",
    "compute.repeats": "@flops replays: how many fit the timing budget",
    "compute.timing": "@flops replay or single run, decided by the first run's time",
    "collectives.seconds": "a collective's wall time on its rank",
    "collectives.start_seconds": "when a collective started, on the launch's clock",
    "memory (memory_source cuda_allocated)": "CUDA allocator figures (caching allocator, library workspaces)",
    "memory (rank streams)": "a rank's recorded-tensor bytes: when its peers release shared buffers varies",
    "values named *seconds, *_per_s, *mfu": "timings a lecture measures itself (names say the unit)",
    "floats within float rounding": "float elements and statistics within FLOAT_ROUNDING (OTHER_CPU_ROUNDING across CPUs) of each other",
    "environment": "chalktrace, python, torch, numpy versions and the device: reported by diff, never drift",
    "ran_on": "the runner, host and Slurm job that traced the lecture",
}
# Relative difference up to which two floats count as the same result rounded differently: about 80
# units in the last place of float32 (2**-23 each), whose sums and products lecture values mostly are.
# A changed lecture, seed or library moves values far more; half precision tensors get their own.
FLOAT_ROUNDING = 1e-5
# Traced on another CPU (another vector width or thread count, recorded as ``environment.cpu``), a
# training loop carries a first step's rounding through every later step: its losses part by 1e-4 and
# more after a few dozen steps. A real change still moves them by far more than 1 part in 1,000.
OTHER_CPU_ROUNDING = 1e-3
HALF_PRECISION_ROUNDING = 2e-2  # a few units in the last place of float16 (2**-10) and bfloat16 (2**-7)
HALF_PRECISION_DTYPES = frozenset(("float16", "bfloat16", "half", "complex32"))
# Value names a lecture uses for what it timed itself (see RUN_DEPENDENT); matched at the name's end.
TIMING_NAME_SUFFIXES: tuple[str, ...] = ("seconds", "_per_s", "mfu")
RUN_DEPENDENT_COMPUTE: frozenset[str] = frozenset(("seconds", "flop_per_s", "mfu", "repeats", "timing"))
RUN_DEPENDENT_COLLECTIVE: frozenset[str] = frozenset(
    ("seconds", "start_seconds", "wait_seconds", "transfer_seconds", "algbw", "busbw", "peak_share")
)


def is_timing_name(name: str) -> bool:
    """Whether a recorded value's name says it is a time or a rate (``fp32_seconds``, ``flop_per_s``)."""
    leaf = name.rsplit(".", 1)[-1].lower()
    return leaf.endswith(TIMING_NAME_SUFFIXES)


def float_rounding(env_a: Mapping[str, Any], env_b: Mapping[str, Any]) -> float:
    """The relative rounding two traces' floats may differ by: FLOAT_ROUNDING when both name the same
    CPU arithmetic (``environment.cpu``), else OTHER_CPU_ROUNDING (older traces name none)."""
    same = env_a.get("cpu") is not None and env_a.get("cpu") == env_b.get("cpu")
    return FLOAT_ROUNDING if same else OTHER_CPU_ROUNDING


def within_float_rounding(old: object, new: object, dtype: str | None = None, rounding: float = FLOAT_ROUNDING) -> bool:
    """Whether two recorded numbers (plain, or ``{"type": "float", "value": …}`` Values) are one float
    result rounded differently: both finite floats, relatively within ``rounding`` (more for half
    precision dtypes)."""
    a, b = (v.get("value") if isinstance(v, dict) and v.get("type") == "float" else v for v in (old, new))
    if not (isinstance(a, float) or isinstance(b, float)) or isinstance(a, bool) or isinstance(b, bool):
        return False
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return False
    if not (math.isfinite(a) and math.isfinite(b)):
        return False
    if (dtype or "").removeprefix("torch.") in HALF_PRECISION_DTYPES:
        rounding = max(rounding, HALF_PRECISION_ROUNDING)
    return abs(a - b) <= rounding * max(abs(a), abs(b))


def same_within_rounding(old: object, new: object, rounding: float = FLOAT_ROUNDING) -> bool:
    """Whether two pieces of trace data (a rendering's spec, say) are equal but for floats within
    ``rounding`` of each other."""
    if isinstance(old, dict) and isinstance(new, dict):
        return old.keys() == new.keys() and all(same_within_rounding(old[k], new[k], rounding) for k in old)
    if isinstance(old, list) and isinstance(new, list):
        return len(old) == len(new) and all(same_within_rounding(a, b, rounding) for a, b in zip(old, new))
    return old == new or within_float_rounding(old, new, None, rounding)


def memory_is_run_dependent(trace: Trace, in_rank_stream: bool) -> bool:
    """Whether the ``memory`` figures of steps (the trace's own, or a rank stream's) vary from run to run."""
    return in_rank_stream or (trace.get("environment") or {}).get("memory_source") == "cuda_allocated"
