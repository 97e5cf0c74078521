"""Distributed tracing: the ranks a traced lecture starts, each traced into a shard, merged into one trace.

Built on the traced process (``tracer.capture.traced_process``) and never on the runner: :func:`follow`
plugs the ranks into a TracedProcess as an extension, either as its process-start hook (``spawn``:
``multiprocessing`` and ``torch.multiprocessing.spawn`` ranks, traced by ``worker``) or, under
torchrun (``--shard-dir``), by making the traced process itself a rank (``worker.TorchrunRank``).
``torchrun`` launches a torchrun-style lecture and ``shards`` merges what the ranks wrote;
``collectives`` wraps ``torch.distributed`` while a rank is traced; ``desync`` names ranks that
disagree on their collectives from what they announce (``desync_watch``). This package must not
import the runner or the site side.
"""

from __future__ import annotations

import os
from pathlib import Path

from tracer.capture.ranks.spawn import SpawnLaunch, SpawnRanks, describe_hang, free_port
from tracer.capture.ranks.worker import TorchrunRank
from tracer.capture.traced_process import TracedProcess

__all__ = ["SpawnLaunch", "SpawnRanks", "TorchrunRank", "describe_hang", "follow", "free_port"]


def follow(traced: TracedProcess, shard_dir: str | os.PathLike[str] | None = None) -> SpawnRanks | TorchrunRank:
    """Trace the ranks ``traced``'s lecture starts (or, with ``shard_dir``, make it a torchrun rank)."""
    ranks: SpawnRanks | TorchrunRank = SpawnRanks(traced) if shard_dir is None else TorchrunRank(traced, Path(shard_dir))
    traced.add_extension(ranks)
    return ranks
