"""Storage identity and memory probes: which tensors share memory, and how much memory is in use.

``StorageRegistry`` gives each distinct tensor storage a stable small id ("s1", "s2", ... in order
of first appearance, never a raw address) and tracks, through weak references to the storages
themselves, whether a recorded storage is still alive. A probe answers "memory now" for each step: ``CudaProbe`` asks the CUDA
caching allocator, ``RecordedTensorsProbe`` sums the live storages the registry has seen. Probes
are tiny objects with one ``sample()`` method so tests can substitute a fake CUDA. This module
must not serialize values or write files.
"""

from __future__ import annotations

import functools
import sys
import weakref
from typing import Any, Callable, Protocol


class StorageRegistry:
    """Stable ids for tensor storages, and the bytes of those still alive.

    A storage is known by its identity: the storage object itself (torch keeps one Python object per
    storage for as long as the storage lives), held weakly. When a storage dies, a weak-reference
    callback retires its id, so an id never names two storages, even when a new storage reuses the
    old one's address; and a storage leaves the live total the moment it is freed, also when the
    tensors recorded on it live on (``w.data = …`` gives ``w`` a new storage and frees the old).
    """

    def __init__(self) -> None:
        self._next = 1
        # id(storage object) -> [id, weakref to the storage (None: it refuses weak references)]
        self._entries: dict[int, list[Any]] = {}
        self.dirty = False  # set when live bytes may have changed since the last live_nbytes()
        self._live_nbytes = 0

    @property
    def storages(self) -> dict[int, list[Any]]:
        """The storages seen so far and still alive (read only: the recorder tests it for "any
        tensor recorded yet")."""
        return self._entries

    def _retire(self, key: int, ref: Any) -> None:
        entry = self._entries.get(key)
        if entry is not None and entry[1] is ref:
            del self._entries[key]
        self.dirty = True

    def storage_id(self, tensor: Any) -> tuple[str, int]:
        """The id and byte size of ``tensor``'s storage (registering the storage when it is new)."""
        storage = tensor.untyped_storage()
        nbytes = int(storage.nbytes())
        key = id(storage)
        entry = self._entries.get(key)
        if entry is None or entry[1] is None or entry[1]() is not storage:
            try:
                ref = weakref.ref(storage, functools.partial(self._retire, key))
            except TypeError:  # a storage that refuses weak references is never counted as live
                ref = None
            entry = [f"s{self._next}", ref]
            self._next += 1
            if ref is not None:
                self._entries[key] = entry
        self.dirty = True
        return entry[0], nbytes

    def live_nbytes(self) -> int:
        """Bytes of the distinct storages seen so far that are still alive (their size now)."""
        if self.dirty:
            self.dirty = False
            total = 0
            for _, ref in list(self._entries.values()):
                storage = ref()
                if storage is not None:
                    total += int(storage.nbytes())
            self._live_nbytes = total
        return self._live_nbytes


class Probe(Protocol):
    source: str

    def sample(self) -> tuple[int, int]:
        """(bytes in use now, peak bytes so far)."""
        ...


class RecordedTensorsProbe:
    """CPU: bytes of distinct live storages among the tensors recorded so far."""

    source = "cpu_recorded"

    def __init__(self, registry: StorageRegistry) -> None:
        self._registry = registry
        self._last = (0, 0)

    def sample(self) -> tuple[int, int]:
        if self._registry.dirty:
            nbytes = self._registry.live_nbytes()
            self._last = (nbytes, max(nbytes, self._last[1]))
        return self._last


class CudaProbe:
    """GPU: what the CUDA caching allocator reports after the line."""

    source = "cuda_allocated"

    def __init__(
        self,
        allocated: Callable[[], int],
        max_allocated: Callable[[], int],
        stats: Callable[[], tuple[int, int]] | None = None,
        skip_unchanged: bool = True,
    ) -> None:
        # The recorder reads this probe only after lines that can have changed memory (memory_gate);
        # False reads it after every line (the reference the gate is tested against).
        self.skip_unchanged = skip_unchanged
        self._allocated = allocated
        self._max_allocated = max_allocated
        self._stats = stats

    def sample(self) -> tuple[int, int]:
        if self._stats is not None:
            return self._stats()
        return (int(self._allocated()), int(self._max_allocated()))

    @classmethod
    def from_torch(cls) -> "CudaProbe":
        """The real allocator, read in one call per step.

        ``torch.cuda.memory_allocated()`` flattens the allocator's whole statistics dict on every
        call (hundreds of microseconds): per traced line that would dominate a lecture, so read the
        raw nested statistics once, and not at all before CUDA is initialized (nothing allocated).
        """
        import torch

        raw = getattr(torch._C, "_cuda_memoryStats", None)
        if raw is None:  # a torch without the private binding: the public, slower path
            return cls(torch.cuda.memory_allocated, torch.cuda.max_memory_allocated)
        is_initialized = torch.cuda.is_initialized
        current_device = torch.cuda.current_device
        zero = (0, 0)

        def stats() -> tuple[int, int]:
            if not is_initialized():
                return zero
            allocated = raw(current_device())["allocated_bytes"]["all"]
            return (allocated["current"], allocated["peak"])

        return cls(torch.cuda.memory_allocated, torch.cuda.max_memory_allocated, stats)


def choose_probe(registry: StorageRegistry, cuda: Any = None) -> Probe:
    """A CUDA probe when CUDA is available, else the recorded-tensors probe.

    ``cuda`` defaults to ``torch.cuda``; tests pass a fake with the same three functions.
    """
    if cuda is None:
        torch = sys.modules.get("torch")  # a lecture that never imports torch has no CUDA memory
        if torch is None:
            return RecordedTensorsProbe(registry)
        if torch.cuda.is_available():
            return CudaProbe.from_torch()
        return RecordedTensorsProbe(registry)
    if cuda.is_available():
        return CudaProbe(cuda.memory_allocated, cuda.max_memory_allocated)
    return RecordedTensorsProbe(registry)
