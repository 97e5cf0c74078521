"""One device-to-host copy per tensor card (``DeviceReadout``).

The pieces of a tensor's card (the preview's kept elements, the statistics' per-chunk moments, the
heatmap's cells and range) are computed by torch ops on the tensor's own device and handed here as
small tensors. ``fetch`` packs their bytes into one uint8 tensor on that device, copies it to the
host once (on a CPU tensor the copy is a no-op, so CPU runs the very code a GPU runs) and gives each
piece back as a host tensor with its own dtype and shape, bit for bit.

This module must not decide what a card holds (``torch_values`` does) nor compute any figure.
"""

from __future__ import annotations

from typing import Any


class DeviceReadout:
    """Small device tensors gathered for one copy: ``add`` each (its index is its handle), then
    ``fetch`` once."""

    def __init__(self) -> None:
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
        host = packed.to(device="cpu", copy=True)
        out: list[Any] = [None] * len(parts)
        offset = 0
        for k, piece in zip(order, raw):
            nbytes = piece.numel()
            part = parts[k]
            out[k] = host[offset : offset + nbytes].view(part.dtype).reshape(part.shape)
            offset += nbytes
        return out
