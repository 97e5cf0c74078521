"""Bandwidth and desync diagnosis on real gloo ranks at 2 and 4 (tracer/capture/ranks/desync_watch.py with
spawn.py, worker.py and collectives.py): each case is a real ``chalktrace run`` in a subprocess."""

from __future__ import annotations

import re

import pytest

from helpers.rank_runs import Run, assert_no_orphans
from tracer.contract.trace_reading import load_trace

CASES = [(kind, world) for kind in ("skip", "extra", "size") for world in (2, 4)]
FIXTURE = "tests/lectures/ranks_desync.py"


class EnvRun(Run):
    def __init__(self, env: dict[str, str], *argv: str) -> None:
        import os

        saved = {key: os.environ.get(key) for key in env}
        os.environ.update(env)  # Run copies os.environ into the child
        try:
            super().__init__(*argv)
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Every desync case and the bandwidth lecture at 2 and 4 ranks, started together (their ranks
    mostly wait for torch to import)."""
    tmp = tmp_path_factory.mktemp("desync")
    started = {}
    for kind, world in CASES:
        out = tmp / f"{kind}{world}.json"
        started[(kind, world)] = (
            EnvRun({"CHALKTRACE_DESYNC": kind, "CHALKTRACE_WORLD": str(world)}, FIXTURE, "-o", str(out), "-q"),
            out,
        )
    for world in (2, 4):
        out = tmp / f"bandwidth{world}.json"
        started[("bandwidth", world)] = (
            EnvRun({"CHALKTRACE_WORLD": str(world)}, "tests/lectures/ranks_bandwidth.py", "-o", str(out), "-q"),
            out,
        )
    return started


def error_line(stderr: str) -> str:
    return [line for line in stderr.splitlines() if line.startswith("tests/lectures/")][-1]


EXPECTED = {
    ("skip", 2): "tests/lectures/ranks_desync.py:20: rank 0 of 2 waits in all_reduce #2 of float32 (4,); "
    "rank 1's #2 is barrier at tests/lectures/ranks_desync.py:21",
    ("skip", 4): "tests/lectures/ranks_desync.py:20: ranks 0, 2, 3 of 4 wait in all_reduce #2 of float32 (4,); "
    "rank 1's #2 is barrier at tests/lectures/ranks_desync.py:21",
    ("size", 2): "tests/lectures/ranks_desync.py:20: rank 0 of 2 waits in all_reduce #2 of float32 (4,); "
    "rank 1's #2 is all_reduce of float32 (8,) at tests/lectures/ranks_desync.py:20",
    ("size", 4): "tests/lectures/ranks_desync.py:20: ranks 0, 2, 3 of 4 wait in all_reduce #2 of float32 (4,); "
    "rank 1's #2 is all_reduce of float32 (8,) at tests/lectures/ranks_desync.py:20",
    ("extra", 2): "tests/lectures/ranks_desync.py:23: rank 0 of 2 waits in all_reduce #4; rank 1 never called it "
    "(its last collective: barrier #3 at tests/lectures/ranks_desync.py:21, then it returned)",
}


@pytest.mark.parametrize("kind,world", CASES)
def test_ranks_that_disagree_are_named_within_seconds_and_leave_no_process(runs, kind, world):
    run, out = runs[(kind, world)]
    code, stderr = run.result()
    assert code == 1, stderr
    line = error_line(stderr)
    if (kind, world) in EXPECTED and kind != "extra":
        # gloo may let mismatched calls through before the ranks are stopped: then they "called" #2
        assert line in (EXPECTED[(kind, world)], re.sub(r" waits? in ", " called ", EXPECTED[(kind, world)]))
    elif (kind, world) in EXPECTED:
        assert line == EXPECTED[(kind, world)]
    else:  # on a loaded machine a rank may not have returned within the watch's grace: it is named apart
        assert line.startswith("tests/lectures/ranks_desync.py:23: rank 0 of 4 waits in all_reduce #4; rank")
        assert re.search(
            r"ranks? [123](, [123])* never called it \((their|its) last collective: barrier #3 at "
            r"tests/lectures/ranks_desync.py:21, then (they|it) returned\)",
            line,
        ), line
    assert "Connection" not in line and "gloo" not in line  # the diagnosis, not the backend's error
    assert_no_orphans(run.tag)
    trace = load_trace(out)  # kept, valid, with every rank's sequence
    launch = trace["ranks"]["launches"][0]
    desync = launch["desync"]
    assert trace["status"] == "error" and desync["message"] == line
    assert [r["rank"] for r in desync["ranks"]] == list(range(world))
    assert all(stream.get("sequence") for stream in launch["streams"])
    waiting = [r for r in desync["ranks"] if r["state"] in ("waiting", "called")]
    entered = max(r["last"]["start_seconds"] for r in desync["ranks"] if r["last"] and r["last"]["n"] == desync["n"])
    # named by the launcher's watch (or at the merge, when a rank's gloo error ended the run first)
    if "found_seconds" in desync:
        assert desync["found_seconds"] - entered < 30
    assert waiting and all(r["where"] for r in desync["ranks"])
    # the launching line says what happened instead of quoting a rank's traceback
    assert trace["steps"][-1]["error"]["message"].startswith("ranks desynchronised: ")


BUS_FACTOR = {
    "all_reduce": lambda n: 2 * (n - 1) / n,
    "broadcast": lambda n: 1.0,
    "reduce": lambda n: 1.0,
    "all_gather_into_tensor": lambda n: (n - 1) / n,
    "reduce_scatter_tensor": lambda n: (n - 1) / n,
    "all_to_all_single": lambda n: (n - 1) / n,
    "send": lambda n: 1.0,
    "recv": lambda n: 1.0,
}
OPERATION_NBYTES = {
    "all_reduce": lambda n: 4096 * 4,
    "broadcast": lambda n: 4096 * 4,
    "reduce": lambda n: 4096 * 4,
    "all_gather_into_tensor": lambda n: n * 4096 * 4,
    "reduce_scatter_tensor": lambda n: n * 4096 * 4,
    "all_to_all_single": lambda n: n * 1024 * 4,
    "send": lambda n: 4096 * 4,
    "recv": lambda n: 4096 * 4,
}


@pytest.mark.parametrize("world", [2, 4])
def test_every_ops_busbw_is_its_algbw_times_the_nccl_tests_factor(runs, world):
    run, out = runs[("bandwidth", world)]
    code, stderr = run.result()
    assert code == 0, stderr
    assert_no_orphans(run.tag)
    trace = load_trace(out)
    seen = set()
    for stream in trace["ranks"]["launches"][0]["streams"]:
        entries = [c for step in stream["steps"] for c in step.get("collectives", [])]
        for c in entries:
            assert c["wait_seconds"] + c["transfer_seconds"] == pytest.approx(c["seconds"], abs=2e-6)
            if c["op"] == "barrier" or c["transfer_seconds"] == 0:
                # no payload; or the rank returned before the last one entered (a broadcast's root, a
                # buffered send): no transfer time of its own, so no figure
                assert "busbw" not in c
                continue
            seen.add(c["op"])
            assert c["algbw"] == pytest.approx(OPERATION_NBYTES[c["op"]](world) / c["transfer_seconds"], rel=1e-3)
            assert c["busbw"] == pytest.approx(c["algbw"] * BUS_FACTOR[c["op"]](world), rel=1e-6)
            assert "peak" not in c  # gloo over loopback
    assert seen == set(BUS_FACTOR)
    # the last rank into each group-wide call waited for nobody (only ranks 0 and 1 send and receive,
    # so on 4 ranks the barrier is seq 7 on those and seq 6 on the others: calls pair by their order)
    by_order: dict[int, list[dict]] = {}
    for stream in trace["ranks"]["launches"][0]["streams"]:
        calls = [c for step in stream["steps"] for c in step.get("collectives", []) if c["op"] not in ("send", "recv")]
        for number, c in enumerate(calls):
            by_order.setdefault(number, []).append(c)
    assert len(by_order) == 7
    for calls in by_order.values():
        assert len(calls) == world and len({c["op"] for c in calls}) == 1
        assert min(c["wait_seconds"] for c in calls) == 0.0


def test_a_rank_stopped_before_its_shard_and_after_its_function_stood_at_its_last_collective():
    # the race a loaded machine can give: rank 1's function had ended (its heartbeat says nowhere) and
    # it was stopped before it wrote its shard (no steps); its sequence still says what it last called
    from tracer.capture.ranks.spawn import _where_they_stood

    call = {"n": 2, "seq": 1, "op": "all_reduce", "dtype": "float32", "shape": [8], "nbytes": 32}
    desync = {
        "ranks": [
            {
                "rank": 0,
                "state": "called",
                "last": {**call, "path": FIXTURE, "line": 20},
                "ended": None,
                "where": f"{FIXTURE}:20",
            },
            {"rank": 1, "state": "different", "last": {**call, "path": FIXTURE, "line": 20}, "ended": None, "where": None},
            {"rank": 2, "state": "never called", "last": None, "ended": None, "where": None},
        ]
    }
    record = {"streams": [{"rank": rank, "steps": []} for rank in range(3)]}
    _where_they_stood(desync, record)
    assert [r["where"] for r in desync["ranks"]] == [f"{FIXTURE}:20", f"{FIXTURE}:20", None]
