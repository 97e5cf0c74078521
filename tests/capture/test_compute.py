"""Compute accounting: FLOP counts against the textbook formulas, timing, MFU, the purity rule."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest
from helpers.site import trace_ok
import torch
from torch.utils._python_dispatch import _get_current_dispatch_mode

from tracer.capture.compute import LineMeter
from tracer.capture.replay_safety import is_pure_expression_assignment

FIXTURE = Path(__file__).resolve().parents[1] / "lectures" / "flops_lines.py"


def fake_timer(step_seconds: float = 0.001):
    """Each call returns the previous value plus ``step_seconds``: every timed span is one step."""
    ticks = itertools.count()
    return lambda: next(ticks) * step_seconds


def measure(source: str, namespace: dict, **meter_options) -> dict:
    """Run ``source`` (one statement) with real exec under a LineMeter, as the recorder would."""
    statement = ast.parse(source).body[0]
    code = compile(source, "<line>", "exec")
    meter = LineMeter(statement, **meter_options)
    meter.start()
    try:
        exec(code, namespace, namespace)
    finally:
        record = meter.stop(namespace, namespace)
    return record


def test_matmul_flops():
    m, k, n = 6, 5, 7
    record = measure("c = a @ b", {"a": torch.ones(m, k), "b": torch.ones(k, n)})
    assert record["flops"] == 2 * m * n * k
    assert record["by_op"] == {"aten.mm": 2 * m * n * k}
    assert record["dtype"] == "float32"


def test_batched_matmul_flops():
    b, m, k, n = 3, 4, 5, 6
    namespace = {"torch": torch, "x": torch.ones(b, m, k), "y": torch.ones(b, k, n)}
    record = measure("z = torch.bmm(x, y)", namespace)
    assert record["flops"] == 2 * b * m * n * k
    assert record["by_op"] == {"aten.bmm": 2 * b * m * n * k}


def test_linear_forward_and_backward_flops():
    batch, d_in, d_out = 8, 12, 5
    namespace = {"layer": torch.nn.Linear(d_in, d_out), "x": torch.ones(batch, d_in, requires_grad=True)}
    forward = measure("y = layer(x)", namespace)
    assert forward["flops"] == 2 * batch * d_in * d_out
    assert list(forward["by_op"]) == ["aten.addmm"]
    namespace["loss"] = namespace["y"].sum()
    backward = measure("loss.backward()", namespace)
    # Weight gradient and input gradient are one matmul each; the bias gradient is a sum.
    assert backward["flops"] == 4 * batch * d_in * d_out
    assert namespace["x"].grad is not None


def test_dtype_is_that_of_the_matmul_inputs():
    namespace = {"a": torch.ones(4, 4, dtype=torch.bfloat16), "b": torch.ones(4, 4, dtype=torch.bfloat16)}
    record = measure("c = (a @ b).float()", namespace)
    assert record["dtype"] == "bfloat16"


def test_line_without_matmul_has_no_flops_or_dtype():
    record = measure("c = a + 1", {"a": torch.ones(3)})
    assert record["flops"] == 0 and record["by_op"] == {} and record["dtype"] is None


def test_mfu_on_a_faked_h100():
    syncs = []
    m = k = n = 64
    namespace = {"a": torch.ones(m, k, dtype=torch.bfloat16), "b": torch.ones(k, n, dtype=torch.bfloat16), "out": []}
    record = measure(
        "out.append(a @ b)",
        namespace,
        timer=fake_timer(0.001),
        device_name="NVIDIA H100 80GB HBM3",
        synchronize=lambda: syncs.append(1),
    )
    flops = 2 * m * n * k
    assert record["timing"] == "single" and record["repeats"] == 1
    assert record["seconds"] == pytest.approx(0.001)
    assert record["flop_per_s"] == pytest.approx(flops / 0.001)
    assert record["peak_flop_per_s"] == 989.5e12
    assert record["mfu"] == pytest.approx(flops / 0.001 / 989.5e12)
    assert record["device_name"] == "NVIDIA H100 80GB HBM3" and record["peak_note"] is None
    assert len(syncs) == 2  # before the first timer read, before the second


def test_unknown_device_gives_nulls_with_reason():
    record = measure(
        "out.append(a @ b)",
        {"a": torch.ones(2, 2), "b": torch.ones(2, 2), "out": []},
        timer=fake_timer(),
        device_name="Imaginary GPU 9000",
    )
    assert record["peak_flop_per_s"] is None and record["mfu"] is None
    assert record["peak_note"].startswith("unknown accelerator 'Imaginary GPU 9000'")
    assert record["flop_per_s"] == pytest.approx(16 / 0.001)


def test_cpu_gives_nulls_with_reason():
    record = measure("c = a @ b", {"a": torch.ones(2, 2), "b": torch.ones(2, 2)})
    assert record["device_name"] is None and record["mfu"] is None
    assert record["peak_note"] == "no peak FLOP/s known for CPU"


def test_pure_line_is_replayed_without_rebinding():
    namespace = {"a": torch.ones(3, 3), "b": torch.ones(3, 3)}
    syncs = []
    record = measure("c = a @ b", namespace, timer=fake_timer(0.001), synchronize=lambda: syncs.append(1))
    assert record["timing"] == "replay"
    assert record["repeats"] == 100  # 1 ms each never fills the 0.2 s budget
    assert record["seconds"] == pytest.approx(0.001)
    assert record["flops"] == 2 * 3 * 3 * 3  # counted on the traced run only
    assert len(syncs) == 2 + 2 * 100
    first = namespace["c"]
    assert measure("d = a @ b", namespace)["timing"] == "replay"
    assert namespace["c"] is first


def test_replay_stops_at_the_time_budget():
    record = measure("c = a @ b", {"a": torch.ones(2, 2), "b": torch.ones(2, 2)}, timer=fake_timer(0.0625))
    # 1/16 s is exact in binary: 3 replays (0.1875 s) are under the 0.2 s budget, 4 are over.
    assert record["timing"] == "replay" and record["repeats"] == 4


def test_slow_line_is_timed_once():
    record = measure("c = a @ b", {"a": torch.ones(2, 2), "b": torch.ones(2, 2)}, timer=fake_timer(2.0))
    assert record["timing"] == "single" and record["seconds"] == pytest.approx(2.0)


def test_side_effects_run_once():
    namespace = {"x": torch.ones(2, 3), "w": torch.ones(3, 4), "xs": []}
    record = measure("xs.append(x @ w)", namespace)
    assert len(namespace["xs"]) == 1 and record["timing"] == "single"

    counter = {"calls": 0}

    def f(x):
        counter["calls"] += 1
        return x @ namespace["w"]

    namespace["f"] = f
    record = measure("y = f(x)", namespace)
    assert counter["calls"] == 1 and record["timing"] == "single"
    assert record["flops"] == 2 * 2 * 3 * 4  # counted inside the called function


def test_line_reading_its_own_target_runs_once():
    namespace = {"h": torch.ones(2, 3), "w": torch.ones(3, 3)}
    record = measure("h = h @ w", namespace)
    assert record["timing"] == "single"
    assert torch.equal(namespace["h"], torch.full((2, 3), 3.0))


def test_failing_line_still_measured_and_modes_left():
    namespace = {"a": torch.ones(2, 3), "b": torch.ones(3, 2), "c": torch.ones(5, 5)}
    with pytest.raises(RuntimeError):
        measure("d = (a @ b) @ c", namespace)
    assert _get_current_dispatch_mode() is None


def test_nested_meters_both_count():
    a, b = torch.ones(4, 5), torch.ones(5, 6)
    outer = LineMeter(None)
    outer.start()
    a @ b
    inner = LineMeter(None)
    inner.start()
    a @ b
    inner_record = inner.stop({}, {})
    outer_record = outer.stop({}, {})
    assert inner_record["flops"] == 2 * 4 * 5 * 6
    assert outer_record["flops"] == 2 * 2 * 4 * 5 * 6
    assert _get_current_dispatch_mode() is None


@pytest.mark.parametrize(
    "source, pure",
    [
        ("c = a @ b", True),
        ("c: torch.Tensor = a @ b", True),
        ("q, k = x.chunk(2, dim=-1)", True),
        ("y = torch.matmul(x, w).relu().sum(dim=0)", True),
        ("y = F.softmax(x @ w.T / 8, dim=-1)", True),
        ("y = torch.nn.functional.gelu(x)", True),
        ("y = einops.einsum(x, w, 'b i, i o -> b o')", True),
        ("y = x[:, 0] * 2 if flag else x", True),
        ("y = x.to(torch.bfloat16) @ w.to(torch.bfloat16)", True),
        ("h = h @ w", False),  # reads its own target
        ("h += x @ w", False),  # augmented: in-place for tensors
        ("x.data = x @ w", False),  # attribute target
        ("out[0] = x @ w", False),  # subscript target
        ("xs.append(x @ w)", False),  # not an assignment
        ("loss.backward()", False),
        ("y = model(x)", False),  # bare-name call: could be anything
        ("y = f(x)", False),
        ("y = einsum(x, w, 'b i, i o -> b o')", False),  # bare name, even if it is einops'
        ("y = x.add_(1)", False),  # in-place method
        ("y = torch.relu_(x)", False),
        ("y = x.append(w)", False),  # not a known tensor method
        ("y = torch.randn(3) @ w", False),
        ("y = torch.rand_like(x)", False),
        ("y = F.dropout(x, p=0.1)", False),
        ("y = torch.nn.Linear(3, 4)", False),  # constructing a module draws random weights
        ("y = np.random.rand(3)", False),
        ("y = torch.add(x, w, out=z)", False),
        ("y = F.relu(x, inplace=True)", False),
        ("y = torch.cuda.synchronize()", False),
        ("y = [v @ w for v in xs]", False),
        ("y = (z := x @ w)", False),
        ("y = (lambda v: v)(x)", False),
    ],
)
def test_pure_expression_rule(source, pure):
    assert is_pure_expression_assignment(ast.parse(source).body[0]) is pure


def test_no_statement_is_not_pure():
    assert is_pure_expression_assignment(None) is False


@pytest.fixture(scope="module")
def flops_trace(tmp_path_factory):
    return trace_ok(FIXTURE, tmp_path_factory.mktemp("flops"))


def compute_steps(trace) -> dict[tuple[int, bool], dict]:
    return {(s["stack"][-1]["line"], bool(s.get("call"))): s["compute"] for s in trace["steps"] if "compute" in s}


def test_traced_lecture_compute_records(flops_trace):
    b, d, o = 8, 16, 4  # shapes in flops_lines.py
    matmul = 2 * b * d * o
    found = compute_steps(flops_trace)
    assert set(found) == {(16, False), (10, False), (17, False), (19, False)}
    assert found[(16, False)]["flops"] == matmul and found[(16, False)]["timing"] == "replay"
    assert found[(10, False)]["flops"] == matmul  # the @flops line inside project()
    assert found[(17, False)]["flops"] == matmul and found[(17, False)]["timing"] == "single"
    assert found[(19, False)]["flops"] == 2 * 2 * matmul  # dx and dw for both matmuls
    assert found[(19, False)]["by_op"] == {"aten.mm": 2 * 2 * matmul}
    for record in found.values():
        assert record["dtype"] == "float32" and record["peak_note"] == "no peak FLOP/s known for CPU"
    (n_calls,) = [s["env"]["n_calls"] for s in flops_trace["steps"] if "n_calls" in s["env"]]
    assert n_calls["value"] == 1  # the call line ran once despite being measured
