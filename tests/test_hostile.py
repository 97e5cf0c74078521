"""Hostile lectures: each case gives its expected message and exit code, loses no file,
and leaves a valid trace (or, for bad input, none). Fixtures are in tests/lectures/hostile/.

Runs go through ``cli.main`` in this process (the real command, minus a torch import per case);
the site-side cases (escaping, error cards, bounds) are in test_hostile_site.py.
"""

from __future__ import annotations

import json
import shutil
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracer import cli
from tracer.capture.output_budget import OutputBudget
from tracer.capture.runner import run_lecture
from tracer.contract.trace_reading import load_trace
from helpers.xss_attacks import attack

REPO = Path(__file__).resolve().parent.parent
HOSTILE = REPO / "tests" / "lectures" / "hostile"


def run(capsys, lecture: str, out: Path, *extra: str) -> tuple[int, str]:
    code = cli.main(["run", str(HOSTILE / lecture), "-o", str(out), "-q", *extra])
    return int(code), capsys.readouterr().err


def steps_env(trace: dict) -> dict:
    env: dict = {}
    for step in trace["steps"]:
        env.update(step["env"])
    return env


# -- outputs -----------------------------------------------------------------------------------
@pytest.fixture
def project(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'scratch'\n", encoding="utf-8")
    (tmp_path / "lectures").mkdir()
    for name in ("plain.py", "chdir_away.py"):
        shutil.copy(HOSTILE / name, tmp_path / "lectures" / name)
    return tmp_path


def test_output_onto_the_lectures_own_source_is_refused(project, capsys, monkeypatch):
    monkeypatch.chdir(project)
    source = (project / "lectures" / "plain.py").read_text(encoding="utf-8")
    code = cli.main(["run", "lectures/plain.py", "-o", "lectures/plain.py"])
    assert code == 2
    assert "lectures/plain.py: refusing to write the trace onto the lecture's own source" in capsys.readouterr().err
    assert (project / "lectures" / "plain.py").read_text(encoding="utf-8") == source


def test_output_onto_an_existing_non_trace_file_is_refused(project, capsys, monkeypatch):
    monkeypatch.chdir(project)
    notes = project / "notes.txt"
    notes.write_text("keep me\n", encoding="utf-8")
    code = cli.main(["run", "lectures/plain.py", "-o", "notes.txt"])
    assert code == 2
    assert "notes.txt: exists and is not a chalktrace trace; refusing to overwrite it" in capsys.readouterr().err
    assert notes.read_text(encoding="utf-8") == "keep me\n"


def test_output_replaces_a_previous_trace(project, capsys, monkeypatch):
    monkeypatch.chdir(project)
    assert cli.main(["run", "lectures/plain.py", "-o", "out.json", "-q"]) == 0
    assert cli.main(["run", "lectures/plain.py", "-o", "out.json", "-q"]) == 0
    assert load_trace(project / "out.json")["status"] == "ok"


def test_relative_output_is_resolved_before_the_lecture_changes_directory(project, capsys, monkeypatch):
    monkeypatch.chdir(project)
    code = cli.main(["run", "lectures/chdir_away.py", "-o", "out/chdir.json", "-q"])
    assert code == 0
    assert load_trace(project / "out" / "chdir.json")["status"] == "ok"
    assert Path.cwd() == project  # the runner restores the working directory


# -- exits and statuses ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "lecture, code, status, message",
    [
        ("exit_zero.py", 1, "exited", "exit_zero.py:8: SystemExit: sys.exit(0) called: the lecture ended before main() returned"),
        ("exit_three.py", 1, "exited", "exit_three.py:8: SystemExit: sys.exit(3) called"),
        ("interrupted.py", 130, "interrupted", "interrupted.py:6: KeyboardInterrupt: interrupted (KeyboardInterrupt)"),
        ("os_exit.py", 1, "exited", "os_exit.py:7: os._exit: os._exit(0) called"),
    ],
)
def test_a_lecture_that_does_not_complete_has_a_status_a_message_and_a_nonzero_exit(
    tmp_path, capsys, lecture, code, status, message
):
    out = tmp_path / "t.json"
    got, err = run(capsys, lecture, out)
    assert got == code
    assert message in err
    trace = load_trace(out)
    assert trace["status"] == status
    assert trace["steps"][-1]["error"]["message"] == trace["error"]["message"]
    assert steps_env(trace)["n"]["value"] == 1  # recorded up to where it stopped


@pytest.mark.parametrize("lecture", ["fork_child_exit.py", "fork_child_returns.py"])
def test_a_forked_child_never_writes_the_trace(tmp_path, capsys, lecture):
    out = tmp_path / "t.json"
    got, err = run(capsys, lecture, out)
    assert got == 0, err
    trace = load_trace(out)
    assert trace["status"] == "ok"
    if lecture == "fork_child_returns.py":
        assert steps_env(trace)["who"]["value"] == "parent"


@pytest.mark.parametrize(
    "lecture, message",
    [
        (
            "generator_main.py",
            "generator_main.py:4: main() is a generator function (it contains `yield`): calling it runs nothing",
        ),
        ("no_main.py", "no_main.py:1: no main() function to trace"),
        ("main_not_callable.py", "main_not_callable.py:3: main is not callable (it is of type int)"),
    ],
)
def test_a_main_that_cannot_be_run_is_bad_input_and_writes_nothing(tmp_path, capsys, lecture, message):
    out = tmp_path / "t.json"
    got, err = run(capsys, lecture, out)
    assert got == 2
    assert message in err
    assert not out.exists()


@pytest.mark.parametrize("lecture, name", [("async_main.py", "m"), ("main_assigned.py", "x"), ("main_imported.py", "y")])
def test_async_assigned_and_imported_mains_are_traced(tmp_path, capsys, lecture, name):
    out = tmp_path / "t.json"
    got, err = run(capsys, lecture, out)
    assert got == 0, err
    assert name in steps_env(load_trace(out))


def test_check_lists_every_file_it_skips_and_why(tmp_path):
    from tracer.commands import freshness

    lectures = tmp_path / "lectures"
    lectures.mkdir()
    for name in ("main_assigned.py", "main_imported.py", "_main_source.py", "no_main.py", "plain.py"):
        shutil.copy(HOSTILE / name, lectures / name)
    assert [p.name for p in freshness.discover(lectures)] == ["main_assigned.py", "main_imported.py", "plain.py"]
    assert [(p.name, why) for p, why in freshness.skipped(lectures)] == [
        ("_main_source.py", "helper module (name starts with _)"),
        ("no_main.py", "no main at module level (define `def main():`)"),
    ]


# -- values ------------------------------------------------------------------------------------
def test_an_int_too_long_to_print_becomes_a_placeholder_and_a_warning(tmp_path, capsys):
    out = tmp_path / "t.json"
    got, err = run(capsys, "huge_int.py", out)
    assert got == 0
    assert "huge_int.py:5: int: int with 5,001 digits (more than 1,000)" in err
    env = steps_env(load_trace(out))
    assert env["big"] == {
        "type": "unrepresentable",
        "class": "int",
        "reason": "int with 5,001 digits (more than 1,000)",
        "preview": "≈1e5000",
    }
    assert env["small"]["value"] == 1


def test_lone_surrogates_become_replacement_characters_and_the_trace_is_utf8(tmp_path, capsys):
    out = tmp_path / "t.json"
    got, err = run(capsys, "lone_surrogate.py", out)
    assert got == 0
    assert "lone_surrogate.py:5: str: 1 lone surrogate(s) (not valid UTF-8) shown as U+FFFD" in err
    trace = json.loads(out.read_bytes().decode("utf-8"))  # strict UTF-8
    env = steps_env(trace)
    assert env["s"]["value"] == "a\ufffdb"
    assert env["d"]["items"][0][0]["value"] == "k\ufffd"
    assert "a\ufffdb" in "".join(step["stdout"] for step in trace["steps"])


def test_values_whose_repr_or_len_fail_are_placeholders_with_warnings(tmp_path, capsys):
    out = tmp_path / "t.json"
    got, err = run(capsys, "bad_repr.py", out)
    assert got == 0
    assert "bad_repr.py:20: BadRepr: repr() raised RuntimeError: no repr for you" in err
    assert "bad_repr.py:22: BadLen: cannot encode: RuntimeError: no len" in err
    env = steps_env(load_trace(out))
    assert env["a"]["repr_error"] == "RuntimeError: no repr for you"
    assert len(env["b"]["repr"]) <= 500
    assert env["c"]["type"] == "unrepresentable"


def test_numpy_arrays_with_negative_strides_complex_and_object_dtypes(tmp_path, capsys):
    out = tmp_path / "t.json"
    got, err = run(capsys, "numpy_odd.py", out)
    assert got == 0, err
    env = steps_env(load_trace(out))
    assert env["small_flipped"]["values"] == [[3, 4, 5], [0, 1, 2]]
    flipped = env["flipped"]["values"]  # 30 x 40, reversed rows: previewed as 2-D with its shape
    assert env["flipped"]["shape"] == [30, 40]
    assert flipped[0][0] == 1160 and flipped[0][-1] == 1199 and flipped[-1][0] == 0 and "…" in flipped
    assert env["z"]["values"] == [[1.0, 2.0], [3.0, -4.0]]
    assert env["big_z"]["values"][0][0] == [1.0, 0.0]
    assert env["objs"]["values"] == [1, "a", None]
    assert env["empty"]["values"] == []


# -- @flops runs user code once ------------------------------------------------------------------
def test_flops_lines_with_side_effects_run_exactly_once(tmp_path, capsys):
    out = tmp_path / "t.json"
    got, err = run(capsys, "flops_side_effects.py", out)
    assert got == 0, err
    trace = load_trace(out)
    env = steps_env(trace)
    assert env["n"]["value"] == 5  # a counter incremented on an @flops line, 5 times
    assert env["first"]["value"] == 5.0  # np.add(out, a, out) on an @flops line, 5 times
    computes = [s["compute"] for s in trace["steps"] if "compute" in s]
    assert len(computes) == 10 and all(c["timing"] == "single" and c["repeats"] == 1 for c in computes)


# -- bounds ----------------------------------------------------------------------------------------
def test_printed_output_keeps_head_and_tail_with_a_note(tmp_path, capsys):
    out = tmp_path / "t.json"
    got, err = run(capsys, "printer.py", out)
    assert got == 0
    assert "printer.py: stdout: printed 40,960,000 characters; kept the first 100,000 and the last 100,000" in err
    trace = json.loads(out.read_text(encoding="utf-8"))  # 80,003 steps: schema validation alone takes seconds
    printed = "".join(step["stdout"] for step in trace["steps"])
    assert len(printed) < 201_000
    assert printed.startswith("x" * 1023 + "\n")
    assert "[chalktrace: 40,760,000 characters of output not kept here" in printed
    assert printed.endswith("x" * 1023 + "\n")
    assert trace["truncated"] == {"stdout_chars": 40_960_000}
    assert out.stat().st_size < 20_000_000


def test_output_budget_trims_one_huge_write_to_head_and_tail():
    budget = OutputBudget(head_chars=10, tail_chars=5)
    first, second, third = {}, {}, {}
    budget.attach(first, "abcdefgh")
    budget.attach(second, "ijklmnopqrstuvwxyz")
    budget.attach(third, "12")
    assert budget.finish().startswith("printed 28 characters")
    assert first["stdout"] == "abcdefgh"
    assert second["stdout"].startswith("ij[chalktrace: 13 characters of output not kept here")
    assert second["stdout"].endswith("xyz")
    assert third["stdout"] == "12"


def test_step_cap_is_noted_in_the_trace(tmp_path, capsys):
    out = tmp_path / "t.json"
    got, err = run(capsys, "printer.py", out, "--max-steps", "500")
    assert got == 0
    trace = load_trace(out)
    assert len(trace["steps"]) == 500 and trace["truncated"]["max_steps"] == 500
    assert any("step cap reached" in w for w in trace["warnings"])


def test_plot_data_points_are_bounded_with_a_note(tmp_path, capsys):
    out = tmp_path / "t.json"
    got, err = run(capsys, "plot_extremes.py", out)
    assert got == 0, err
    trace = load_trace(out)
    plots = [r for s in trace["steps"] for r in s["renderings"] if r["type"] == "plot"]
    assert len(plots[1]["spec"]["data"]["values"]) == 5000
    assert plots[1]["spec"]["data"]["values"][1] == {"x": 40, "y": 1600}  # an even sample
    assert plots[1]["truncated"] == {"data_points": 200_000}
    assert "plot_extremes.py:9: plot(): 200,000 data points; kept every 40th (5,000)" in err
    assert out.stat().st_size < 1_000_000
    assert trace["truncated"] == {"max_plot_points": 5000}


def test_max_plot_points_is_a_setting_noted_in_the_trace(tmp_path, capsys):
    from tracer.contract.trace_validation import validation_error
    from tracer.contract.trace_notes import trace_notes

    out = tmp_path / "t.json"
    got, err = run(capsys, "plot_extremes.py", out, "--max-plot-points", "10")
    assert got == 0, err
    trace = load_trace(out)
    assert validation_error(trace) is None
    small, large = [r for s in trace["steps"] for r in s["renderings"] if r["type"] == "plot"]
    assert len(small["spec"]["data"]["values"]) == 10 and "truncated" not in small  # exactly at the cap: kept
    assert [v["x"] for v in large["spec"]["data"]["values"]] == list(range(0, 200_000, 20_000))
    assert large["truncated"] == {"data_points": 200_000}
    assert trace["truncated"] == {"max_plot_points": 10}
    assert "plot data sampled: at most 10 points kept per plot" in trace_notes(trace)
    assert "plot(): 200,000 data points; kept every 20,000th (10), a plot keeps at most 10" in err
    # no plot over the cap: no note
    got, err = run(capsys, "plot_extremes.py", out, "--max-plot-points", "200000")
    assert got == 0 and load_trace(out)["truncated"] is None and "plot()" not in err
    with pytest.raises(SystemExit) as info:
        run(capsys, "plot_extremes.py", out, "--max-plot-points", "0")
    assert info.value.code == 2 and "--max-plot-points: must be at least 1, got 0" in capsys.readouterr().err


def test_stderr_and_warnings_are_kept_on_their_steps_within_the_output_bound(tmp_path, capsys):
    out = tmp_path / "t.json"
    got, err = run(capsys, "stderr_writer.py", out)
    assert got == 0, err
    trace = load_trace(out)
    by_line = {}
    for step in trace["steps"]:
        line = step["stack"][-1]["line"]
        by_line[line] = (by_line.get(line, ("", ""))[0] + step["stdout"], by_line.get(line, ("", ""))[1] + step.get("stderr", ""))
    assert by_line[8] == ("to stdout\n", "")
    assert by_line[9] == ("", "to stderr\n")
    assert by_line[10][1] == (
        "tests/lectures/hostile/stderr_writer.py:10: UserWarning: careful: this is a lecture "
        'warning\n  warnings.warn("careful: this is a lecture warning")\n'
    )
    assert by_line[12] == ("", "err 0\nerr 1\nerr 2\n")
    # the lecture's stderr is in the trace, not on the terminal; chalktrace's own warnings stay on the terminal
    assert "to stderr" not in err and "UserWarning" not in err
    assert "stderr_writer.py:8: @inspect not_defined_here: NameError" in err
    assert not any("not_defined_here" in s.get("stderr", "") for s in trace["steps"])
    assert trace["truncated"] is None

    got, err = run(capsys, "stderr_writer.py", out, "--max-output-chars", "10")
    trace = load_trace(out)
    assert got == 0 and trace["truncated"] == {"stderr_chars": 174}
    kept = "".join(s.get("stderr", "") for s in trace["steps"])
    assert kept == (
        "to stderr\n[chalktrace: 154 characters of output not kept here; a trace keeps the first 10 "
        "and the last 10]\nr 1\nerr 2\n"
    )
    assert "stderr_writer.py: stderr: printed 174 characters; kept the first 10 and the last 10" in err


# -- the site built from hostile traces ----------------------------------------------------------
@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory):
    from helpers.site import build_site

    traces = tmp_path_factory.mktemp("hostile-traces")
    for name in (
        "script_title",
        "exit_zero",
        "interrupted",
        "huge_int",
        "lone_surrogate",
        "numpy_odd",
        "stderr_writer",
        "xss_text",
        "tensor_kinds",
    ):
        run_lecture(HOSTILE / f"{name}.py", output=traces / f"{name}.json")
    (traces / "unreadable.json").write_text('{"schema_version": 1, "lecture": 5}', encoding="utf-8")
    (traces / "deep.json").write_text(deep_trace(traces / "huge_int.json", 50_000, "deep"), encoding="utf-8")
    return build_site(tmp_path_factory.mktemp("hostile-site"), sorted(traces.glob("*.json")))


def test_titles_values_and_output_never_become_live_markup(hostile_site):
    for page in hostile_site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        for payload in ("alert(1)", "alert(3)", "alert(4)"):  # docstring title, inspected str, printed text
            assert f"<script>{payload}" not in html, (page, payload)
    for page in hostile_site.rglob("data.js"):
        text = page.read_text(encoding="utf-8")
        assert "<script>alert(3)" not in text and "\\u003cscript>alert(3)" not in text
    lecture = (hostile_site / "lectures" / "script_title" / "index.html").read_text(encoding="utf-8")
    escaped = "&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;"
    assert f"<title>{escaped} - chalktrace</title>" in lecture
    assert f"<h1>{escaped}</h1>" in lecture
    home = (hostile_site / "index.html").read_text(encoding="utf-8")
    assert f">{escaped}</a></h2>" in home  # the home listing
    assert home.count(escaped) >= 2  # and the nav


def test_stderr_shows_apart_from_stdout_on_the_page_and_in_the_viewer(hostile_site):
    page = hostile_site / "lectures" / "stderr_writer"
    html = (page / "index.html").read_text(encoding="utf-8")
    assert '<pre class="lt-stdout" aria-label="printed output">to stdout\n</pre>' in html
    assert '<pre class="lt-stdout lt-stderr" aria-label="written to stderr">to stderr\n</pre>' in html
    assert "stderr_writer.py:10: UserWarning: careful: this is a lecture warning" in html
    data = "".join(p.read_text(encoding="utf-8") for p in page.rglob("data.js"))
    assert '"stderr":{' in data.replace(" ", "") and "err 0\\nerr 1" not in data  # one entry per step
    assert '"err 1\\n"' in data


def test_statuses_and_placeholders_show_on_their_pages(hostile_site):
    exited = (hostile_site / "lectures" / "exit_zero" / "index.html").read_text(encoding="utf-8")
    assert "This lecture exited before main() returned" in exited and "sys.exit(0) called" in exited
    interrupted = (hostile_site / "lectures" / "interrupted" / "index.html").read_text(encoding="utf-8")
    assert "This lecture was interrupted" in interrupted
    huge = (hostile_site / "lectures" / "huge_int" / "index.html").read_text(encoding="utf-8")
    assert "int with 5,001 digits (more than 1,000)" in huge
    home = (hostile_site / "index.html").read_text(encoding="utf-8")
    assert "did not complete (exited)" in home and "its page could not be built" in home
    unreadable = (hostile_site / "lectures" / "unreadable" / "index.html").read_text(encoding="utf-8")
    assert "lt-page-error" in unreadable and "site/traces/unreadable.json: invalid trace" in unreadable


def test_a_trace_nested_50000_deep_is_one_error_card_and_every_other_page_builds(hostile_site):
    deep = (hostile_site / "lectures" / "deep" / "index.html").read_text(encoding="utf-8")
    assert "lt-page-error" in deep
    assert "site/traces/deep.json: nested deeper than the 100-level limit for a trace; not read" in deep
    for name in ("script_title", "exit_zero", "huge_int", "tensor_kinds", "stderr_writer"):
        page = (hostile_site / "lectures" / name / "index.html").read_text(encoding="utf-8")
        assert "lt-page-error" not in page, name


def test_site_work_per_value_is_bounded_by_the_preview_not_numel():
    """A 10-billion-element tensor (an expanded view: 4 bytes of storage) encodes and renders in well under a second."""
    import time

    import torch

    from tracer.contract import paths
    from tracer.capture.values import ValueEncoder
    from tracer.site.cards.render import HtmlRenderer
    from tracer.site.cards.templates import template_env

    started = time.perf_counter()
    record = ValueEncoder().encode(torch.zeros(1).expand(100_000, 100_000))
    trace = {
        "lecture": {"path": "lectures/x.py"},
        "files": {"lectures/x.py": "t = 1  # @inspect t\n"},
        "steps": [
            {
                "stack": [{"path": "lectures/x.py", "line": 1, "function": "main"}],
                "env": {"t": record},
                "renderings": [],
                "stdout": "",
                "memory": {"nbytes": 4, "peak_nbytes": 4},
            }
        ],
    }
    html = str(HtmlRenderer(trace, template_env(paths.TEMPLATES_DIR)).value("t", record, step_index=0))
    assert record["numel"] == 10_000_000_000 and record["truncated"]
    assert "10,000,000,000" in html or "10B" in html or "1e+10" in html or "10.0B" in html
    assert time.perf_counter() - started < 2.0


BUILD_BUDGET_SECONDS = 60.0  # generous: the build takes ~2 s here; copying a 10^8-long dimension took 30 s
BUILD_BUDGET_NBYTES = 600e6  # and peaked at ~4 GB: itertools.product copied the 1e8-long dimension


def test_a_100_million_element_storage_seen_through_views_of_rank_1_to_4_builds_in_bounded_work(tmp_path):
    """The site's work per value follows its preview, whatever the rank, view or sharing: a page
    inspecting one 1e8-element storage as 1-D, 2-D, 3-D, 4-D and a strided 4-D view builds within a
    fixed time and memory budget (the peak RSS of the build process, measured by its parent)."""
    import subprocess
    import sys

    from helpers.site import REPO as repo

    traces = tmp_path / "traces"
    traces.mkdir()
    assert run_lecture(HOSTILE / "storage_views.py", output=traces / "storage_views.json").status == "ok"
    root = tmp_path / "site"
    (root / "site" / "traces").mkdir(parents=True)
    shutil.copy(repo / "mkdocs.yml", root / "mkdocs.yml")
    shutil.copytree(repo / "site" / "docs", root / "site" / "docs")
    shutil.copy(traces / "storage_views.json", root / "site" / "traces")
    # A parent of its own, so RUSAGE_CHILDREN is the build's peak alone (not this test process's other children).
    measure = (
        "import resource, subprocess, sys, time\n"
        "started = time.perf_counter()\n"
        "done = subprocess.run([sys.executable, '-m', 'mkdocs', 'build', '--strict'], capture_output=True)\n"
        "seconds = time.perf_counter() - started\n"
        "print(done.returncode, seconds, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)\n"
        "sys.stderr.write(done.stderr.decode()[-2000:])\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", measure],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"},
    )
    code, seconds, peak_nbytes = result.stdout.split()
    assert code == "0", result.stderr
    assert float(seconds) < BUILD_BUDGET_SECONDS and int(peak_nbytes) < BUILD_BUDGET_NBYTES, (seconds, peak_nbytes)
    html = (root / "build" / "site" / "lectures" / "storage_views" / "index.html").read_text(encoding="utf-8")
    for shape in ("(100000000,)", "(10000, 10000)", "(1000, 1000, 100)", "(100, 100, 100, 100)", "(50, 15, 100, 34)"):
        assert f"<code>{shape}</code>" in html, shape
    assert "(first 256 of 100000000 elements)" in html


def test_output_and_preview_bounds_are_settings(tmp_path, capsys):
    out = tmp_path / "t.json"
    got, err = run(capsys, "lone_surrogate.py", out, "--max-output-chars", "1")
    assert got == 0
    assert "stdout: printed 4 characters; kept the first 1 and the last 1 (2 not kept)" in err
    trace = load_trace(out)
    assert trace["truncated"] == {"stdout_chars": 4}
    got, err = run(capsys, "numpy_odd.py", out, "--preview-elements", "4")
    env = steps_env(load_trace(out))
    assert env["flipped"]["values"] == [[1160, "…", 1199], "…", [0, "…", 39]] and env["flipped"]["truncated"]


# -- lecture text never runs as script --------------------------------------------------
OWN_SCRIPTS = (".min.js", "chalktrace/viewer.js", "data.js")


def page_findings(site: Path) -> dict[str, list[str]]:
    """Live content (handlers, script URLs, injected scripts) in every page and step-data fragment."""
    from helpers.step_data import unpacked_cards
    from helpers.xss_attacks import live_content

    found: dict[str, list[str]] = {}
    for page in site.rglob("*.html"):
        if hits := live_content(page.read_text(encoding="utf-8"), OWN_SCRIPTS):
            found[str(page.relative_to(site))] = hits
    for data in site.rglob("data.js"):
        text = data.read_text(encoding="utf-8")
        payload = json.loads(text[text.index("{") : text.rindex("}") + 1])
        strings: list[str] = []

        def walk(node) -> None:
            if isinstance(node, str):
                strings.append(node)
            elif isinstance(node, dict):
                for v in node.values():
                    walk(v)
            elif isinstance(node, list):
                for v in node:
                    walk(v)

        walk(payload)
        if "packed" in payload:  # the value cards as the page shows them, not only their packed pieces
            strings.extend(text for card in unpacked_cards(payload) for text in card if text)
        hits = [hit for fragment in strings if "<" in fragment for hit in live_content(fragment)]
        if hits:
            found[str(data.relative_to(site))] = hits
    return found


def test_hostile_prose_links_and_notes_never_become_live_markup(hostile_site):
    assert page_findings(hostile_site) == {}
    page = (hostile_site / "lectures" / "xss_text" / "index.html").read_text(encoding="utf-8")
    assert page.count('<meta http-equiv="Content-Security-Policy"') == 1
    assert "<math" in page and "<strong>bold</strong>" in page and 'href="https://example.org"' in page
    assert ">a link() to script</" in page and "&lt;b&gt;bold&lt;/b&gt; title" in page  # link titles are text


@settings(
    max_examples=3,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(attack(), min_size=12, max_size=12))
def test_generated_attacks_through_text_never_reach_the_built_page(tmp_path_factory, attacks):
    """text() -> trace -> the real MkDocs build: no handler attribute, script or script URL in any page."""
    from helpers.site import build_site

    work = tmp_path_factory.mktemp("attack")
    body = "".join(f"    text({a!r})\n    note({a!r})\n" for a in attacks)
    lecture = work / "attacked.py"
    lecture.write_text(f"from tracer import note, text\n\n\ndef main():\n{body}", encoding="utf-8")
    assert run_lecture(lecture, output=work / "attacked.json").status == "ok"
    site = build_site(work / "site", [work / "attacked.json"])
    assert page_findings(site) == {}


def test_clicking_every_link_of_a_hostile_page_opens_no_dialog(hostile_site, browser):
    """Read mode and step mode (at every step) of the xss_text page: every link clicked, no dialog."""
    from helpers.site import serve
    from playwright.sync_api import Error as PlaywrightError

    lecture_url = "lectures/xss_text/"
    # every link but the code's line numbers and the theme's navigation (links the page makes itself)
    LINKS = "a:not(.lt-ln):not(.md-header a):not(.md-nav a):not(.md-footer a):not(.md-source-file a)"
    with serve(hostile_site) as base:
        page = browser.new_page()
        dialogs: list[str] = []
        refused: list[str] = []  # the page's own scripts must all run under its policy
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.on("console", lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None)
        page.on("pageerror", lambda exc: refused.append(str(exc)))
        page.route(
            "**/*",
            lambda route: (
                route.abort()
                if route.request.url.startswith("http") and not route.request.url.startswith(base)
                else route.continue_()
            ),
        )
        page.goto(base + lecture_url + "#step=2")
        page.wait_for_timeout(300)
        # step mode runs under the policy: the viewer is up and a key steps
        assert page.evaluate("document.querySelector('.lt-v-code') !== null && window.CHALKTRACE_READY !== undefined")
        page.keyboard.press("ArrowRight")
        page.wait_for_timeout(100)
        assert page.evaluate("location.hash") == "#step=3"
        count = page.evaluate("window.CHALKTRACE_DATA.count")
        clicked = 0
        for fragment in ["", *(f"#step={n}" for n in range(count))]:
            page.goto(base + lecture_url + fragment)
            page.wait_for_timeout(50)
            for k in range(page.evaluate(f"document.querySelectorAll('{LINKS}').length")):
                for _attempt in range(3):
                    try:
                        if page.url.split("#")[0] != base + lecture_url:
                            page.goto(base + lecture_url + fragment)  # the last click left the page
                        page.evaluate(f"k => {{ const a = document.querySelectorAll('{LINKS}')[k]; if (a) a.click(); }}", k)
                        page.wait_for_load_state()
                        page.wait_for_timeout(40)  # a javascript: URL runs as a queued task, after the click
                        break
                    except PlaywrightError:  # the click navigated while the evaluation was in flight
                        page.wait_for_load_state()
                clicked += 1
        page.wait_for_timeout(200)
        page.close()
    assert count > 5 and clicked > 50
    assert dialogs == [] and refused == []


# -- sources read as Python reads them --------------------------------------------------
@pytest.mark.parametrize(
    "lecture,word,prose,first_line",
    [
        ("latin1_source.py", "café", "déjà vu", "# -*- coding: latin-1 -*-"),
        ("bom_source.py", "naïve", "BOM first", '"""A UTF-8 source that starts with a BOM (as Windows editors write them)."""'),
    ],
)
def test_a_coding_line_or_a_bom_is_read_as_python_reads_it(tmp_path, capsys, lecture, word, prose, first_line):
    from tracer.contract.files import sha256_file

    out = tmp_path / "t.json"
    got, err = run(capsys, lecture, out)
    assert got == 0, err
    trace = load_trace(out)
    assert steps_env(trace)["word"]["value"] == word
    assert [r["data"] for s in trace["steps"] for r in s["renderings"]] == [prose]
    path = trace["lecture"]["path"]
    assert trace["files"][path].splitlines()[0] == first_line  # the page shows the text, not the BOM
    assert trace["sources"][path] == sha256_file(HOSTILE / lecture)  # freshness hashes the bytes


def test_an_unknown_coding_line_is_bad_input_naming_the_file(tmp_path, capsys):
    lecture = tmp_path / "odd_coding.py"
    lecture.write_bytes(b"# -*- coding: no-such-codec -*-\ndef main():\n    pass\n")
    code = cli.main(["run", str(lecture), "-o", str(tmp_path / "t.json"), "-q"])
    err = capsys.readouterr().err
    assert code == 2 and "odd_coding.py: cannot read lecture:" in err and "no-such-codec" in err, err
    assert not (tmp_path / "t.json").exists()


def test_an_image_outside_the_project_fails_the_run_as_bad_input_naming_the_line(tmp_path, capsys):
    out = tmp_path / "t.json"
    assert run(capsys, "plain.py", out)[0] == 0
    before = out.read_bytes()
    got, err = run(capsys, "image_outside.py", out)
    assert got == 2
    assert "tests/lectures/hostile/image_outside.py:13: image " in err and "is outside the project" in err, err
    assert out.read_bytes() == before  # nothing written: the previous trace is kept


def test_meta_sparse_nested_quantized_and_subclassed_tensors_are_cards_not_placeholders(tmp_path, capsys, hostile_site):
    got, err = run(capsys, "tensor_kinds.py", tmp_path / "t.json")
    assert got == 0 and "warning" not in err, err
    env = steps_env(load_trace(tmp_path / "t.json"))
    assert {name: v["type"] for name, v in env.items()} == {
        "weight": "meta_tensor",
        "sparse": "sparse_tensor",
        "csr": "sparse_tensor",
        "nested": "nested_tensor",
        "quantized": "tensor",
        "tagged": "tensor",
    }
    html = (hostile_site / "lectures" / "tensor_kinds" / "index.html").read_text(encoding="utf-8")
    import html as html_lib

    text = html_lib.unescape(html)
    for shown in (
        "no data (meta)",
        "<dt>bytes</dt><dd>86.0 MiB (if allocated)</dd>",
        "<dt>nnz</dt><dd>3</dd>",
        "crow_indices",
        "<li><code>(4, 3)</code></li>",
        "<dt>scale</dt><dd>0.1</dd>",
        "<dt>zero point</dt><dd>10</dd>",
        ">Tagged (tensor subclass)",
    ):
        assert shown in text, shown
    assert "unrepresentable" not in html and "not shown:" not in html


# -- steps are never lost without a word --------------------------------------------------
def lines_with_steps(trace: dict) -> list[int]:
    return [step["stack"][-1]["line"] for step in trace["steps"]]


def test_a_lecture_switching_the_tracer_off_keeps_its_steps_and_is_told(tmp_path, capsys):
    got, err = run(capsys, "tracer_switched_off.py", tmp_path / "t.json")
    trace = load_trace(tmp_path / "t.json")
    message = (
        "tests/lectures/hostile/tracer_switched_off.py:8: the lecture switched the tracer off here "
        "(sys.settrace(None)); chalktrace kept tracing, so no steps are missing"
    )
    assert got == 0 and message in err and trace["warnings"] == [message]
    assert lines_with_steps(trace) == [7, 8, 9, 10] and steps_env(trace)["after"]["value"] == 2
    assert sys.settrace.__module__ == "sys" and threading.Thread.start.__qualname__ == "Thread.start"  # put back


def test_another_tracer_taking_over_is_named_and_tracing_resumes_when_it_leaves(tmp_path, capsys):
    got, err = run(capsys, "tracer_replaced.py", tmp_path / "t.json")
    trace = load_trace(tmp_path / "t.json")
    where = "tests/lectures/hostile/tracer_replaced.py"
    assert trace["warnings"] == [
        f"{where}:12: the tracer was switched off here; steps after it are missing (replaced by other_tool)",
        f"{where}:14: the other tracer was removed here; chalktrace traces again from here",
    ]
    assert got == 0 and all(w in err for w in trace["warnings"])
    assert lines_with_steps(trace)[-1] == 15 and steps_env(trace)["after"]["value"] == 3


def test_a_tracer_removed_from_c_is_found_when_recording_stops(tmp_path, capsys):
    got, err = run(capsys, "tracer_cleared_in_c.py", tmp_path / "t.json")
    trace = load_trace(tmp_path / "t.json")
    assert trace["warnings"] == [
        "tests/lectures/hostile/tracer_cleared_in_c.py:7: the tracer was switched off here; "
        "steps after it are missing (replaced after this line by code chalktrace could not see)"
    ]
    assert got == 0 and trace["warnings"][0] in err


def test_lines_run_in_a_thread_the_lecture_starts_are_counted_and_said_once(tmp_path, capsys):
    got, err = run(capsys, "thread_lines.py", tmp_path / "t.json")
    trace = load_trace(tmp_path / "t.json")
    # work()'s two lines ran in the thread: both counted, said once on the terminal and in the trace
    note = (
        "tests/lectures/hostile/thread_lines.py:6: work() ran in thread 'worker-1', which chalktrace does not "
        "trace: its lines are not in the trace (2 lines run)"
    )
    assert trace["warnings"] == [note] and err.count(note) == 1
    assert 7 not in lines_with_steps(trace) and steps_env(trace)["result"]["value"] == 45


# -- deep stacks: a trace grows with its steps, not with their depth ------------------------------
def test_a_recursion_error_trace_grows_with_its_steps_not_their_depth(tmp_path, capsys):
    out = tmp_path / "t.json"
    got, err = run(capsys, "recursion_error.py", out)
    assert got == 1 and "recursion_error.py:4: RecursionError: maximum recursion depth exceeded" in err
    trace = load_trace(out)
    steps = trace["steps"]
    assert trace["status"] == "error" and len(steps) > 500
    assert max(len(step["stack"]) for step in steps) > 500
    # every step names its position, each position is written once: a few hundred bytes a step
    # (when each step held its whole stack this trace took 33 MB, about 33 KB a step)
    assert out.stat().st_size < 400 * len(steps)


def deep_trace(base: Path, depth: int, name: str) -> str:
    """A committed-style trace: a real trace of ``base`` whose first value nests ``depth`` lists deep."""
    trace = json.loads(base.read_text(encoding="utf-8"))
    trace["lecture"]["name"] = name
    step = next(s for s in trace["steps"] if s["env"])
    step["env"][next(iter(step["env"]))] = "DEEP"
    return json.dumps(trace).replace('"DEEP"', "[" * depth + "]" * depth, 1)


def test_a_trace_nested_50000_deep_fails_check_naming_file_and_limit(tmp_path):
    import subprocess

    from tracer.contract.trace_reading import MAX_TRACE_DEPTH

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'scratch'\n", encoding="utf-8")
    (tmp_path / "lectures").mkdir()
    shutil.copy(HOSTILE / "plain.py", tmp_path / "lectures" / "plain.py")
    traces = tmp_path / "site" / "traces"
    traces.mkdir(parents=True)
    run_lecture(tmp_path / "lectures" / "plain.py", output=traces / "plain.json")
    (traces / "plain.json").write_text(deep_trace(traces / "plain.json", 50_000, "plain"), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "tracer", "check", "-q"], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 3 and "Traceback" not in done.stderr
    assert f"site/traces/plain.json: nested deeper than the {MAX_TRACE_DEPTH}-level limit for a trace" in done.stderr


# -- where lectures are found: every file gets an answer --------------------------------------------
@pytest.fixture
def course(tmp_path):
    root = tmp_path / "course"
    (root / "lectures" / "a").mkdir(parents=True)
    (root / "lectures" / "b").mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'scratch'\n", encoding="utf-8")
    plain = (HOSTILE / "plain.py").read_text(encoding="utf-8")
    for name in ("intro.py", "a/intro.py", "b/intro.py", "my lecture.py", "señal.py"):
        (root / "lectures" / name).write_text(plain, encoding="utf-8")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "linked.py").write_text(plain, encoding="utf-8")
    (root / "lectures" / "linked.py").symlink_to(tmp_path / "elsewhere" / "linked.py")
    return root


@pytest.mark.parametrize(
    "lecture, message",
    [
        (
            "lectures/linked.py",
            "lectures/linked.py: a link to {elsewhere}/linked.py, outside the course ({root}); "
            "copy the lecture into the course to trace it",
        ),
        (
            "lectures/my lecture.py",
            "lectures/my lecture.py: the name 'my lecture' cannot be part of a page URL; rename "
            "the file with letters, digits, _ . - (e.g. my_lecture.py)",
        ),
        (
            "lectures/señal.py",
            "lectures/señal.py: the name 'señal' cannot be part of a page URL; rename the file with "
            "letters, digits, _ . - (e.g. senal.py)",
        ),
        (
            "lectures/a/intro.py",
            "lectures/a/intro.py: in a subfolder of lectures/: only lectures/*.py are published; "
            "move it up, or pass -o to trace it elsewhere",
        ),
    ],
)
def test_run_refuses_a_lecture_that_cannot_have_its_own_trace_and_page(course, capsys, monkeypatch, lecture, message):
    monkeypatch.chdir(course)
    code = cli.main(["run", lecture, "-q"])
    err = capsys.readouterr().err
    assert code == 2
    assert message.format(elsewhere=course.parent / "elsewhere", root=course) in err.splitlines()
    assert not (course / "site" / "traces").exists()  # nothing written


def test_two_lectures_never_write_one_trace(course, capsys, monkeypatch):
    monkeypatch.chdir(course)
    assert cli.main(["run", "lectures/intro.py", "-q"]) == 0
    written = (course / "site" / "traces" / "intro.json").read_bytes()
    shutil.copy(course / "lectures" / "intro.py", course / "intro.py")  # same name, outside lectures/
    assert cli.main(["run", "intro.py", "-q"]) == 2
    assert (
        "intro.py: its trace site/traces/intro.json is the trace of lectures/intro.py; two lectures cannot "
        "share a trace: rename one, or pass -o"
    ) in capsys.readouterr().err
    assert (course / "site" / "traces" / "intro.json").read_bytes() == written
    assert cli.main(["run", "lectures/a/intro.py", "-o", "a-intro.json", "-q"]) == 0  # -o: the author's choice


def test_check_and_build_give_every_file_under_lectures_an_answer(course, capsys):
    from tracer.commands.build import build
    from tracer.commands.check import check
    from tracer.commands.freshness import discover

    assert [p.name for p in discover(course / "lectures")] == ["intro.py", "my lecture.py", "señal.py"]
    report = check(course, jobs=2, timeout=120, show=False)
    subfolder = (
        "skipped: in a subfolder of lectures/: only lectures/*.py are published (move it up to publish "
        "it; files in subfolders can be imported as helpers)"
    )
    assert report.skipped == [
        f"lectures/linked.py: skipped: a link to {course.parent / 'elsewhere' / 'linked.py'}, outside the course "
        "(copy the lecture into the course to trace it)",
        f"lectures/a/intro.py: {subfolder}",
        f"lectures/b/intro.py: {subfolder}",
    ]
    # the names that cannot be URLs are refused by the run itself, so check fails before any build
    assert sorted(p for p in report.problems if "page URL" in p) == [
        "lectures/my lecture.py: lecture failed: lectures/my lecture.py: the name 'my lecture' cannot be part of a "
        "page URL; rename the file with letters, digits, _ . - (e.g. my_lecture.py)",
        "lectures/señal.py: lecture failed: lectures/señal.py: the name 'señal' cannot be part of a page URL; "
        "rename the file with letters, digits, _ . - (e.g. senal.py)",
    ]
    assert not any("missing" in p for p in report.problems if "my lecture" in p or "señal" in p)
    assert build(course, jobs=2, timeout=120, force=False, site=False, show=False) == 1
    err = capsys.readouterr().err
    assert f"lectures/a/intro.py: {subfolder}" in err and "lectures/linked.py: skipped: a link to" in err
    assert sorted(p.name for p in (course / "site" / "traces").glob("*.json")) == ["intro.json"]


def test_run_timeout_bounds_a_thread_that_outlives_main_and_names_it(tmp_path):
    import subprocess

    out = tmp_path / "t.json"
    done = subprocess.run(
        [sys.executable, "-m", "tracer", "run", str(HOSTILE / "lingering_thread.py"), "-o", str(out), "-q", "--timeout", "2"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 124, done.stderr
    assert (
        "tests/lectures/hostile/lingering_thread.py: timeout: main() returned, but thread 'forever' that the "
        "lecture started still ran after 2s; the trace is written; stopping it"
    ) in done.stderr
    trace = load_trace(out)  # written before the wait, and whole
    assert trace["status"] == "ok" and steps_env(trace)["started"]["value"] is True
    note = [w for w in trace["warnings"] if "'forever'" in w]
    assert len(note) == 1 and note[0].endswith("; it was still running when recording stopped)")
    assert done.stderr.count(note[0]) == 1


# -- init into a path that exists ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "make, message",
    [
        (
            lambda p: p.symlink_to(p.parent / "nowhere"),
            "is a link to {parent}/nowhere, which does not exist; remove the link or choose a new directory",
        ),
        (lambda p: p.write_text("notes\n"), "already exists and is a file, not a folder; choose a new directory"),
        (lambda p: (p.mkdir(), (p / "keep.txt").write_text("x")), "already exists and is not empty; choose a new directory"),
        (lambda p: (p.parent.joinpath("afile").write_text(""),), None),  # the parent is a file: see below
    ],
)
def test_init_answers_every_existing_path_with_one_line_and_exit_2(tmp_path, capsys, make, message):
    target = tmp_path / "course"
    make(target)
    if message is None:
        target = tmp_path / "afile" / "course"
        message = f"{tmp_path}/afile is a file, not a folder; choose a new directory"
    before = sorted(p.name for p in tmp_path.rglob("*"))
    code = cli.main(["init", str(target), "-q"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert err == f"chalktrace: {target}: {message.format(parent=tmp_path)}\n"
    assert sorted(p.name for p in tmp_path.rglob("*")) == before  # nothing written


def test_a_repr_raising_systemexit_keyboardinterrupt_or_cancelled_is_a_placeholder_and_the_lecture_goes_on(tmp_path, capsys):
    out = tmp_path / "t.json"
    got, err = run(capsys, "hostile_values.py", out)
    assert got == 0, err
    trace = load_trace(out)
    env = steps_env(trace)
    for name, exc in (("a", "SystemExit: 3"), ("b", "KeyboardInterrupt"), ("c", "CancelledError")):
        assert env[name]["type"] == "unrepresentable" and exc in env[name]["reason"], env[name]
    assert "hostile_values.py:35: Exits: cannot encode: SystemExit: 3" in err  # the warning names file:line
    assert "hostile_values.py:36: Interrupts: cannot encode: KeyboardInterrupt" in err
    assert env["done"] == {"type": "bool", "value": True}  # the lecture ran to its end
    assert trace["status"] == "ok"


def test_encoding_leaves_no_fingerprints_under_the_lectures_warnings_and_error_state(tmp_path, capsys):
    out = tmp_path / "t.json"
    got, err = run(capsys, "hostile_values.py", out)
    trace = load_trace(out)
    env = steps_env(trace)
    # warnings as errors and np.seterr(all="raise") are the lecture's: the array still encodes,
    # its statistics in float64 (no overflow), and nothing lands in the lecture's stderr
    assert env["big"]["type"] == "ndarray" and env["big"]["stats"]["finite"]["mean"] == 1e308
    assert not any(step.get("stderr") for step in trace["steps"])
    # a dotted @inspect never runs the property again: the lecture printed one read
    stdout = "".join(step["stdout"] for step in trace["steps"])
    assert stdout.count("property ran") == 1 and "reads 1" in stdout
    assert env["counted.total"]["type"] == "missing" and "is a property" in env["counted.total"]["message"]
    assert env["value"] == {"type": "int", "value": 42}
