"""Tracing the ranks a lecture starts (tracer/capture/ranks/: spawn.py, worker.py): real gloo ranks on CPU.

Each test runs the real ``chalktrace run`` in a subprocess, so the ranks are real processes with real
collectives. A tag in the environment (inherited by every rank) finds any process left behind.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers.rank_runs import Run, assert_no_orphans
from helpers.traced import traced
from tracer.contract.trace_format import Collective
from tracer.contract.trace_reading import load_trace


def torch_import_seconds() -> float:
    """Wall time of a fresh ``import torch`` now: the machine's speed and load, as the ranks will meet them."""
    start = time.monotonic()
    subprocess.run([sys.executable, "-c", "import torch, torch.distributed, torch.multiprocessing"], check=True)
    return time.monotonic() - start


def never_join_timeout(import_seconds: float) -> float:
    """The never-join run's --timeout: long enough for its chalktrace and both ranks to import torch and
    reach their lines (rank 1 its loop, rank 0 init_process_group) while the raising run's ranks start
    too. Measured as in the fixture, that took 1-2.1 imports on a 2-core machine at load 2.5 and up to
    2.9 with both cores kept busy: 5 imports, never under 10 s, at most 60 s."""
    return min(60.0, max(10.0, 5 * import_seconds))


@pytest.fixture(scope="module")
def failing(tmp_path_factory):
    """The failure runs, started together: their ranks mostly wait (for a peer, or for the timeout).
    Both lectures ask for port 29500: they only meet if the tracer's free port per launch fails.
    The never-join timeout is derived from a torch import timed while the raising run starts."""
    tmp = tmp_path_factory.mktemp("ranks")
    previous = tmp / "never.json"
    previous.write_text('{"schema_version": 1, "previous": true}', encoding="utf-8")  # a trace: -o refuses other files
    raises = Run("tests/lectures/ranks_raises.py", "-o", str(tmp / "raises.json"), "-q")
    timeout = never_join_timeout(torch_import_seconds())
    never = Run("tests/lectures/ranks_never_join.py", "-o", str(previous), "--timeout", f"{timeout:.1f}")
    return {"raises": (raises, tmp / "raises.json"), "never": (never, previous)}


def stream_values(trace: dict, rank: int, name: str) -> list:
    stream = next(s for s in trace["ranks"]["launches"][0]["streams"] if s["rank"] == rank)
    return [step["env"][name]["values"] for step in stream["steps"] if name in step["env"]]


def test_each_rank_is_traced_with_its_values_before_and_after_all_reduce():
    trace = traced("ranks_allreduce")
    launch = trace["ranks"]["launches"][0]
    assert (trace["ranks"]["world_size"], launch["how"], launch["backend"]) == (2, "spawn", "gloo")
    assert [s["rank"] for s in launch["streams"]] == [0, 1]
    assert stream_values(trace, 0, "x") == [[1.0, 2.0], [3.0, 6.0]]
    assert stream_values(trace, 1, "x") == [[2.0, 4.0], [3.0, 6.0]]
    # the launching line is a step of the parent, and the ranks ran inside it
    spawn_step = trace["steps"][launch["step"]]
    assert "mp.spawn" in trace["files"][trace["lecture"]["path"]].splitlines()[spawn_step["stack"][-1]["line"] - 1]
    call = [c for s in launch["streams"] for step in s["steps"] for c in step.get("collectives", [])]
    assert [(c["op"], c["seq"], c["nbytes"], c["sent_nbytes"], c["received_nbytes"], c["algorithm"]) for c in call] == [
        ("all_reduce", 0, 8, 8, 8, "ring")
    ] * 2  # ring all-reduce: 2(n-1)/n of 8 bytes with n = 2
    assert all(c["seconds"] >= 0 for c in call)
    assert all(set(c) <= set(Collective.__annotations__) for c in call)


def test_a_raising_rank_names_itself_and_its_line_stops_the_others_and_leaves_no_process(failing):
    run, out = failing["raises"]
    code, stderr = run.result()
    assert code == 1, stderr
    assert "tests/lectures/ranks_raises.py:15: rank 1 of 2: ValueError: rank 1 cannot go on" in stderr
    assert_no_orphans(run.tag)
    trace = load_trace(out)
    assert trace["status"] == "error" and trace["error"]["rank"] == 1
    streams = {s["rank"]: s for s in trace["ranks"]["launches"][0]["streams"]}
    failing_step = streams[1]["steps"][-1]
    assert (failing_step["stack"][-1]["line"], failing_step["error"]["type"]) == (15, "ValueError")
    assert streams[0]["status"] in ("error", "stopped")  # its peer vanished under its all_reduce
    # the launching line says which rank failed instead of quoting the whole remote traceback
    assert trace["steps"][-1]["error"]["message"] == "rank 1 failed: ValueError: rank 1 cannot go on"


def test_a_rank_that_never_joins_is_named_at_the_timeout_and_the_previous_trace_is_kept(failing):
    run, out = failing["never"]
    code, stderr = run.result()
    assert code == 124, stderr
    assert "rank 1 never joined the process group (last at tests/lectures/ranks_never_join.py:13)" in stderr
    assert "rank 0 waiting in init_process_group" in stderr
    assert out.read_text(encoding="utf-8") == '{"schema_version": 1, "previous": true}'
    assert_no_orphans(run.tag)


def test_a_hang_is_described_by_who_never_joined_who_waits_and_who_never_started():
    from tracer.capture.ranks import describe_hang

    where, what = describe_hang([(0, {"where": "l.py:3", "waiting_in": "init_process_group"}), (1, {"where": "l.py:9"})])
    assert (where, what) == (
        "l.py:9",
        "rank 1 never joined the process group (last at l.py:9); rank 0 waiting in init_process_group",
    )
    assert describe_hang([(2, {"where": "l.py:5", "joined": True, "rank": 2, "waiting_in": "all_reduce"})]) == (
        "l.py:5",
        "rank 2 waiting in all_reduce at l.py:5",
    )
    assert describe_hang([(0, {}), (1, {})])[1] == "ranks 0, 1 still starting (not yet in its function)"


def test_a_failed_rank_fails_the_run_only_when_the_lecture_did_not_handle_it(tmp_path):
    import json
    from types import SimpleNamespace

    from tracer.capture.ranks import SpawnLaunch, SpawnRanks
    from tracer.capture.traced_process import TraceOptions

    boom = {"type": "ValueError", "message": "boom", "traceback": [{"path": "l.py", "line": 7, "function": "worker"}]}

    def finish(directory, escaped):
        directory.mkdir()
        for rank, status in ((0, "ok"), (1, "error")):
            shard = {"shard": {"rank": rank, "status": status, "joined": True}, "steps": [], "files": {}, "sources": {}}
            if status == "error":
                shard["error"] = boom
            (directory / f"launch0-{rank}.json").write_text(json.dumps(shard), encoding="utf-8")
        traced = SimpleNamespace(
            recorder=None, lecture=Path("l.py"), project_root=tmp_path, options=TraceOptions(), on_process_start=lambda hook: None
        )
        traced = SpawnRanks(traced)
        traced._dir = directory
        traced.launches = [SpawnLaunch(0, 0, None, 0.0, 1, [(0, SimpleNamespace(exitcode=0)), (1, SimpleNamespace(exitcode=1))])]
        header = {"status": "error" if escaped else "ok"}
        step = (
            (),
            ("l.py", "main"),
            3,
            {"error": {"type": "ProcessRaisedException", "message": "long"}} if escaped else None,
            (0, 0),
        )
        return traced.finish(header, [step], escaped), header

    line, header = finish(tmp_path / "handled", None)
    assert line is None and header["status"] == "ok" and header["ranks"]["launches"][0]["streams"][1]["status"] == "error"
    line, header = finish(tmp_path / "raised", RuntimeError("spawn failed"))
    assert line == "l.py:7: rank 1 of 2: ValueError: boom" and header["error"]["rank"] == 1


# tests/lectures/ranks_output.py: each rank prints on line 18 and writes to sys.stderr on line 19;
# rank 1 alone warns on line 21; main prints on line 34 after the launch
PRINT, STDERR, WARN, LAUNCHER_PRINT = 18, 19, 21, 34


def rank_stream(trace: dict, rank: int) -> dict:
    return next(s for s in trace["ranks"]["launches"][0]["streams"] if s["rank"] == rank)


def output_by_line(stream: dict, field: str) -> dict[int, str]:
    return {step["stack"][-1]["line"]: step[field] for step in stream["steps"] if step.get(field)}


def test_each_ranks_stdout_stderr_and_warnings_land_on_its_own_steps():
    trace = traced("ranks_output")
    for rank in (0, 1):
        stream = rank_stream(trace, rank)
        assert output_by_line(stream, "stdout") == {PRINT: f"rank {rank} says hello\n"}
        stderr = output_by_line(stream, "stderr")
        assert stderr.pop(STDERR) == f"rank {rank} complains on stderr\n"
        if rank == 1:  # a warning is written to the rank's (captured) stderr, on the line that warned
            assert stderr.pop(WARN).startswith("tests/lectures/ranks_output.py:21: UserWarning: rank 1 is running late")
        assert stderr == {}
        assert not stream.get("truncated")
    # the launcher keeps its own output; nothing a rank wrote leaks onto the launcher's steps
    assert {step["stack"][-1]["line"]: step["stdout"] for step in trace["steps"] if step["stdout"]} == {
        LAUNCHER_PRINT: "launcher done\n"
    }
    assert not any(step.get("stderr") for step in trace["steps"])


def test_a_ranks_output_is_kept_within_the_launchers_budget(tmp_path):
    out = tmp_path / "small.json"
    code, stderr = Run("tests/lectures/ranks_output.py", "-o", str(out), "--max-output-chars", "8").result()
    assert code == 0, stderr
    trace = load_trace(out)
    for rank, written in ((0, 27), (1, 27 + 113)):  # rank 1's warning is 113 characters more on stderr
        stream = rank_stream(trace, rank)
        assert stream["truncated"] == {"stdout_chars": 18, "stderr_chars": written}
        stdout = output_by_line(stream, "stdout")[PRINT]
        assert stdout.startswith("rank ") and stdout.endswith("s hello\n")  # the first 8 and the last 8 characters
        assert "[chalktrace: 2 characters of output not kept here" in stdout
        assert "".join(output_by_line(stream, "stderr").values()).startswith(f"rank {rank} c")
        assert f"tests/lectures/ranks_output.py: rank {rank}: stderr: printed {written} characters" in " ".join(
            stream["warnings"]
        )
    from tracer.contract.trace_notes import trace_notes

    notes = trace_notes(trace)  # what the page says above the lecture
    assert any(note.startswith("tests/lectures/ranks_output.py: rank 1: stderr: printed") for note in notes)


def plots_of(trace, rank: int) -> list[dict]:
    return [r for step in rank_stream(trace, rank)["steps"] for r in step["renderings"] if r["type"] == "plot"]


def test_a_ranks_plot_is_bounded_by_the_launchers_max_plot_points(tmp_path):
    # tests/lectures/ranks_plot.py: rank 0 plots 50 rows
    out = tmp_path / "plot.json"
    code, stderr = Run("tests/lectures/ranks_plot.py", "-o", str(out), "--max-plot-points", "10").result()
    assert code == 0, stderr
    (chart,) = plots_of(load_trace(out), 0)
    assert chart["truncated"] == {"data_points": 50} and len(chart["spec"]["data"]["values"]) <= 10
    code, stderr = Run("tests/lectures/ranks_plot.py", "-o", str(out)).result()  # the default keeps 5,000
    assert code == 0, stderr
    (chart,) = plots_of(load_trace(out), 0)
    assert "truncated" not in chart and len(chart["spec"]["data"]["values"]) == 50


def test_a_crlf_helper_only_a_rank_loads_is_fresh_after_tracing(tmp_path):
    # The rank's shard hashes its files' bytes (as the launcher does) and names the helpers it stepped
    # into, so a CRLF helper that only the rank imported neither looks changed nor "now stepped into".
    from tracer.commands import freshness
    from tracer.capture.runner import run_lecture

    project = tmp_path / "course"
    (project / "lectures").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[project]\nname = 'course'\n", encoding="utf-8")
    helper = project / "lectures" / "rank_helper.py"
    helper.write_bytes(b"# chalktrace: trace\r\ndef double(x):\r\n    y = 2 * x  # @inspect y\r\n    return y\r\n")
    lecture = project / "lectures" / "only_a_rank.py"
    lecture.write_text(
        "import multiprocessing\n\n\ndef worker():\n    import rank_helper\n    rank_helper.double(3)\n\n\n"
        'def main():\n    process = multiprocessing.get_context("fork").Process(target=worker)\n'
        "    process.start()\n    process.join()\n",
        encoding="utf-8",
    )
    out = project / "only_a_rank.json"
    result = run_lecture(lecture, output=out)
    trace = load_trace(out)
    assert result.status == "ok" and "rank_helper" not in sys.modules
    assert trace["stepped_helpers"] == ["lectures/rank_helper.py"]
    rank_steps = trace["ranks"]["launches"][0]["streams"][0]["steps"]
    assert [s["env"]["y"]["value"] for s in rank_steps if "y" in s.get("env", {})] == [6]
    assert freshness.freshness(lecture, out, project) is None
    helper.write_bytes(helper.read_bytes().replace(b"2 * x", b"3 * x"))
    assert freshness.freshness(lecture, out, project) == "stale (changed: lectures/rank_helper.py)"
