"""A stand-in for the CUDA caching allocator that runs on CPU and counts how often it is read.

Its "allocated bytes" are those of the distinct storages of every live torch tensor the collector
tracks (tensors made before the recorder froze the collector are not seen, so a lecture's own are),
and its peak is the largest of those it has reported. ``probe()`` gives the ``CudaProbe`` the recorder
reads; ``every_line=True`` gives the reference that is read after every line.
"""

from __future__ import annotations

import gc

import torch

from tracer.capture.memory import CudaProbe


def live_tensor_nbytes() -> int:
    storages = {}
    for obj in gc.get_objects():
        if isinstance(obj, torch.Tensor) and obj.device.type != "meta":
            storage = obj.untyped_storage()
            storages[storage.data_ptr() or id(storage)] = storage.nbytes()
    return sum(storages.values())


class CountingAllocator:
    def __init__(self, measure=live_tensor_nbytes) -> None:
        self.measure = measure
        self.reads = 0
        self.peak = 0

    def stats(self) -> tuple[int, int]:
        self.reads += 1
        current = self.measure()
        self.peak = max(self.peak, current)
        return current, self.peak

    def probe(self, every_line: bool = False) -> CudaProbe:
        return CudaProbe(lambda: self.stats()[0], lambda: self.peak, self.stats, skip_unchanged=not every_line)
