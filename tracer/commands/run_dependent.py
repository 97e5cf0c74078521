"""What varies from run to run: the fields ``check`` (drift) and ``diff`` skip unless asked.

The policy of the run-to-run comparison, kept beside the commands that apply it; it must not read or
write traces.
"""

from __future__ import annotations

from tracer.contract.trace_format import Trace

# Two runs of one lecture on one machine write the same trace except for these fields. `chalktrace check`
# compares each fresh run with the committed trace and reports every other difference as drift;
# `chalktrace diff` leaves these out unless asked (--all). Each is skipped, not compared with a
# tolerance: none of them has a scale on which "close" means "the same". Any other value, float or
# not, is compared exactly: the same lecture, seed and libraries give the same bits.
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
    "environment": "chalktrace, python, torch, numpy versions and the device: reported by diff, never drift",
}
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


def memory_is_run_dependent(trace: Trace, in_rank_stream: bool) -> bool:
    """Whether the ``memory`` figures of steps (the trace's own, or a rank stream's) vary from run to run."""
    return in_rank_stream or (trace.get("environment") or {}).get("memory_source") == "cuda_allocated"
