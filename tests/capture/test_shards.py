"""Merging rank shards (tracer/capture/ranks/shards.py) and launching torchrun ranks (ranks/torchrun.py).

The tests build shards by hand; tests/capture/test_rank_launch.py merges real ones.
"""

from __future__ import annotations

import json

import pytest

from tracer.capture.ranks import shards
from tracer.contract.trace_validation import validation_error


def shard(rank: int, status: str = "ok", error: dict | None = None, world_size: int = 2) -> dict:
    step = {
        "frame": 0,
        "env": {"rank": {"type": "int", "value": rank}},
        "renderings": [],
        "stdout": "",
        "memory": {"nbytes": 0, "peak_nbytes": 0},
    }
    if error:
        step["error"] = error
    data = {
        "schema_version": 2,
        "lecture": {"name": "t", "path": "lectures/t.py", "title": "T"},
        "frames": [{"path": "lectures/t.py", "line": 5, "function": "main", "parent": None}],
        "sources": {"lectures/t.py": "0" * 64},
        "files": {"lectures/t.py": "x\n" * 9},
        "hidden_lines": {},
        "environment": {"python": "3.11", "torch": None, "device": "cpu", "seed": 0},
        "status": "ok",
        "truncated": None,
        "warnings": [],
        "steps": [step],
        "shard": {"rank": rank, "status": status, "world_size": world_size, "backend": "gloo", "joined": True},
    }
    if error:
        data["error"], data["status"] = error, "error"
    assert validation_error(data) is None  # a shard is a valid trace of one rank
    return data


def write(directory, *items: dict) -> None:
    for item in items:
        (directory / f"rank-{item['shard']['rank']}.json").write_text(json.dumps(item), encoding="utf-8")


def test_merge_orders_ranks_and_keeps_the_lowest_ranks_steps_as_the_trace_steps(tmp_path):
    write(tmp_path, shard(1), shard(0))
    trace, failure = shards.merge_directory(tmp_path)
    assert failure is None and validation_error(trace) is None
    launch = trace["ranks"]["launches"][0]
    assert [s["rank"] for s in launch["streams"]] == [0, 1] and launch["how"] == "torchrun"
    assert trace["steps"][0]["env"]["rank"]["value"] == 0


def test_merge_names_the_failed_rank_and_a_rank_that_wrote_nothing(tmp_path):
    boom = {"type": "ValueError", "message": "boom", "traceback": [{"path": "lectures/t.py", "line": 5, "function": "main"}]}
    write(tmp_path, shard(0, world_size=3), shard(1, "error", boom, world_size=3))
    trace, failure = shards.merge_directory(tmp_path)
    assert failure == "lectures/t.py:5: rank 1 of 3: ValueError: boom"
    assert trace["status"] == "error" and trace["error"]["rank"] == 1
    lost = trace["ranks"]["launches"][0]["streams"][2]
    assert (lost["rank"], lost["status"], lost["steps"]) == (2, "lost", [])
    assert validation_error(trace) is None


def test_merge_refuses_two_shards_of_one_rank_and_an_empty_directory(tmp_path):
    with pytest.raises(shards.ShardError, match="no shards"):
        shards.merge_directory(tmp_path)
    write(tmp_path, shard(0))
    (tmp_path / "again.json").write_text(json.dumps(shard(0)), encoding="utf-8")
    with pytest.raises(shards.ShardError, match="two shards for rank 0"):
        shards.merge_directory(tmp_path)


def test_a_rank_that_exited_without_a_shard_says_how_and_where_it_was_last_seen():
    stream = shards.lost_stream(1, 3, {"where": "lectures/t.py:7", "joined": True, "waiting_in": "all_reduce"})
    assert (stream["status"], stream["exitcode"], stream["steps"], stream["waiting_in"]) == ("exited", 3, [], "all_reduce")
    assert (
        shards.failure_line(stream, 2)
        == "lectures/t.py:7: rank 1 of 2: Exited: exited with code 3 (last seen at lectures/t.py:7)"
    )
    killed = shards.lost_stream(0, -9, None)
    assert (killed["status"], killed["error"]["message"]) == ("stopped", "killed by signal 9")


def test_a_merge_says_where_a_missing_rank_was_seen_then_removes_the_heartbeat_files(tmp_path):
    from tracer.capture.ranks.torchrun import merge

    shared = tmp_path / "shards"
    shared.mkdir()
    write(shared, shard(0))
    (shared / "rank-0.where").write_text(json.dumps({"rank": 0, "where": "lectures/t.py:5", "joined": True}))
    (shared / "rank-1.where").write_text(
        json.dumps({"rank": 1, "where": "lectures/t.py:7", "joined": True, "waiting_in": "all_reduce"})
    )
    (shared / "rank-1.where.tmp").write_text("{")
    (shared / "notes.where").write_text("not a rank's")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "rank-0.json").write_text("{", encoding="utf-8")
    (broken / "rank-0.where").write_text(json.dumps({"rank": 0, "where": "lectures/t.py:5"}))
    with pytest.raises(shards.ShardError, match="not a chalktrace shard"):
        merge(broken, tmp_path / "never.json")
    assert (broken / "rank-0.where").is_file()  # a failed merge keeps them for a look

    result = merge(shared, tmp_path / "t.json")
    assert result.status == "error"
    assert "rank 1 of 2: Lost: ended without writing its trace (last seen at lectures/t.py:7)" in result.message
    stream = json.loads((tmp_path / "t.json").read_text())["ranks"]["launches"][0]["streams"][1]
    assert stream["waiting_in"] == "all_reduce"
    assert sorted(p.name for p in shared.iterdir()) == ["notes.where", "rank-0.json"]
