"""tracer/capture/memory.py: storage identity, the CPU recorded-tensors probe, and the CUDA probe (with a fake CUDA)."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest
import torch

from tracer.capture.memory import CudaProbe, RecordedTensorsProbe, StorageRegistry, choose_probe
from tracer.capture.runner import run_lecture
from tracer.contract.trace_reading import load_trace

LECTURES = Path(__file__).resolve().parents[1] / "lectures"


class FakeCuda:
    """Stands in for ``torch.cuda``: each reading reports 4 KiB more than the last."""

    def __init__(self, available: bool = True) -> None:
        self.available = available
        self.readings = 0
        self.peak = 0

    def is_available(self) -> bool:
        return self.available

    def memory_allocated(self) -> int:
        self.readings += 1
        self.peak = max(self.peak, 4096 * self.readings)
        return 4096 * self.readings

    def max_memory_allocated(self) -> int:
        return self.peak


# -- StorageRegistry -----------------------------------------------------------------------------
def test_ids_in_order_of_first_appearance_and_stable():
    registry = StorageRegistry()
    a, b = torch.zeros(2), torch.zeros(3)
    assert registry.storage_id(b) == ("s1", 12)
    assert registry.storage_id(a) == ("s2", 8)
    assert registry.storage_id(b) == ("s1", 12)
    assert registry.storage_id(b[1:]) == ("s1", 12)  # a view: its base's storage


def test_empty_tensors_get_their_own_ids():
    registry = StorageRegistry()
    first, second = torch.zeros(0), torch.zeros(0)
    assert registry.storage_id(first)[0] != registry.storage_id(second)[0]


# -- CPU probe ------------------------------------------------------------------------------------
def test_cpu_probe_counts_distinct_live_storages():
    registry = StorageRegistry()
    probe = RecordedTensorsProbe(registry)
    assert probe.sample() == (0, 0)
    x = torch.zeros(100)  # 400 bytes
    registry.storage_id(x)
    assert probe.sample() == (400, 400)
    view = x[10:20]
    registry.storage_id(view)  # same storage: not counted twice
    assert probe.sample() == (400, 400)
    y = torch.zeros(25, dtype=torch.float64)  # 200 bytes
    registry.storage_id(y)
    assert probe.sample() == (600, 600)


def test_cpu_probe_drops_deleted_tensors_and_keeps_the_peak():
    registry = StorageRegistry()
    probe = RecordedTensorsProbe(registry)
    x, y = torch.zeros(100), torch.zeros(50)
    registry.storage_id(x)
    registry.storage_id(y)
    assert probe.sample() == (600, 600)
    del x
    gc.collect()
    assert probe.sample() == (200, 600)


def test_cpu_probe_storage_lives_while_a_view_does():
    registry = StorageRegistry()
    probe = RecordedTensorsProbe(registry)
    x = torch.zeros(100)
    registry.storage_id(x)
    row = x[:10]
    registry.storage_id(row)
    del x
    gc.collect()
    assert probe.sample() == (400, 400)  # the view keeps the whole storage alive
    del row
    gc.collect()
    assert probe.sample() == (0, 400)


def test_cpu_probe_counts_tensors_never_recorded_as_nothing():
    registry = StorageRegistry()
    probe = RecordedTensorsProbe(registry)
    unrecorded = torch.zeros(1000)
    assert probe.sample() == (0, 0) and unrecorded.numel() == 1000


# -- choosing a probe ---------------------------------------------------------------------------
def test_choose_probe_uses_cuda_when_available():
    fake = FakeCuda(available=True)
    probe = choose_probe(StorageRegistry(), cuda=fake)
    assert isinstance(probe, CudaProbe) and probe.source == "cuda_allocated"
    assert probe.sample() == (4096, 4096)
    assert probe.sample() == (8192, 8192)


def test_choose_probe_falls_back_to_cpu_without_cuda():
    probe = choose_probe(StorageRegistry(), cuda=FakeCuda(available=False))
    assert isinstance(probe, RecordedTensorsProbe) and probe.source == "cpu_recorded"


def test_default_choice_matches_this_machine():
    probe = choose_probe(StorageRegistry())
    assert isinstance(probe, CudaProbe) == torch.cuda.is_available()


# -- in a trace ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def cpu_trace(tmp_path_factory):
    out = tmp_path_factory.mktemp("mem") / "tensor_views.json"
    run_lecture(LECTURES / "tensor_views.py", output=out, probe_factory=RecordedTensorsProbe)
    return load_trace(out)


def _by_line(trace):
    return {step["stack"][-1]["line"]: step for step in trace["steps"]}


def test_trace_memory_follows_live_recorded_storages(cpu_trace):
    steps = _by_line(cpu_trace)
    assert cpu_trace["environment"]["memory_source"] == "cpu_recorded"
    assert steps[7]["memory"] == {"nbytes": 64, "peak_nbytes": 64}  # x: 4x4 float32
    assert steps[8]["memory"] == {"nbytes": 64, "peak_nbytes": 64}  # row is a view of x
    assert steps[9]["memory"] == {"nbytes": 128, "peak_nbytes": 128}  # xt: a new storage
    assert steps[10]["memory"] == {"nbytes": 64, "peak_nbytes": 128}  # del xt frees it at once
    assert steps[11]["memory"] == {"nbytes": 128, "peak_nbytes": 128}  # y: 8 float64


def test_trace_memory_from_fake_cuda(tmp_path):
    fake = FakeCuda()
    out = tmp_path / "cuda.json"
    run_lecture(LECTURES / "tensor_views.py", output=out, probe_factory=lambda registry: choose_probe(registry, fake))
    trace = load_trace(out)
    assert trace["environment"]["memory_source"] == "cuda_allocated"
    readings = [step["memory"]["nbytes"] for step in trace["steps"]]
    assert readings == [4096 * k for k in range(1, len(readings) + 1)]
    assert all(step["memory"]["peak_nbytes"] == step["memory"]["nbytes"] for step in trace["steps"])
    json.dumps(trace, allow_nan=False)


# -- the live total against the allocator's truth -------------------------------------------------
def test_a_replaced_storage_leaves_the_live_total_and_its_id_is_never_reused():
    registry = StorageRegistry()
    probe = RecordedTensorsProbe(registry)
    w = torch.zeros(100)  # 400 bytes
    ids = [registry.storage_id(w)[0]]
    for size in (200, 300, 50):
        w.data = torch.zeros(size)  # the old storage is freed, w lives on
        ids.append(registry.storage_id(w)[0])
        assert probe.sample()[0] == 4 * size
    assert len(set(ids)) == len(ids)  # a new storage (maybe at an old address) never takes an old id


from hypothesis import given, settings, strategies as st  # noqa: E402

OPS = st.lists(
    st.tuples(st.sampled_from(["create", "view", "data", "del", "inplace", "resize"]), st.integers(0, 7), st.integers(1, 64)),
    max_size=40,
)


@settings(max_examples=60, deadline=None)
@given(OPS)
def test_live_total_is_the_sum_of_distinct_live_storages(ops):
    """After any sequence of create, view, ``.data =``, del and in-place operations (every held
    tensor recorded after each), the probe's live total is the bytes of the distinct storages the
    held tensors use, and two held tensors share a storage id exactly when they share a storage."""
    registry = StorageRegistry()
    probe = RecordedTensorsProbe(registry)
    held: list[torch.Tensor] = []
    for op, which, size in ops:
        target = held[which % len(held)] if held else None
        if op == "create" or target is None:
            held.append(torch.zeros(size, dtype=torch.float32 if size % 2 else torch.float64))
        elif op == "view":
            held.append(target[: max(1, target.numel() // 2)] if target.dim() else target.view(1))
        elif op == "data":
            target.data = torch.ones(size, dtype=target.dtype)
        elif op == "del":
            del held[which % len(held)]
        elif op == "inplace":
            target.add_(1)
        elif (
            op == "resize"
            and target._base is None
            and target.untyped_storage().nbytes() == target.numel() * target.element_size()
        ):
            target.resize_(size)  # the storage grows or stays, in place
        del target
        check_live_total(registry, probe, held)


def check_live_total(registry: StorageRegistry, probe: RecordedTensorsProbe, held: list[torch.Tensor]) -> None:
    ids = {id(t): registry.storage_id(t)[0] for t in held}
    # what the allocator holds for them: their storages, and their bases' (a view keeps its base
    # tensor alive, and with it the base's storage, even after the base's `.data =`)
    reachable, todo, tensor = [], list(held), None
    while todo:
        tensor = todo.pop()
        reachable.append(tensor)
        if tensor._base is not None:
            todo.append(tensor._base)
    storages = {id(t.untyped_storage()): t.untyped_storage().nbytes() for t in reachable}
    del tensor, todo, reachable
    assert probe.sample()[0] == sum(storages.values())
    by_storage: dict[int, set[str]] = {}
    for tensor in held:
        by_storage.setdefault(id(tensor.untyped_storage()), set()).add(ids[id(tensor)])
    assert all(len(names) == 1 for names in by_storage.values())
    assert len({next(iter(names)) for names in by_storage.values()}) == len(by_storage)
