"""One device-to-host copy per tensor card (``DeviceReadout``), one CPU thread while a card is
computed (``one_cpu_thread``), and the count of what torch ops read back to the host (``host_reads``,
for the benches and tests that hold capture to that one copy).

The pieces of a tensor's card (the preview's kept elements, the statistics' per-chunk moments, the
heatmap's cells and range) are computed by torch ops on the tensor's own device and handed here as
small tensors. ``fetch`` packs their bytes into one uint8 tensor on that device, copies it to the
host once (on a CPU tensor the copy is a no-op, so CPU runs the very code a GPU runs) and gives each
piece back as a host tensor with its own dtype and shape, bit for bit.

A small tensor on a device is read back whole instead (``read_whole``: one copy of the storage span
it covers, strided again on the host), and its card is computed on the host from that private copy,
which ``DeviceReadout(private=True)`` hands back without copying again.

This module must not decide what a card holds (``torch_values`` does) nor compute any figure.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any, Iterator


class DeviceReadout:
    """Small device tensors gathered for one copy: ``add`` each (its index is its handle), then
    ``fetch`` once."""

    def __init__(self, private: bool = False) -> None:
        # private: the pieces come from the encoder's own host copy of the tensor (``read_whole``),
        # which no lecture variable can alias, so they are handed back without another copy.
        self._private = private
        self._parts: list[Any] = []

    def add(self, t: Any) -> int:
        """Queue ``t`` (any dtype, any device; keep it small: it is copied whole) and return its handle."""
        self._parts.append(t.detach().resolve_conj().resolve_neg())
        return len(self._parts) - 1

    def fetch(self) -> list[Any]:
        """Every queued tensor on the host, by handle, after one device-to-host copy."""
        import torch

        parts = self._parts
        if not parts:
            return []
        # Widest elements first: each piece then starts at a multiple of its element size, so the
        # host bytes are viewed as its dtype in place (no per-piece copy).
        order = sorted(range(len(parts)), key=lambda k: -parts[k].element_size())
        raw = [parts[k].contiguous().reshape(-1).view(torch.uint8) for k in order]
        packed = raw[0] if len(raw) == 1 else torch.cat(raw)
        # The one device-to-host copy. A copy on a CPU tensor too: the pieces never alias the
        # lecture's tensors, and the copy is the same operation a GPU's is (tests count it).
        host = packed if self._private else packed.to(device="cpu", copy=True)
        out: list[Any] = [None] * len(parts)
        offset = 0
        for k, piece in zip(order, raw):
            nbytes = piece.numel()
            part = parts[k]
            out[k] = host[offset : offset + nbytes].view(part.dtype).reshape(part.shape)
            offset += nbytes
        return out


def span_nbytes(t: Any) -> int:
    """Bytes of the storage span that ``t``'s elements cover, from its first element to its last
    (its own bytes when contiguous; more for a strided view, such as a column)."""
    if t.numel() == 0:
        return 0
    elements = 1 + sum((size - 1) * stride for size, stride in zip(t.shape, t.stride()))
    return elements * t.element_size()


def read_whole(t: Any) -> Any:
    """``t`` (on any device) as a tensor of the host with the same shape and strides, read in one
    copy of its storage span. The span is a contiguous range of the storage, so the copy allocates
    nothing on ``t``'s device (``t.cpu()`` of a strided view makes a contiguous copy there first)."""
    import torch

    span = span_nbytes(t) // t.element_size()
    flat = torch.as_strided(t, (span,), (1,), t.storage_offset())
    host = flat.to(device="cpu", copy=True)  # the one device-to-host copy (a copy on a CPU tensor too)
    return torch.as_strided(host, tuple(t.shape), tuple(t.stride()), 0)


@contextlib.contextmanager
def one_cpu_thread() -> Iterator[None]:
    """torch's CPU ops on one thread while a card is computed, the lecture's setting back after.

    A card's reductions are memory-bound passes over a few MB at most: threads gain them little, and
    each op's fork and join waits for every thread of the pool, which on a machine whose cores are
    busy (the lecture's own work, other processes) is a wait for a descheduled thread. On a shared
    2-core machine a 1M-element sum took 19.6 ms on two threads against 0.14 ms on one. A CUDA
    tensor's kernels do not use these threads."""
    import torch

    threads = torch.get_num_threads()
    if threads == 1:
        yield
        return
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


@dataclass
class HostReads:
    copies: list[int] = field(default_factory=list)  # nbytes of each copy to the host
    scalars: int = 0  # scalar reads: float(t), int(t), .item()


@contextlib.contextmanager
def host_reads() -> Iterator[HostReads]:
    """Every copy to the host and every scalar read of the torch ops run inside, counted as they run
    (a dispatch mode: it sees the operations, not the Python that asked for them)."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    reads = HostReads()
    to_host = torch.device("cpu")

    class Counting(TorchDispatchMode):
        def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            kwargs = kwargs or {}
            out = func(*args, **kwargs)
            if func is torch.ops.aten._local_scalar_dense.default:
                reads.scalars += 1
            elif func is torch.ops.aten._to_copy.default and kwargs.get("device") == to_host:
                reads.copies.append(out.numel() * out.element_size())
            return out

    with Counting():
        yield reads
