"""tracer/commands/trace_diff.py (``chalktrace diff A B``): two real traces of a lecture before and after an edit,
and hand-edited copies of a trace, compared line by line."""

from __future__ import annotations

import copy
import json
import textwrap
from pathlib import Path

import pytest

from tracer import cli
from tracer.commands import trace_diff
from tracer.capture.runner import run_lecture
from tracer.contract.trace_reading import load_trace

BEFORE = """
import torch

from tracer import text


def main():
    text("## Tensors")
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)  # @inspect x
    y = x.T  # @inspect y
    z = torch.zeros(2)  # @inspect z
    n = 151_008_000  # @inspect n
    gone = [1, 2]  # @inspect gone
    print("done")
"""
AFTER = """
import torch

from tracer import text


def main():
    text("## Tensors")
    text("A new paragraph.")
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)  # @inspect x
    x[1, 2] = 7.5
    y = x.T.contiguous()  # @inspect y
    z = torch.zeros(3, dtype=torch.float64)  # @inspect z
    n = 151_008_001  # @inspect n
    print("done!")
"""


def trace_of(root: Path, source: str, name: str) -> Path:
    lecture = root / "lectures" / "v.py"
    lecture.parent.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'scratch'\n")
    lecture.write_text(textwrap.dedent(source).lstrip())
    out = root / f"{name}.json"
    run_lecture(lecture, output=out)
    return out


@pytest.fixture(scope="module")
def before_after(tmp_path_factory):
    root = tmp_path_factory.mktemp("diff")
    return trace_of(root, BEFORE, "before"), trace_of(root, AFTER, "after")


def lines(old: Path, new: Path) -> list[str]:
    return [trace_diff.format_change(c) for c in trace_diff.diff_traces(load_trace(old), load_trace(new))]


def test_an_edit_shows_changed_added_and_removed_values_at_their_new_lines(before_after):
    found = lines(*before_after)
    # Lines after the inserted ones are aligned through the source diff: x is unchanged, so not listed.
    assert not any(" x" in line.split(":", 2)[1] for line in found if line.startswith("lectures/v.py")), found
    assert "lectures/v.py:13 n: 151,008,000 → 151,008,001" in found
    assert "lectures/v.py:11 y stride: [1, 3] → [2, 1]" in found
    assert "lectures/v.py:11 y[2, 1]: 5.0 → 7.5" in found  # the largest difference in the preview
    assert "lectures/v.py:12 z dtype: float32 → float64" in found
    assert "lectures/v.py:12 z shape: [2] → [3]" in found
    assert "lectures/v.py:12 memory: 32 → 72" in found
    assert "lectures/v.py:8 rendering: added markdown 'A new paragraph.'" in found
    assert "lectures/v.py:12 (before) gone: removed [1, 2]" in found
    assert "lectures/v.py:8 step: added" in found and "lectures/v.py:10 step: added" in found
    assert "lectures/v.py:12 (before) step: removed" in found
    assert any(line.startswith("lectures/v.py:14 stdout:") and "'done!'" in line for line in found)
    # Memory that stays different is named where it starts differing, not on every later step.
    assert sum(line.startswith("lectures/v.py:13 memory") for line in found) == 0


def test_a_trace_equals_itself_and_the_command_exits_0(before_after, capsys):
    old, _ = before_after
    assert trace_diff.diff_traces(load_trace(old), load_trace(old)) == []
    assert cli.main(["diff", str(old), str(old)]) == 0
    assert capsys.readouterr().out == ""


def test_the_command_prints_one_line_per_change_and_exits_1(before_after, capsys):
    old, new = before_after
    assert cli.main(["diff", str(old), str(new)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert "lectures/v.py:13 n: 151,008,000 → 151,008,001" in out
    assert out == lines(old, new)


def test_json_output_carries_the_records_and_their_lines(before_after, capsys):
    old, new = before_after
    assert cli.main(["diff", str(old), str(new), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["equal"] is False
    n = next(c for c in data["changes"] if c["name"] == "n")
    assert (n["kind"], n["status"], n["path"], n["line"], n["old"]["value"], n["new"]["value"]) == (
        "value",
        "changed",
        "lectures/v.py",
        13,
        151_008_000,
        151_008_001,
    )
    assert n["text"] == "lectures/v.py:13 n: 151,008,000 → 151,008,001"
    assert {c["status"] for c in data["changes"]} == {"changed", "added", "removed"}


def test_a_missing_trace_is_bad_input(tmp_path, capsys):
    assert cli.main(["diff", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 2
    assert "no such trace file" in capsys.readouterr().err


def test_run_dependent_fields_are_marked_and_left_out_by_default(before_after, tmp_path, capsys):
    old, _ = before_after
    trace = json.loads(old.read_text())
    edited = copy.deepcopy(trace)
    step = edited["steps"][1]
    step["compute"] = {
        "flops": 10,
        "seconds": 0.5,
        "flop_per_s": 20.0,
        "by_op": {"mm": 10},
        "peak_flop_per_s": None,
        "mfu": None,
        "dtype": "float32",
    }
    trace["steps"][1]["compute"] = dict(step["compute"], seconds=0.25, flop_per_s=40.0)
    step["env"]["fp32_seconds"] = {"type": "float", "value": 0.5}
    trace["steps"][1]["env"]["fp32_seconds"] = {"type": "float", "value": 0.1}
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(trace))
    b.write_text(json.dumps(edited))
    changes = trace_diff.diff_traces(load_trace(a), load_trace(b))
    assert {(c.name, c.run_dependent) for c in changes} == {
        ("@flops seconds", True),
        ("@flops flop_per_s", True),
        ("fp32_seconds", True),
    }
    assert trace_diff.drift(changes) == []
    assert cli.main(["diff", str(a), str(b)]) == 0
    assert "3 run-dependent difference(s) left out" in capsys.readouterr().err
    assert cli.main(["diff", str(a), str(b), "--all", "-q"]) == 1
    assert "lectures/v.py:8 fp32_seconds: 0.1 → 0.5" in capsys.readouterr().out


def test_flops_collectives_and_rank_streams_are_compared(before_after, tmp_path):
    old, _ = before_after
    trace = json.loads(old.read_text())
    collective = {
        "op": "all_reduce",
        "seq": 1,
        "dtype": "float32",
        "shape": [4],
        "nbytes": 16,
        "sent_nbytes": 24,
        "received_nbytes": 24,
        "algorithm": "ring",
        "group_size": 4,
        "backend": "gloo",
        "seconds": 0.01,
        "start_seconds": 1.0,
        "async_op": False,
    }
    stream = {
        "rank": 1,
        "spawn_index": 1,
        "status": "ok",
        "frames": copy.deepcopy(trace["frames"]),
        "steps": copy.deepcopy(trace["steps"][:2]),
    }
    stream["steps"][1]["collectives"] = [collective]
    trace["ranks"] = {
        "format": 1,
        "world_size": 2,
        "launches": [{"step": 0, "how": "spawn", "world_size": 2, "backend": "gloo", "streams": [stream]}],
    }
    trace["steps"][1]["compute"] = {
        "flops": 10,
        "seconds": 0.5,
        "flop_per_s": 20.0,
        "by_op": {"mm": 10},
        "peak_flop_per_s": None,
        "mfu": None,
        "dtype": "float32",
    }
    edited = copy.deepcopy(trace)
    edited["steps"][1]["compute"].update(flops=12, by_op={"mm": 12})
    edited_collective = edited["ranks"]["launches"][0]["streams"][0]["steps"][1]["collectives"][0]
    edited_collective.update(nbytes=32, sent_nbytes=48, seconds=0.02)
    edited["ranks"]["launches"][0]["streams"][0]["steps"][1]["memory"]["nbytes"] += 8  # rank memory: run-dependent
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(trace))
    b.write_text(json.dumps(edited))
    changes = trace_diff.diff_traces(load_trace(a), load_trace(b))
    shown = [trace_diff.format_change(c) for c in trace_diff.drift(changes)]
    assert shown == [
        "lectures/v.py:8 FLOPs: 10 → 12",
        'lectures/v.py:8 @flops by_op: {"mm": 10} → {"mm": 12}',
        "lectures/v.py:8 (rank 1) all_reduce nbytes: 16 → 32",
        "lectures/v.py:8 (rank 1) all_reduce sent_nbytes: 24 → 48",
    ]
    hidden = {c.name for c in changes if c.run_dependent}
    assert hidden == {"all_reduce seconds", "memory"}


def test_line_map_pairs_kept_and_edited_lines():
    old = "a = 1\nb = 2\nc = 3\n"
    new = "a = 1\ninserted()\nb = 20\nc = 3\n"
    assert trace_diff.line_map(old, new) == {1: 1, 3: 2, 4: 3}


def test_containers_are_compared_item_by_item():
    def listing(*items):
        return {"type": "list", "items": [{"type": "int", "value": v} for v in items], "length": len(items), "truncated": False}

    assert trace_diff.value_changes("xs", listing(1, 2, 3), listing(1, 5)) == [
        ("len(xs)", 3, 2, ""),
        ("xs[1]", {"type": "int", "value": 2}, {"type": "int", "value": 5}, ""),
        ("xs[2]", {"type": "int", "value": 3}, None, ""),
    ]
    config = {"type": "dict", "items": [[{"type": "str", "value": "lr"}, {"type": "float", "value": 0.1}]]}
    changed = {"type": "dict", "items": [[{"type": "str", "value": "lr"}, {"type": "float", "value": 0.01}]]}
    assert [
        (n, trace_diff.show(o), trace_diff.show(w)) for n, o, w, _ in trace_diff.value_changes("config", config, changed)
    ] == [("config['lr']", "0.1", "0.01")]


def test_speaker_notes_are_compared(before_after, tmp_path):
    old, _ = before_after
    trace = json.loads(old.read_text())
    trace["steps"][1]["speaker_notes"] = ["Ask first."]
    edited = copy.deepcopy(trace)
    edited["steps"][1]["speaker_notes"] = ["Ask first.", "Then show."]
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(trace))
    b.write_text(json.dumps(edited))
    shown = [trace_diff.format_change(c) for c in trace_diff.drift(trace_diff.diff_traces(load_trace(a), load_trace(b)))]
    assert shown == ["lectures/v.py:8 speaker note: added Then show."]


def test_install_paths_are_compared_in_their_portable_forms(before_after, tmp_path):
    # A trace made before paths were written portably names the environment it ran in; another
    # checkout's environment is elsewhere: that is no drift, a different library file is.
    before, _after = before_after
    trace = json.loads(before.read_text(encoding="utf-8"))
    step = next(s for s in trace["steps"] if s.get("env"))
    name = next(iter(step["env"]))

    def variant(where: str, library: str, stream: str) -> dict:
        copied = copy.deepcopy(trace)
        target = next(s for s in copied["steps"] if s.get("env"))
        target["env"][name] = {"type": "str", "value": f"{where}/lib/python3.11/site-packages/{library}/__init__.py"}
        target["stderr"] = f"{where}/lib/python3.11/{stream}/__init__.py:3: UserWarning: old\n"
        return copied

    here, there = variant("/home/a/.venv", "torch", "json"), variant("/opt/ci/env", "torch", "json")
    assert trace_diff.drift(trace_diff.diff_traces(load_like(here, tmp_path, "a"), load_like(there, tmp_path, "b"))) == []
    other = variant("/opt/ci/env", "numpy", "csv")
    found = trace_diff.drift(trace_diff.diff_traces(load_like(here, tmp_path, "a"), load_like(other, tmp_path, "c")))
    assert {c.kind for c in found} == {"value", "output"}


def load_like(trace: dict, directory: Path, name: str) -> dict:
    path = directory / f"{name}.json"
    path.write_text(json.dumps(trace), encoding="utf-8")
    return load_trace(path, validate=False)


def test_floats_rounded_differently_are_run_dependent_and_real_changes_are_drift(before_after, tmp_path):
    # Another CPU sums float32 in another order: a committed trace made on a laptop and the fresh run
    # on a CI runner differ in the last bits of the same results. That is not drift; a changed value is.
    old, _ = before_after
    trace = json.loads(old.read_text())
    step = next(s for s in trace["steps"] if "x" in s.get("env", {}))
    step["env"]["loss"] = {"type": "float", "value": 190.08782958984375}
    step["env"]["big"] = {"type": "float", "value": 1e30}
    rounded = copy.deepcopy(trace)
    moved = next(s for s in rounded["steps"] if "x" in s.get("env", {}))
    moved["env"]["loss"] = {"type": "float", "value": 190.0878448486328}  # one float32 unit in the last place
    moved["env"]["x"]["values"][1][2] = moved["env"]["x"]["values"][1][2] * (1 + 3e-7)
    changed = copy.deepcopy(rounded)
    real = next(s for s in changed["steps"] if "x" in s.get("env", {}))
    real["env"]["loss"] = {"type": "float", "value": 190.1}
    real["env"]["big"] = {"type": "float", "value": float("inf")}
    base, near, far = (load_like(t, tmp_path, n) for t, n in ((trace, "base"), (rounded, "near"), (changed, "far")))
    assert base["environment"]["cpu"] == far["environment"]["cpu"]  # made here: the same CPU arithmetic
    near_changes = trace_diff.diff_traces(base, near)
    assert {c.name for c in near_changes} == {"loss", "x[1, 2]"}
    assert all(c.run_dependent for c in near_changes) and trace_diff.drift(near_changes) == []
    assert {c.name for c in trace_diff.drift(trace_diff.diff_traces(base, far))} == {"loss", "big"}
    # Traced on another CPU, a training loop's rounding grows step by step: 6e-5 apart is no drift
    # there, while 1 part in 100 still is.
    elsewhere = copy.deepcopy(changed)
    elsewhere["environment"]["cpu"] = "aarch64, DEFAULT, 8 threads"
    moved_far = copy.deepcopy(elsewhere)
    next(s for s in moved_far["steps"] if "x" in s.get("env", {}))["env"]["loss"] = {"type": "float", "value": 192.0}
    other, other_far = load_like(elsewhere, tmp_path, "other"), load_like(moved_far, tmp_path, "other_far")
    assert {c.name for c in trace_diff.drift(trace_diff.diff_traces(base, other))} == {"big"}
    assert {c.name for c in trace_diff.drift(trace_diff.diff_traces(base, other_far))} == {"loss", "big"}


@pytest.mark.parametrize("form", [[], ["--json"]])
def test_diff_into_a_pipe_closed_early_still_exits_with_its_answer(form):
    """``chalktrace diff A B | head -1``: the reader closes the pipe; the exit code is still 1
    (different), not 2 (an unreadable trace), and nothing is said on stderr about the pipe."""
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[2]
    traces = [str(repo / "site" / "traces" / f"{name}.json") for name in ("collectives", "lecture_02")]
    diff = subprocess.Popen(
        [sys.executable, "-m", "tracer", "diff", "--all", *form, *traces], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert diff.stdout is not None and diff.stderr is not None
    diff.stdout.readline()
    diff.stdout.close()  # as head does after its first line
    errors = diff.stderr.read().decode()
    assert diff.wait(120) == 1, errors
    assert "Broken pipe" not in errors and "nothing written" not in errors


def test_the_building_blocks_show_what_they_hold():
    assert trace_diff.show({"type": "code", "data": "int x;", "language": "c"}) == "code 'int x;'"
    assert trace_diff.show({"type": "callout", "data": "Mind it.", "tone": "warning"}) == "callout 'Mind it.'"
    assert trace_diff.show({"type": "diff", "a": "x = 1", "b": "x = 2"}) == "diff 'x = 1' -> 'x = 2'"
    assert trace_diff.show({"type": "columns", "cells": ["left", "right"]}) == "columns 'left' | 'right'"
