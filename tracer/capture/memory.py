"""Storage identity and memory probes: which tensors share memory, and how much memory is in use.

``StorageRegistry`` gives each distinct tensor storage a stable small id ("s1", "s2", ... in order
of first appearance, never a raw address) and tracks, through weak references, whether a recorded
storage is still alive. A probe answers "memory now" for each step: ``CudaProbe`` asks the CUDA
caching allocator, ``RecordedTensorsProbe`` sums the live storages the registry has seen. Probes
are tiny objects with one ``sample()`` method so tests can substitute a fake CUDA. This module
must not serialize values or write files.
"""

from __future__ import annotations

import sys
import weakref
from typing import Any, Callable, Protocol


class StorageRegistry:
    """Stable ids for tensor storages, and the bytes of those still alive."""

    def __init__(self) -> None:
        self._next = 1
        # storage key -> [id, storage_nbytes, list of weakrefs to tensors recorded on it]
        self._entries: dict[tuple[Any, ...], list[Any]] = {}
        self.dirty = False  # set when live bytes may have changed since the last live_nbytes()
        self._live_nbytes = 0

    @property
    def storages(self) -> dict[tuple[Any, ...], list[Any]]:
        """Every storage seen so far (read only: the recorder tests it for "any tensor recorded yet")."""
        return self._entries

    def _on_tensor_freed(self, _ref: Any) -> None:
        self.dirty = True

    def storage_id(self, tensor: Any) -> tuple[str, int]:
        """The id and byte size of ``tensor``'s storage, registering the tensor as a holder."""
        storage = tensor.untyped_storage()
        nbytes = int(storage.nbytes())
        ptr = storage.data_ptr()
        key: tuple[Any, ...] = (str(tensor.device), ptr) if ptr else ("empty", id(tensor))
        entry = self._entries.get(key)
        if entry is not None and not any(r() is not None for r in entry[2]):
            entry = None  # the old storage died and its address was reused: a new storage
        if entry is None:
            entry = [f"s{self._next}", nbytes, []]
            self._next += 1
            self._entries[key] = entry
        entry[1] = max(entry[1], nbytes)
        entry[2] = [r for r in entry[2] if r() is not None]
        try:
            entry[2].append(weakref.ref(tensor, self._on_tensor_freed))
        except TypeError:  # some tensor subclasses refuse weak references
            pass
        self.dirty = True
        return entry[0], nbytes

    def live_nbytes(self) -> int:
        if self.dirty:
            self.dirty = False
            self._live_nbytes = sum(
                e[1] for e in self._entries.values() if any(r() is not None for r in e[2])
            )
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

    def __init__(self, allocated: Callable[[], int], max_allocated: Callable[[], int],
                 stats: Callable[[], tuple[int, int]] | None = None) -> None:
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
