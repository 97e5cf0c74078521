"""tracer/capture/recorder.py: which lines become steps, their stacks, stdout and renderings, and the step cap."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from tracer.capture.runner import run_lecture
from tracer.contract.trace_reading import load_trace
from tracer.contract.trace_validation import validation_error
from helpers.traced import line_of

LECTURES = Path(__file__).resolve().parents[1] / "lectures"


def where(step: dict) -> tuple[str, int]:
    return step["stack"][-1]["function"], step["stack"][-1]["line"]


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    out = tmp_path_factory.mktemp("recorder")
    made = {}
    for name in ("calls_and_comprehensions", "uses_helper", "renderings_demo"):
        run_lecture(LECTURES / f"{name}.py", output=out / f"{name}.json")
        made[name] = load_trace(out / f"{name}.json")
    return made


# -- steps and stacks -----------------------------------------------------------------------------
def test_one_step_per_executed_line_with_call_steps(traces):
    trace = traces["calls_and_comprehensions"]

    def at(fragment):
        return line_of("calls_and_comprehensions", fragment)

    main, twice, square, forward = "main", "twice", "square", "Doubler.forward"
    expected = [
        (main, at("squares = ["), None),
        (main, at("evens = {"), None),
        (main, at("bump = lambda"), None),
        (main, at("g = bump(2)"), None),
        (main, at("total = sum("), None),
        (main, at("s = twice(2)"), True),
        (twice, at("once = square(n)"), True),
        (square, at("result = n * n"), None),
        (square, at("return result"), None),
        (twice, at("once = square(n)"), None),
        (twice, at("return square(once)"), True),
        (square, at("result = n * n"), None),
        (square, at("return result"), None),
        (twice, at("return square(once)"), None),
        (main, at("s = twice(2)"), None),
        (main, at("t = square(2)"), True),
        (square, at("result = n * n"), None),
        (square, at("return result"), None),
        (main, at("t = square(2)"), True),  # one call step per call: square(2), then square(3)
        (square, at("result = n * n"), None),
        (square, at("return result"), None),
        (main, at("t = square(2)"), None),
        (main, at("doubled = Doubler()"), True),
        (forward, at("y = x * 2"), None),
        (forward, at("return y"), None),
        (main, at("doubled = Doubler()"), None),
        (main, at("text = json.dumps"), None),
    ]
    actual = [(*where(s), s.get("call")) for s in trace["steps"]]
    assert actual == expected


def test_call_step_comes_before_callee_and_values_after_return(traces):
    steps = traces["calls_and_comprehensions"]["steps"]
    line = line_of("calls_and_comprehensions", "s = twice(2)")
    indices = [i for i, s in enumerate(steps) if where(s) == ("main", line)]
    call, back = (steps[i] for i in indices)
    assert call.get("call") is True and call["env"] == {}
    assert "call" not in back and back["env"] == {"s": {"type": "int", "value": 16}}
    assert all(len(s["stack"]) > 1 for s in steps[indices[0] + 1 : indices[1]])


def test_callee_values_recorded_per_call(traces):
    steps = traces["calls_and_comprehensions"]["steps"]
    results = [s["env"]["result"]["value"] for s in steps if "result" in s["env"]]
    assert results == [4, 16, 4, 9]


def test_stacks_are_outermost_first(traces):
    steps = traces["calls_and_comprehensions"]["steps"]
    path = "tests/lectures/calls_and_comprehensions.py"
    deepest = max(steps, key=lambda s: len(s["stack"]))
    assert deepest["stack"] == [
        {"path": path, "line": line_of("calls_and_comprehensions", "s = twice(2)"), "function": "main"},
        {"path": path, "line": line_of("calls_and_comprehensions", "once = square(n)"), "function": "twice"},
        {"path": path, "line": line_of("calls_and_comprehensions", "result = n * n"), "function": "square"},
    ]


def test_comprehensions_and_lambdas_add_no_steps(traces):
    steps = traces["calls_and_comprehensions"]["steps"]
    functions = {s["stack"][-1]["function"] for s in steps}
    assert functions == {"main", "twice", "square", "Doubler.forward"}
    squares = [s for s in steps if "squares" in s["env"]]
    assert len(squares) == 1 and [i["value"] for i in squares[0]["env"]["squares"]["items"]] == [0, 1, 4, 9]
    assert [s["env"]["g"]["value"] for s in steps if "g" in s["env"]] == [3]


def test_library_code_never_appears_in_stacks(traces):
    for trace in traces.values():
        for step in trace["steps"]:
            assert all(frame["path"].startswith("tests/lectures/") for frame in step["stack"])
    forward = [s for s in traces["calls_and_comprehensions"]["steps"] if where(s)[0] == "Doubler.forward"]
    # nn.Module.__call__ sits between main and forward; it is library code and is left out.
    assert forward and all([f["function"] for f in s["stack"]] == ["main", "Doubler.forward"] for s in forward)


def test_helper_module_with_the_marker_is_traced(traces):
    trace = traces["uses_helper"]
    helper = "tests/lectures/_helper_mod.py"
    inside = [s for s in trace["steps"] if s["stack"][-1]["path"] == helper]
    assert [where(s) for s in inside] == [
        ("triple", line_of("_helper_mod", "result = n * 3")),
        ("triple", line_of("_helper_mod", "return result")),
    ]
    assert inside[0]["env"]["result"] == {"type": "int", "value": 6}
    assert inside[0]["stack"][0]["path"] == "tests/lectures/uses_helper.py"
    assert set(trace["files"]) == {"tests/lectures/uses_helper.py", helper}
    assert trace["files"][helper] == (LECTURES / "_helper_mod.py").read_text(encoding="utf-8")
    assert set(trace["sources"]) == {"tests/lectures/uses_helper.py", helper}


def scratch_course(root: Path, settings: str = "") -> Path:
    """A throwaway course: pyproject.toml (with optional [tool.chalktrace] lines), a lecture and
    three helpers: one with the marker, one named by the setting, one neither."""
    (root / "pyproject.toml").write_text(f"[project]\nname = 'scratch'\n{settings}", encoding="utf-8")
    lectures = root / "lectures"
    lectures.mkdir()
    helper = "def work(n):\n    total = 0\n    for i in range(n):\n        total += i\n    return total\n"
    (lectures / "_marked.py").write_text("# A helper.\n# chalktrace: trace\n" + helper, encoding="utf-8")
    (lectures / "_listed.py").write_text(helper, encoding="utf-8")
    (lectures / "_plain.py").write_text(helper, encoding="utf-8")
    lecture = lectures / "course.py"
    lecture.write_text(
        "import _listed, _marked, _plain\n\n\ndef main():\n"
        "    a = _marked.work(2)\n    b = _listed.work(2)\n    c = _plain.work(2)  # @inspect c\n",
        encoding="utf-8",
    )
    return lecture


@pytest.mark.parametrize(
    "settings, stepped",
    [
        ("", {"lectures/course.py", "lectures/_marked.py"}),
        (
            "[tool.chalktrace]\ntrace_helpers = ['lectures/_list*.py']\n",
            {"lectures/course.py", "lectures/_marked.py", "lectures/_listed.py"},
        ),
    ],
)
def test_helpers_are_stepped_into_only_when_they_opt_in(tmp_path, settings, stepped):
    lecture = scratch_course(tmp_path, settings)
    result = run_lecture(lecture, output=tmp_path / "t.json")
    trace = load_trace(tmp_path / "t.json")
    assert {s["stack"][-1]["path"] for s in trace["steps"]} == stepped == set(trace["files"])
    assert len([s for s in trace["steps"] if s["stack"][-1]["path"] != "lectures/course.py"]) == 7 * (len(stepped) - 1)
    # every helper is still hashed, so editing an untraced one makes the trace stale
    assert set(trace["sources"]) == {"lectures/course.py", "lectures/_marked.py", "lectures/_listed.py", "lectures/_plain.py"}
    assert result.status == "ok" and trace["steps"][-1]["env"]["c"] == {"type": "int", "value": 1}


def test_bad_helper_setting_is_a_one_line_error(tmp_path):
    from tracer.capture.runner import LectureError

    lecture = scratch_course(tmp_path, "[tool.chalktrace]\ntrace_helpers = 'lectures/_listed.py'\n")
    with pytest.raises(LectureError, match=r"^pyproject.toml: \[tool.chalktrace\] trace_helpers must be a list"):
        run_lecture(lecture, output=tmp_path / "t.json")
    assert not (tmp_path / "t.json").exists()


def test_repository_setting_keeps_accounting_helper_stepped():
    from tracer.contract.helper_files import opted_in, trace_patterns

    root = Path(__file__).resolve().parents[2]
    source = (root / "lectures" / "_accounting.py").read_text(encoding="utf-8")
    assert opted_in("lectures/_accounting.py", source, trace_patterns(root))
    assert not opted_in("lectures/_other.py", "x = 1\n", trace_patterns(root))


# -- def-line @inspect ------------------------------------------------------------------------------
def test_def_line_inspect_records_arguments_on_entry(tmp_path):
    lecture = tmp_path / "entry.py"
    lecture.write_text(
        "import functools\n\n\n"
        "def main():\n"
        "    x = twice(3)  # @inspect x\n"
        "    y = cached(4)\n"
        "    z = twice(5)\n\n\n"
        "def twice(n, *rest, scale=2):  # @inspect n scale missing_name\n"
        "    return n * scale\n\n\n"
        "@functools.cache\n"
        "def cached(\n"
        "    k,\n"
        "):  # @inspect k\n"
        "    return k\n",
        encoding="utf-8",
    )
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'scratch'\n", encoding="utf-8")
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        run_lecture(lecture, output=tmp_path / "t.json")
    trace = load_trace(tmp_path / "t.json")
    assert validation_error(trace) is None
    entries = [(where(s), s["env"]) for s in trace["steps"] if s["env"] and where(s)[0] != "main"]
    int_ = lambda v: {"type": "int", "value": v}  # noqa: E731
    missing = entries[0][1]["missing_name"]
    assert [(w, {k: v for k, v in env.items() if k != "missing_name"}) for w, env in entries] == [
        (("twice", 10), {"n": int_(3), "scale": int_(2)}),
        (("cached", 15), {"k": int_(4)}),  # the def line, not the decorator's
        (("twice", 10), {"n": int_(5), "scale": int_(2)}),
    ]
    assert missing["type"] == "missing"
    assert trace["warnings"] == ["entry.py:10: @inspect missing_name: NameError: name 'missing_name' is not defined"]
    # the entry step comes right after the caller's call step and before the body's first line
    order = [(where(s), bool(s.get("call"))) for s in trace["steps"]][:4]
    assert order == [(("main", 5), True), (("twice", 10), False), (("twice", 11), False), (("main", 5), False)]
    # the def statements themselves run at import, untraced: no "missing" values on main's lines
    assert all(s["env"].keys() <= {"x"} for s in trace["steps"] if where(s)[0] == "main")


def test_def_line_entry_step_respects_the_step_cap(tmp_path):
    lecture = tmp_path / "capped.py"
    lecture.write_text(
        "def main():\n    for i in range(10):\n        f(i)\n\n\ndef f(i):  # @inspect i\n    return i\n", encoding="utf-8"
    )
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'scratch'\n", encoding="utf-8")
    with contextlib.redirect_stderr(io.StringIO()):
        result = run_lecture(lecture, output=tmp_path / "t.json", max_steps=3)
    trace = load_trace(tmp_path / "t.json")
    # main:2, main:3 (call), f:6 (entry) reaches the cap: recording stops there, the lecture runs on
    assert [where(s) for s in trace["steps"]] == [("main", 2), ("main", 3), ("f", 6)]
    assert trace["truncated"] == {"max_steps": 3} and result.status == "ok"


# -- stdout and renderings ----------------------------------------------------------------------------
def test_stdout_is_captured_per_step(traces):
    steps = traces["renderings_demo"]["steps"]

    def stdout_at(fragment):
        line = line_of("renderings_demo", fragment)
        return [s["stdout"] for s in steps if where(s) == ("main", line)]

    assert stdout_at('print("hello from stdout")') == ["hello from stdout\n"]
    assert stdout_at('print("two", "parts")') == ["two parts\n"]
    assert stdout_at('print("same line again")') == ["same line again\n"]
    assert sum(bool(s["stdout"]) for s in steps) == 3


def renderings_at(trace, fragment):
    line = line_of("renderings_demo", fragment)
    (step,) = [s for s in trace["steps"] if where(s) == ("main", line)]
    return step["renderings"]


def test_each_rendering_is_attached_to_its_line(traces):
    trace = traces["renderings_demo"]
    assert renderings_at(trace, 'text("# Renderings demo")') == [{"type": "markdown", "data": "# Renderings demo"}]
    assert renderings_at(trace, 'note("An aside.")') == [{"type": "note", "data": "An aside."}]
    assert renderings_at(trace, 'image("images/renderings_pixel.svg"') == [
        {"type": "image", "width": 40, "data": "tests/lectures/images/renderings_pixel.svg", "external": False}
    ]
    assert renderings_at(trace, 'image("https://') == [
        # tests run offline and the fixture keeps no media cache: the URL, marked for a placeholder
        {"type": "image", "width": None, "data": "https://example.org/figure.png", "external": True, "missing": True}
    ]
    assert renderings_at(trace, "plot(") == [{"type": "plot", "spec": {"mark": "bar", "data": {"values": [{"x": 1, "y": 2}]}}}]
    assert sum(len(s["renderings"]) for s in trace["steps"]) == 8
    assert trace["lecture"]["title"] == "Renderings demo"


def test_local_image_is_hashed_into_sources(traces):
    assert "tests/lectures/images/renderings_pixel.svg" in traces["renderings_demo"]["sources"]


def test_link_to_function_points_at_its_code(traces):
    (link,) = renderings_at(traces["renderings_demo"], "link(helper)")
    assert link == {
        "type": "link",
        "url": None,
        "title": "helper",
        "internal": {
            "path": "tests/lectures/renderings_demo.py",
            "line": line_of("renderings_demo", "def helper"),
            "function": "helper",
        },
    }


def test_link_to_record_keeps_other_attributes(traces):
    (link,) = renderings_at(traces["renderings_demo"], "link(Paper(")
    assert link["url"] == "https://example.org/paper" and link["title"] == "A paper"
    assert link["attrs"] == {"authors": "A. Author", "year": 2020}
    (plain,) = renderings_at(traces["renderings_demo"], 'link("https://example.org/plain"')
    assert plain["url"] == "https://example.org/plain" and plain["title"] == "Plain" and plain["internal"] is None


def test_missing_image_is_a_clear_error_naming_the_line(tmp_path):
    result = run_lecture(LECTURES / "missing_image.py", output=tmp_path / "t.json")
    line = line_of("missing_image", 'image("images')
    assert result.error_line == (
        f"tests/lectures/missing_image.py:{line}: FileNotFoundError: image not found: images/no_such_picture.png"
    )
    trace = load_trace(tmp_path / "t.json")
    assert trace["steps"][-1]["error"]["traceback"][-1]["line"] == line


def test_a_missing_image_with_a_close_name_beside_it_is_suggested(tmp_path):
    from helpers.projects import make_project

    root = make_project(tmp_path, {"bpe.py": 'from tracer import image\n\n\ndef main():\n    image("images/bpe_merge.png")\n'})
    (root / "lectures" / "images").mkdir()
    (root / "lectures" / "images" / "bpe_merges.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (root / "lectures" / "images" / "loss_curve.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    result = run_lecture(root / "lectures" / "bpe.py", output=tmp_path / "t.json")
    assert result.error_line == (
        "lectures/bpe.py:5: FileNotFoundError: image not found: images/bpe_merge.png; did you mean bpe_merges.png?"
    )


# -- step cap -----------------------------------------------------------------------------------------
def test_step_cap_stops_recording_but_the_lecture_finishes(tmp_path, monkeypatch):
    marker = tmp_path / "finished.txt"
    monkeypatch.setenv("CHALKTRACE_TEST_MARKER", str(marker))
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        result = run_lecture(LECTURES / "many_steps.py", output=tmp_path / "t.json", max_steps=50)
    assert marker.read_text(encoding="utf-8") == str(sum(range(200)))  # ran to the very end
    trace = load_trace(tmp_path / "t.json")
    assert validation_error(trace) is None
    assert result.status == "ok" and trace["truncated"] == {"max_steps": 50}
    assert len(trace["steps"]) == 50 == result.steps
    assert any("step cap" in w for w in trace["warnings"])
    assert "step cap reached (50 steps)" in stderr.getvalue()


def test_step_cap_is_exact_with_calls_returns_and_def_line_steps(tmp_path):
    # Call steps, returns (a chain of them with no line between) and def-line @inspect steps append
    # outside the per-line check; every cap, whichever kind of step reaches it, is kept exactly.
    full = run_lecture(LECTURES / "many_calls.py", write=False)
    assert full.status == "ok" and full.steps > 120 and not full.warnings
    kinds = set()
    for cap in range(1, 121):
        seen = []
        with contextlib.redirect_stderr(io.StringIO()):
            result = run_lecture(LECTURES / "many_calls.py", write=False, max_steps=cap, on_recorder=seen.append)
        assert result.steps == cap and seen[0].truncated, cap
        last = seen[0].steps[-1]
        kinds.add("call" if last[3] == {"call": True} else "entry" if last[3] and "env" in last[3] else "line")
    assert kinds == {"call", "entry", "line"}  # each append path was the one to reach a cap


def test_cli_max_steps_exact_with_many_calls(tmp_path):
    from tracer import cli
    from tracer.contract.trace_notes import trace_notes

    out = tmp_path / "t.json"
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        code = cli.main(["run", str(LECTURES / "many_calls.py"), "-o", str(out), "--max-steps", "9"])
    trace = load_trace(out)
    assert code == 0 and validation_error(trace) is None
    assert len(trace["steps"]) == 9 and trace["truncated"] == {"max_steps": 9}
    assert "recording stopped after 9 steps" in trace_notes(trace)
    assert "step cap reached (9 steps)" in stderr.getvalue() and ", 9 steps in" in stderr.getvalue()


def test_no_cap_when_under_the_limit(tmp_path):
    run_lecture(LECTURES / "many_steps.py", output=tmp_path / "t.json")
    trace = load_trace(tmp_path / "t.json")
    assert trace["truncated"] is None and len(trace["steps"]) == 2 + 2 * 200 + 1 + 1


def test_hot_path_tuples_follow_the_step_fields():
    # The hot path appends plain tuples for speed; they must line up with recorder.RecordedStep's fields.
    from tracer.capture.recorder import CALL, EXTRAS, KEY, LINE, MEMORY, PREFIX, RecordedStep

    seen = []
    run_lecture(LECTURES / "calls_and_comprehensions.py", write=False, on_recorder=seen.append)
    steps = seen[0].steps
    fields = RecordedStep._fields
    assert (PREFIX, KEY, LINE, EXTRAS, MEMORY) == tuple(fields.index(n) for n in ("prefix", "key", "line", "extras", "memory"))
    assert len(fields) == 5
    assert any(type(s) is tuple for s in steps) and any(s[EXTRAS] is CALL for s in steps)
    for raw in steps:
        step = RecordedStep._make(raw)
        assert isinstance(step.line, int) and step.line >= 1
        assert len(step.key) == 2 and all(isinstance(part, str) for part in step.key)
        assert step.key[0] == "tests/lectures/calls_and_comprehensions.py"
        assert all(isinstance(p, str) and isinstance(n, int) and isinstance(f, str) for p, n, f in step.prefix)
        assert step.extras is None or isinstance(step.extras, dict)
        assert len(step.memory) == 2 and all(isinstance(n, int) for n in step.memory)


# -- a lecture written for execute_util runs unchanged ------------------------------------------------
COURSE = LECTURES / "execute_util_course"
OTHER = "tests/lectures/execute_util_course/other_format.py"


@pytest.fixture(scope="module")
def other_format(tmp_path_factory):
    out = tmp_path_factory.mktemp("other") / "other_format.json"
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        result = run_lecture(COURSE / "other_format.py", output=out)
    return result, load_trace(out), stderr.getvalue()


def other_line(fragment: str) -> int:
    lines = (COURSE / "other_format.py").read_text(encoding="utf-8").splitlines()
    (line,) = [i for i, text in enumerate(lines, 1) if fragment in text]
    return line


def main_step(trace, fragment: str) -> dict:
    (step,) = [s for s in trace["steps"] if where(s) == ("main", other_line(fragment)) and not s.get("call")]
    return step


def test_other_format_traces_completely(other_format):
    result, trace, _ = other_format
    assert result.status == "ok" and validation_error(trace) is None
    assert trace["lecture"]["title"] == "A lecture in the execute_util format"


def test_other_format_every_inspected_value_at_its_line(other_format):
    _, trace, _ = other_format
    int_ = lambda v: {"type": "int", "value": v}  # noqa: E731
    assert main_step(trace, "num_parameters = count")["env"] == {"num_parameters": int_(12)}  # after prose
    assert main_step(trace, "total = add(")["env"] == {"total": int_(17)}
    assert main_step(trace, "again = add(")["env"] == {"again": int_(3)}  # prose then directive
    assert main_step(trace, "s = slow_sum(")["env"] == {"s": int_(499500)}
    entries = [s["env"] for s in trace["steps"] if where(s) == ("add", other_line("def add(a, b)"))]
    assert entries == [{"a": int_(12), "b": int_(5)}, {"a": int_(1), "b": int_(2)}]  # one per call
    recorded = {(where(s), name) for s in trace["steps"] for name in s["env"]}
    assert len(recorded) == 6  # nothing else, nothing missing


def test_other_format_renderings_at_their_lines(other_format):
    _, trace, _ = other_format
    assert main_step(trace, 'text("usage:')["renderings"] == [
        {"type": "markdown", "data": "usage:\n    python train.py --steps N"}
    ]
    assert main_step(trace, 'text("""')["renderings"] == [
        {"type": "markdown", "data": "\n  $ ls\n  lecture.py   notes.md\n", "verbatim": True}
    ]
    # rendered inside the untraced helper: lands on the lecture line that called it
    assert main_step(trace, "named_link(")["renderings"] == [
        {"type": "link", "internal": None, "url": "https://pytorch.org", "title": "[PyTorch]"}
    ]
    assert main_step(trace, "s = slow_sum(")["renderings"] == [{"type": "markdown", "data": "summed 1000 numbers"}]
    (citation,) = main_step(trace, "link(scaling_laws)")["renderings"]
    assert citation["title"] == "Scaling Laws for Neural Language Models"
    assert citation["attrs"]["authors"] == ["Jared Kaplan", "Sam McCandlish", "Tom Henighan"]
    assert citation["attrs"]["date"] == "2020-01-23" and citation["attrs"]["organization"] == "OpenAI"
    (noted,) = main_step(trace, "notes=")["renderings"]
    assert noted["attrs"] == {"notes": "Compute-optimal: 20 tokens per parameter"}
    (partial,) = main_step(trace, "functools.partial(add")["renderings"]
    assert partial["internal"] == {"path": OTHER, "line": other_line("def add(a, b)"), "function": "add"}
    assert partial["style"] == {"color": "gray"}
    (command,) = main_step(trace, "system_text(")["renderings"]
    assert command == {
        "type": "markdown",
        "data": "GPU 0: none\n  (a CPU run)\n",
        "verbatim": True,
        "command": ["printf", "GPU 0: none\\n  (a CPU run)\\n"],
    }
    assert [r["type"] for r in main_step(trace, 'text("See"), link(add)')["renderings"]] == ["markdown", "link"]


def test_other_format_helpers_run_untraced_and_stay_hashed(other_format):
    _, trace, _ = other_format
    assert {s["stack"][-1]["path"] for s in trace["steps"]} == {OTHER} == set(trace["files"])
    assert len(trace["steps"]) < 40  # slow_sum's 1,000-iteration loop is not stepped
    # no execute_util.py in the course: the run's import alias serves chalktrace's API under that name
    assert not (COURSE / "execute_util.py").exists()
    assert set(trace["sources"]) == {OTHER} | {
        f"tests/lectures/execute_util_course/{name}.py" for name in ("lecture_util", "references")
    }


def test_other_format_warns_about_unknown_directives_only(other_format):
    _, trace, stderr = other_format
    where_ = f"{OTHER}:{other_line('@inpsect')}"
    assert trace["warnings"][0] == (
        f"{where_}: unknown directive @inpsect (known: @inspect, @clear, @stepover, @hide, @flops, @ask, @noask, @raises, @animate, @accept, @varies)"
    )
    # the other one: tests run offline, and the course keeps no arXiv cache (said once)
    assert len(trace["warnings"]) == 2 and trace["warnings"][1].startswith(f"{OTHER}:")
    assert "arXiv metadata unavailable (offline" in trace["warnings"][1]  # at the first citation it could not label
    assert stderr.count("warning") == 2  # not the commented-out decorator, not the e-mail address


def test_system_text_keeps_absolute_project_paths_out_of_the_trace(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'scratch'\n", encoding="utf-8")
    (tmp_path / "tool.py").write_text("import os\nprint(os.path.abspath(__file__))\n", encoding="utf-8")
    lecture = tmp_path / "shows.py"
    lecture.write_text(
        "import os\nimport sys\n\nfrom tracer import system_text\n\n\ndef main():\n"
        "    system_text([sys.executable, os.path.join(os.path.dirname(__file__), 'tool.py')])\n",
        encoding="utf-8",
    )
    run_lecture(lecture, output=tmp_path / "t.json")
    (rendering,) = load_trace(tmp_path / "t.json")["steps"][0]["renderings"]
    assert rendering["data"] == "tool.py\n" and rendering["command"][1] == "tool.py"
    assert str(tmp_path) not in (tmp_path / "t.json").read_text(encoding="utf-8")


def test_a_bare_inspect_shows_every_local_of_its_frame_in_helpers_too(tmp_path):
    lecture = tmp_path / "bare.py"
    lecture.write_text(
        "import math\n\n\n"
        "def helper(a, b):  # @inspect\n"
        "    c = a * b\n"
        "    d = c + 1  # @inspect\n"
        "    return d\n\n\n"
        "def main():\n"
        "    x = 3\n"
        "    y = helper(x, 4)  # @inspect\n",
        encoding="utf-8",
    )
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'scratch'\n", encoding="utf-8")
    run_lecture(lecture, output=tmp_path / "t.json")
    trace = load_trace(tmp_path / "t.json")
    shown = [(where(s), {k: v["value"] for k, v in s["env"].items()}) for s in trace["steps"] if s["env"]]
    assert shown == [
        (("helper", 4), {"a": 3, "b": 4}),
        (("helper", 6), {"a": 3, "b": 4, "c": 12, "d": 13}),
        (("main", 12), {"x": 3, "y": 13}),
    ]  # modules (math) and functions are left out
    assert trace["warnings"] == []


def test_a_files_place_is_resolved_as_path_resolve_resolves_it(tmp_path, monkeypatch):
    """Whether a file is under the lecture root is decided on its real path: a file linked into the
    folder, a file in a linked folder, and a relative name resolve as ``Path.resolve`` resolves them
    (the recorder reuses each folder's resolution)."""
    from types import SimpleNamespace

    from tracer.capture.recorder import Recorder

    (tmp_path / "course").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "helper.py").write_text("x = 1\n")
    (tmp_path / "course" / "plain.py").write_text("x = 1\n")
    (tmp_path / "course" / "linked.py").symlink_to(tmp_path / "elsewhere" / "helper.py")
    (tmp_path / "course" / "folder").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    monkeypatch.chdir(tmp_path / "course")
    state = SimpleNamespace(_real_folders={})
    names = [
        str(tmp_path / "course" / "plain.py"),
        str(tmp_path / "course" / "linked.py"),
        str(tmp_path / "course" / "folder" / "helper.py"),
        "plain.py",
        "folder/helper.py",
        str(tmp_path / "course" / "missing.py"),
    ]
    for _ in range(2):  # the second time from the folders already resolved
        assert [Recorder._resolved(state, name) for name in names] == [str(Path(name).resolve()) for name in names]  # type: ignore[arg-type]
    assert str(tmp_path / "elsewhere") in [str(Path(p)) for p in state._real_folders.values()]
