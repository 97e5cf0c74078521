"""torchrun-style lectures (tracer/capture/ranks/torchrun.py): real torchrun ranks on 127.0.0.1, merged.

``chalktrace run --nproc-per-node`` launches torchrun itself; two torchrun "nodes" on this machine
write shards into one shared directory that ``chalktrace merge`` joins.
"""

from __future__ import annotations

import subprocess
import sys

from helpers.traced import REPO
from tracer.capture.ranks import free_port
from tracer.contract.trace_reading import load_trace


def values_after(trace: dict) -> list:
    streams = trace["ranks"]["launches"][0]["streams"]
    return [[st["env"]["x"]["values"] for st in s["steps"] if "x" in st["env"]][-1] for s in streams]


def test_nproc_per_node_traces_every_rank_of_a_torchrun_script(tmp_path):
    out = tmp_path / "t.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tracer",
            "run",
            "--nproc-per-node",
            "2",
            "--timeout",
            "150",
            "tests/lectures/torchrun_allreduce.py",
            "-o",
            str(out),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=200,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    trace = load_trace(out)
    launch = trace["ranks"]["launches"][0]
    assert (launch["how"], launch["step"], launch["world_size"]) == ("torchrun", None, 2)
    assert values_after(trace) == [[3.0, 3.0], [3.0, 3.0]]
    assert trace["steps"] == launch["streams"][0]["steps"]  # readers unaware of ranks see rank 0


def test_two_torchrun_nodes_on_localhost_write_shards_that_chalktrace_merge_joins(tmp_path):
    shared = tmp_path / "shared"
    port = str(free_port())
    nodes = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "torch.distributed.run",
                "--nnodes",
                "2",
                "--node-rank",
                str(node),
                "--nproc-per-node",
                "1",
                "--master-addr",
                "127.0.0.1",
                "--master-port",
                port,
                "-m",
                "tracer",
                "run",
                "-q",
                "--shard-dir",
                str(shared),
                "tests/lectures/torchrun_allreduce.py",
            ],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for node in (0, 1)
    ]
    for node in nodes:
        _out, err = node.communicate(timeout=180)
        assert node.returncode == 0, err[-2000:]
    out = tmp_path / "merged.json"
    done = subprocess.run(
        [sys.executable, "-m", "tracer", "merge", str(shared), "-o", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    trace = load_trace(out)
    streams = trace["ranks"]["launches"][0]["streams"]
    assert [s["rank"] for s in streams] == [0, 1]
    assert values_after(trace) == [[3.0, 3.0], [3.0, 3.0]]  # 1 + 2 on both ranks
    assert [c["op"] for s in streams for st in s["steps"] for c in st.get("collectives", [])] == ["all_reduce"] * 2
