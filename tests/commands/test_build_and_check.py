"""Regeneration (tracer/commands/: build, check, freshness, gpu_runs, run_protocol): staleness by content hash, incremental and parallel builds,
CUDA-trace protection, timeouts, missing modules, and `check` never touching site/traces/.

Each test builds a tiny throwaway project (a pyproject.toml marker, lectures/, site/traces/) in
tmp_path; lectures there do not import torch, so the worker processes start quickly.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path


from tracer.commands import build as build_command, check, freshness, gpu_runs, run_protocol
from helpers.projects import LECTURE_A, LECTURE_B, SHARED, make_project
from tracer.contract.trace_reading import load_trace


def build(root: Path, jobs: int = 2, force: bool = False) -> int:
    return build_command.build(root, jobs=jobs, timeout=60, force=force, site=False, show=False)


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / "site" / "traces").glob("*.json"))}


def test_discover_skips_helpers_and_files_without_main(tmp_path):
    root = make_project(tmp_path, {"a.py": LECTURE_A, "_shared.py": SHARED, "notes.py": "X = 1\n"})
    assert [p.name for p in freshness.discover(root / "lectures")] == ["a.py"]


def test_build_traces_everything_then_nothing(tmp_path, capsys):
    root = make_project(tmp_path)
    assert build(root) == 0
    traces = snapshot(root)
    assert sorted(traces) == ["a.json", "b.json"]
    for name in traces:
        load_trace(root / "site" / "traces" / name)  # valid against the schema
    sources = json.loads(traces["a.json"])["sources"]
    assert sorted(sources) == ["lectures/_shared.py", "lectures/a.py"]  # the helper is recorded too
    capsys.readouterr()
    assert build(root) == 0
    assert "nothing to re-trace" in capsys.readouterr().err
    assert snapshot(root) == traces  # untouched


def test_editing_a_helper_makes_the_dependent_lecture_stale(tmp_path, capsys):
    root = make_project(tmp_path)
    assert build(root) == 0
    before = snapshot(root)
    helper = root / "lectures" / "_shared.py"
    helper.write_text(helper.read_text().replace("a + b", "b + a"))
    lecture_a, lecture_b = root / "lectures" / "a.py", root / "lectures" / "b.py"
    why = freshness.freshness(lecture_a, root / "site" / "traces" / "a.json", root)
    assert why is not None and "lectures/_shared.py" in why
    assert freshness.freshness(lecture_b, root / "site" / "traces" / "b.json", root) is None

    report = check.check(root, jobs=2, timeout=60, show=False)
    assert len(report.problems) == 1
    assert report.problems[0].startswith("site/traces/a.json: stale") and "_shared.py" in report.problems[0]
    assert snapshot(root) == before  # check never modifies site/traces/

    capsys.readouterr()
    assert build(root) == 0
    assert "re-tracing 1 of 2" in capsys.readouterr().err
    after = snapshot(root)
    assert after["b.json"] == before["b.json"] and after["a.json"] != before["a.json"]
    assert check.check(root, jobs=2, timeout=60, show=False).problems == []


def test_check_reports_missing_invalid_and_orphan_traces(tmp_path):
    root = make_project(tmp_path)
    assert build(root) == 0
    (root / "site" / "traces" / "a.json").unlink()
    (root / "site" / "traces" / "b.json").write_text('{"schema_version": 1}')
    (root / "site" / "traces" / "gone.json").write_text("{}")
    problems = check.check(root, jobs=2, timeout=60, show=False).problems
    assert any(p.startswith("site/traces/a.json: missing") for p in problems)
    assert any(p.startswith("site/traces/b.json") and "invalid trace" in p for p in problems)
    assert any(p.startswith("site/traces/gone.json: no lecture") for p in problems)


def test_check_command_exit_code_and_one_line_per_problem(tmp_path):
    root = make_project(tmp_path, {"b.py": LECTURE_B})
    done = subprocess.run([sys.executable, "-m", "tracer", "check", "-q"], cwd=root, capture_output=True, text=True)
    assert done.returncode == 3
    assert "site/traces/b.json: missing; run `chalktrace build` and commit the trace" in done.stderr


def test_parallel_build_equals_serial_build(tmp_path):
    serial = make_project(tmp_path / "serial")
    parallel = make_project(tmp_path / "parallel")
    assert build(serial, jobs=1) == 0 and build(parallel, jobs=2) == 0
    assert snapshot(serial) == snapshot(parallel)


def test_two_builds_at_once_leave_valid_traces(tmp_path):
    root = make_project(tmp_path)
    command = [sys.executable, "-m", "tracer", "build", "--no-site", "-q", "-j", "1"]
    first = subprocess.Popen(command, cwd=root, stderr=subprocess.PIPE, text=True)
    second = subprocess.Popen(command, cwd=root, stderr=subprocess.PIPE, text=True)
    assert first.wait(120) == 0 and second.wait(120) == 0
    for trace in (root / "site" / "traces").glob("*.json"):
        load_trace(trace)
    assert not list((root / "site" / "traces").glob(".*.tmp"))  # no temporary files left behind


def fake_cuda_trace(root: Path, name: str) -> Path:
    """Turn a real CPU trace into one that claims to come from a GPU."""
    path = root / "site" / "traces" / name
    trace = json.loads(path.read_text())
    trace["environment"].update(
        device="cuda", gpu_name="NVIDIA H100 80GB HBM3", gpu_total_memory_nbytes=85_017_493_504, memory_source="cuda_allocated"
    )
    path.write_text(json.dumps(trace))
    return path


def test_fresh_cuda_trace_is_kept_and_stale_one_is_refused_without_force(tmp_path, capsys):
    root = make_project(tmp_path, {"b.py": LECTURE_B})
    assert build(root) == 0
    cuda_trace = fake_cuda_trace(root, "b.json")
    kept = cuda_trace.read_bytes()
    lecture = root / "lectures" / "b.py"

    refusal = gpu_runs.cuda_guard(lecture, None, force=False, has_cuda=False)
    assert refusal is not None and refusal.skip and not refusal.blocking
    assert gpu_runs.cuda_guard(lecture, None, force=False, has_cuda=True) is None  # a GPU machine may replace it

    lecture.write_text(lecture.read_text() + "\n# edited\n")
    capsys.readouterr()
    assert build(root) == 1
    err = capsys.readouterr().err
    assert "stale trace made on CUDA" in err and "--force" in err
    assert cuda_trace.read_bytes() == kept

    # `chalktrace run` on this CPU-only machine refuses too (exit 2), and --force replaces it, saying what is lost.
    done = subprocess.run(
        [sys.executable, "-m", "tracer", "run", "lectures/b.py", "-q"], cwd=root, capture_output=True, text=True
    )
    assert done.returncode == 2 and cuda_trace.read_bytes() == kept
    capsys.readouterr()
    assert build(root, force=True) == 0
    assert "the GPU run stays published, kept as site/traces/gpu/b.json" in capsys.readouterr().err
    assert json.loads(cuda_trace.read_text())["environment"]["device"] == "cpu"
    # nothing is lost: the replaced CUDA trace is kept, byte for byte, and `check` accepts it
    assert (root / "site" / "traces" / "gpu" / "b.json").read_bytes() == kept
    assert check.check(root, jobs=1, timeout=60, show=False).problems == []


def test_force_to_another_output_keeps_no_gpu_run(tmp_path):
    root = make_project(tmp_path, {"b.py": LECTURE_B})
    assert build(root) == 0
    elsewhere = root / "b-copy.json"
    elsewhere.write_bytes(fake_cuda_trace(root, "b.json").read_bytes())
    (root / "lectures" / "b.py").write_text(LECTURE_B + "\n# edited\n")
    done = subprocess.run(
        [sys.executable, "-m", "tracer", "run", "lectures/b.py", "-o", str(elsewhere), "--force"],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "GPU memory figures and GPU timings are lost" in done.stderr
    assert not (root / "site" / "traces" / "gpu").exists()


def test_a_forced_run_that_writes_nothing_keeps_no_copy(tmp_path):
    root = make_project(tmp_path, {"b.py": LECTURE_B})
    assert build(root) == 0
    cuda_trace = fake_cuda_trace(root, "b.json")
    kept = cuda_trace.read_bytes()
    (root / "lectures" / "b.py").write_text("def main(:\n")  # a syntax error: nothing is written
    done = subprocess.run(
        [sys.executable, "-m", "tracer", "run", "lectures/b.py", "--force"], cwd=root, capture_output=True, text=True
    )
    assert done.returncode == 2 and "lectures/b.py:1" in done.stderr
    assert cuda_trace.read_bytes() == kept  # still the current trace, so no second copy of it is published
    assert not (root / "site" / "traces" / "gpu" / "b.json").exists()


def test_a_new_gpu_trace_retires_the_kept_gpu_run(tmp_path):
    root = make_project(tmp_path, {"b.py": LECTURE_B})
    assert build(root) == 0
    fake_cuda_trace(root, "b.json")
    (root / "lectures" / "b.py").write_text(LECTURE_B + "\n# edited\n")
    assert build(root, force=True) == 0
    kept = root / "site" / "traces" / "gpu" / "b.json"
    lecture = root / "lectures" / "b.py"
    assert gpu_runs.retire_gpu_run(root, lecture) is None and kept.exists()  # the current trace is a CPU one
    fake_cuda_trace(root, "b.json")  # as if a GPU machine had traced it again
    assert gpu_runs.retire_gpu_run(root, lecture) == "site/traces/gpu/b.json: removed; this GPU trace supersedes it"
    assert not kept.exists()


def test_check_names_every_kept_gpu_run_that_cannot_be_published(tmp_path):
    root = make_project(tmp_path, {"b.py": LECTURE_B})
    assert build(root) == 0
    kept_dir = root / "site" / "traces" / "gpu"
    kept_dir.mkdir()
    (kept_dir / "b.json").write_bytes((root / "site" / "traces" / "b.json").read_bytes())  # a CPU trace
    (kept_dir / "broken.json").write_text("{")
    problems = check.check(root, jobs=1, timeout=60, show=False).problems
    assert "site/traces/gpu/b.json: not a CUDA trace; only GPU runs are kept here" in problems
    assert any(p.startswith("site/traces/gpu/broken.json") for p in problems)

    cuda = fake_cuda_trace(root, "b.json").read_bytes()
    (kept_dir / "b.json").write_bytes(cuda)  # the current trace is a CUDA trace too
    (kept_dir / "gone.json").write_bytes(cuda)
    problems = check.check(root, jobs=1, timeout=60, show=False).problems
    assert ("site/traces/gpu/b.json: superseded by the CUDA trace site/traces/b.json; delete it") in problems
    assert "site/traces/gpu/gone.json: kept GPU run of no lecture lectures/gone.py" in problems


def test_changing_trace_helpers_makes_the_traces_it_affects_stale(tmp_path, capsys):
    root = make_project(tmp_path)  # a.py calls lectures/_shared.py; b.py imports no helper
    assert build(root) == 0
    trace_a = root / "site" / "traces" / "a.json"
    assert json.loads(trace_a.read_text())["stepped_helpers"] == []
    assert freshness.freshness(root / "lectures" / "a.py", trace_a, root) is None

    (root / "pyproject.toml").write_text(
        "[project]\nname = 'scratch'\n\n[tool.chalktrace]\ntrace_helpers = ['lectures/_shared.py']\n"
    )
    assert (
        freshness.freshness(root / "lectures" / "a.py", trace_a, root)
        == "stale ([tool.chalktrace] trace_helpers: lectures/_shared.py now stepped into)"
    )
    assert freshness.freshness(root / "lectures" / "b.py", root / "site" / "traces" / "b.json", root) is None
    problems = check.check(root, jobs=1, timeout=60, show=False).problems
    assert problems == [
        "site/traces/a.json: stale ([tool.chalktrace] trace_helpers: lectures/_shared.py now stepped "
        "into); run `chalktrace build` and commit the trace"
    ]

    capsys.readouterr()
    assert build(root) == 0
    assert "re-tracing 1 of 2 lectures" in capsys.readouterr().err
    trace = load_trace(trace_a)
    assert trace["stepped_helpers"] == ["lectures/_shared.py"]
    assert any(step["stack"][-1]["path"] == "lectures/_shared.py" for step in trace["steps"])  # now stepped into
    assert check.check(root, jobs=1, timeout=60, show=False).problems == []


def test_a_run_that_writes_a_gpu_trace_retires_the_kept_gpu_run(tmp_path, monkeypatch, capsys):
    # `build` runs `chalktrace run -o site/traces/NAME.json`; on a GPU machine that run writes a CUDA trace
    from tracer import cli
    from tracer.commands import run as run_command_module

    root = make_project(tmp_path, {"b.py": LECTURE_B})
    assert build(root) == 0
    cuda = fake_cuda_trace(root, "b.json").read_bytes()
    kept = root / "site" / "traces" / "gpu" / "b.json"
    kept.parent.mkdir()
    kept.write_bytes(cuda)
    (root / "site" / "traces" / "b.json").write_text(
        json.dumps(dict(json.loads(cuda), environment={**json.loads(cuda)["environment"], "device": "cpu"}))
    )

    def run_on_a_gpu(args, lecture):
        (root / "site" / "traces" / "b.json").write_bytes(cuda)
        return 0

    monkeypatch.setattr(run_command_module, "_run_one", run_on_a_gpu)
    monkeypatch.chdir(root)
    assert cli.main(["run", "lectures/b.py", "-o", "site/traces/b.json"]) == 0
    assert "site/traces/gpu/b.json: removed; this GPU trace supersedes it" in capsys.readouterr().err
    assert not kept.exists()


def test_the_run_command_is_what_chalktrace_run_parses_and_the_outcome_reads_it_back(tmp_path):
    from tracer import cli
    from tracer.exit_codes import ExitCode

    request = run_protocol.RunRequest(
        Path("lectures/b.py"), tmp_path / "b.json", timeout=12.5, force=True, options=("--seed", "3")
    )
    command = run_protocol.run_command(request)
    assert command[:3] == [sys.executable, "-m", "tracer"]
    args = cli.build_parser().parse_args(command[3:])  # a renamed option of `run` fails here, not in a build
    assert (args.command, args.lectures, args.output, args.timeout, args.force, args.seed, args.quiet) == (
        "run",
        ["lectures/b.py"],
        str(tmp_path / "b.json"),
        12.5,
        True,
        3,
        True,
    )
    assert "--force" not in run_protocol.run_command(run_protocol.RunRequest(Path("b.py"), tmp_path / "b.json", timeout=1))

    killed = run_protocol.read_outcome(request, None, "", 72.6)
    assert (killed.returncode, killed.message) == (ExitCode.TIMEOUT, "lectures/b.py: timeout: killed after 72.5s")
    failed = run_protocol.read_outcome(
        request, ExitCode.LECTURE_FAILED, "chalktrace: warning: slow\none\n\ntwo\nthree\nfour\n", 1.0
    )
    assert not failed.ok and failed.message == "two\nthree\nfour"  # the last three lines, warnings left out


def test_guarded_run_traces_only_what_the_cuda_guard_lets_through(tmp_path, capsys):
    root = make_project(tmp_path, {"b.py": LECTURE_B})
    assert build(root) == 0
    lecture = root / "lectures" / "b.py"
    cuda_trace = fake_cuda_trace(root, "b.json")
    ran: list[str] = []

    def trace() -> int:
        ran.append("traced")
        return 0

    capsys.readouterr()
    assert gpu_runs.guarded_run(lecture, None, force=False, trace=trace) == 0  # fresh CUDA trace: kept, nothing run
    assert ran == [] and "kept: fresh trace made on CUDA" in capsys.readouterr().err
    lecture.write_text(LECTURE_B + "\n# edited\n")
    assert gpu_runs.guarded_run(lecture, None, force=False, trace=trace) == 2  # stale: refused without --force
    assert ran == [] and "pass --force" in capsys.readouterr().err
    assert gpu_runs.guarded_run(lecture, None, force=True, trace=trace) == 0
    # the forced run wrote nothing (trace() is a stand-in), so the CUDA trace is still current: no copy kept
    assert ran == ["traced"] and not (root / "site" / "traces" / "gpu" / "b.json").exists()
    assert cuda_trace.exists()


# -- value drift -----------------------------------------------------------------------------------
TIMED = """
import time


def main():
    started = time.perf_counter()
    count = sum(range(1000))  # @inspect count
    elapsed_seconds = time.perf_counter() - started  # @inspect elapsed_seconds
"""


def edit_value(trace_file: Path, name: str, value: object) -> None:
    """Hand-edit the recorded value of ``name`` in a committed trace (its sources stay unchanged)."""
    trace = json.loads(trace_file.read_text())
    step = next(s for s in trace["steps"] if name in s["env"])
    step["env"][name]["value"] = value
    trace_file.write_text(json.dumps(trace))


def test_check_fails_on_a_value_that_drifted_from_the_committed_trace(tmp_path):
    root = make_project(tmp_path, {"b.py": LECTURE_B})
    assert build(root) == 0
    edit_value(root / "site" / "traces" / "b.json", "count", 3)
    assert freshness.freshness(root / "lectures" / "b.py", root / "site" / "traces" / "b.json", root) is None
    done = subprocess.run([sys.executable, "-m", "tracer", "check", "-q"], cwd=root, capture_output=True, text=True)
    assert done.returncode == 3
    assert "lectures/b.py:4 count: 3 committed, 2 now" in done.stderr.splitlines()
    assert "site/traces/b.json: 1 value(s) drifted from the committed trace" in done.stderr


def test_check_passes_on_timings_that_differ_from_the_committed_trace(tmp_path):
    root = make_project(tmp_path, {"t.py": TIMED})
    assert build(root) == 0
    edit_value(root / "site" / "traces" / "t.json", "elapsed_seconds", 1234.5)  # no run takes that long
    assert check.check(root, jobs=1, timeout=60, show=False).problems == []
    edit_value(root / "site" / "traces" / "t.json", "count", 1)
    assert check.check(root, jobs=1, timeout=60, show=False).problems[0] == "lectures/t.py:7 count: 1 committed, 499,500 now"


def test_a_cuda_trace_is_not_value_checked_on_a_machine_without_gpu_and_check_says_so(tmp_path):
    root = make_project(tmp_path, {"b.py": LECTURE_B})
    assert build(root) == 0
    edit_value(fake_cuda_trace(root, "b.json"), "count", 3)
    report = check.check(root, jobs=1, timeout=60, show=False)
    assert report.problems == []
    assert report.notes == [
        "site/traces/b.json: values not checked: a CUDA trace (NVIDIA H100 80GB HBM3), and this machine has no GPU"
    ]


# -- what students should not see ------------------------------------------------------------------
RAISES = """
def main():
    w_k = 1  # @inspect w_k
    y = w_q + 1
"""
TEACHES_RAISING = """
def main():
    w_k = 1  # @inspect w_k
    y = w_q + 1  # the error this lecture shows @raises @inspect y
"""
INSPECTS_NOTHING = """
def main():
    w_k = 1  # @inspect w_q
"""


def chalktrace(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tracer", *args], cwd=root, capture_output=True, text=True)


def test_a_lecture_that_raises_fails_check_and_build_naming_file_and_line(tmp_path):
    root = make_project(tmp_path, {"a.py": RAISES})
    done = chalktrace(root, "build", "--no-site", "-q")
    assert done.returncode == 1
    assert "lectures/a.py:4: lecture raised NameError: name 'w_q' is not defined. Did you mean: 'w_k'?" in done.stderr
    assert load_trace(root / "site" / "traces" / "a.json")["status"] == "error"  # the author sees where it broke
    again = chalktrace(root, "build", "--no-site", "-q")  # fresh, but still not what students should see
    assert again.returncode == 1 and "nothing to re-trace" in again.stderr and "lectures/a.py:4: lecture raised" in again.stderr
    checked = chalktrace(root, "check", "-q")
    assert checked.returncode == 3 and "lectures/a.py:4: lecture raised NameError" in checked.stderr


def test_a_lecture_that_teaches_an_exception_passes_when_it_marks_the_line(tmp_path):
    root = make_project(tmp_path, {"a.py": TEACHES_RAISING})
    assert chalktrace(root, "build", "--no-site", "-q").returncode == 0
    assert load_trace(root / "site" / "traces" / "a.json")["status"] == "error"
    checked = chalktrace(root, "check", "-q")
    assert checked.returncode == 0, checked.stderr


def test_an_inspect_that_names_nothing_fails_check_and_build(tmp_path):
    root = make_project(tmp_path, {"a.py": INSPECTS_NOTHING})
    done = chalktrace(root, "build", "--no-site", "-q")
    assert done.returncode == 1
    assert "lectures/a.py:3: @inspect w_q: NameError: name 'w_q' is not defined. Did you mean: 'w_k'?" in done.stderr
    assert chalktrace(root, "check", "-q").returncode == 3


def test_run_says_that_it_replaced_the_previous_good_trace(tmp_path):
    root = make_project(tmp_path, {"a.py": LECTURE_B})
    assert chalktrace(root, "run", "lectures/a.py", "-q").returncode == 0
    (root / "lectures" / "a.py").write_text(textwrap.dedent(RAISES))
    done = chalktrace(root, "run", "lectures/a.py", "-q")
    assert done.returncode == 1
    assert "site/traces/a.json: the previous good trace was replaced by this error trace" in done.stderr
    assert load_trace(root / "site" / "traces" / "a.json")["status"] == "error"


def test_a_renamed_lecture_s_old_trace_and_page_are_removed_by_build_and_named_by_check(tmp_path):
    """``git mv lectures/bpe.py lectures/tokenization.py``: check names the old trace to delete; build
    deletes it (and its kept GPU run), so the site lists the lecture once; a lecture that exists but
    is skipped (a syntax error while editing) keeps its trace."""
    course = tmp_path / "course"
    assert chalktrace(tmp_path, "init", str(course), "-q").returncode == 0
    (course / "lectures" / "bpe.py").write_text(textwrap.dedent(LECTURE_B))
    assert chalktrace(course, "build", "-q").returncode == 0
    assert (course / "build" / "site" / "lectures" / "bpe" / "index.html").is_file()
    (course / "site" / "traces" / "gpu").mkdir()
    (course / "site" / "traces" / "gpu" / "bpe.json").write_bytes((course / "site" / "traces" / "bpe.json").read_bytes())
    (course / "lectures" / "bpe.py").rename(course / "lectures" / "tokenization.py")
    checked = chalktrace(course, "check", "-q")
    assert checked.returncode == 3
    assert (
        "site/traces/bpe.json: no lecture lectures/bpe.py for this trace; delete it (`git rm site/traces/bpe.json`, "
        "or `chalktrace build` removes it)" in checked.stderr
    )
    built = chalktrace(course, "build")
    assert built.returncode == 0, built.stderr
    assert "site/traces/bpe.json: removed (its lecture lectures/bpe.py is gone); commit the deletion" in built.stderr
    assert "site/traces/gpu/bpe.json: removed" in built.stderr
    assert sorted(p.name for p in (course / "site" / "traces").rglob("*.json")) == ["hello.json", "tokenization.json"]
    site = course / "build" / "site"
    assert not (site / "lectures" / "bpe").exists() and (site / "lectures" / "tokenization" / "index.html").is_file()
    assert (site / "index.html").read_text(encoding="utf-8").count('href="lectures/tokenization/"') == 1
    assert chalktrace(course, "check", "-q").returncode == 0
    (course / "lectures" / "tokenization.py").write_text("def main(:\n")  # mid-edit
    chalktrace(course, "build", "--no-site", "-q")
    assert (course / "site" / "traces" / "tokenization.json").is_file()
