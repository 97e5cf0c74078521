"""tracer/capture/recorder.py: which lines become steps, their stacks, stdout and renderings, and the step cap."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from tracer.capture.runner import run_lecture
from tracer.trace_format import load_trace, validation_error

LECTURES = Path(__file__).resolve().parent / "lectures"


def line_of(name: str, fragment: str) -> int:
    lines = (LECTURES / f"{name}.py").read_text(encoding="utf-8").splitlines()
    (line,) = [i for i, text in enumerate(lines, 1) if fragment in text]
    return line


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
        (main, at("squares = ["), None), (main, at("evens = {"), None), (main, at("bump = lambda"), None),
        (main, at("g = bump(2)"), None), (main, at("total = sum("), None),
        (main, at("s = twice(2)"), True),
        (twice, at("once = square(n)"), True),
        (square, at("result = n * n"), None), (square, at("return result"), None),
        (twice, at("once = square(n)"), None),
        (twice, at("return square(once)"), True),
        (square, at("result = n * n"), None), (square, at("return result"), None),
        (twice, at("return square(once)"), None),
        (main, at("s = twice(2)"), None),
        (main, at("t = square(2)"), True),
        (square, at("result = n * n"), None), (square, at("return result"), None),
        (main, at("t = square(2)"), True),  # one call step per call: square(2), then square(3)
        (square, at("result = n * n"), None), (square, at("return result"), None),
        (main, at("t = square(2)"), None),
        (main, at("doubled = Doubler()"), True),
        (forward, at("y = x * 2"), None), (forward, at("return y"), None),
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
    assert all(len(s["stack"]) > 1 for s in steps[indices[0] + 1:indices[1]])


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


def test_helper_module_in_lecture_dir_is_traced(traces):
    trace = traces["uses_helper"]
    helper = "tests/lectures/_helper_mod.py"
    inside = [s for s in trace["steps"] if s["stack"][-1]["path"] == helper]
    assert [where(s) for s in inside] == [("triple", line_of("_helper_mod", "result = n * 3")),
                                          ("triple", line_of("_helper_mod", "return result"))]
    assert inside[0]["env"]["result"] == {"type": "int", "value": 6}
    assert inside[0]["stack"][0]["path"] == "tests/lectures/uses_helper.py"
    assert set(trace["files"]) == {"tests/lectures/uses_helper.py", helper}
    assert trace["files"][helper] == (LECTURES / "_helper_mod.py").read_text(encoding="utf-8")
    assert set(trace["sources"]) == {"tests/lectures/uses_helper.py", helper}


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
    assert renderings_at(trace, "image(\"images/renderings_pixel.svg\"") == [
        {"type": "image", "width": 40, "data": "tests/lectures/images/renderings_pixel.svg", "external": False}]
    assert renderings_at(trace, 'image("https://') == [
        {"type": "image", "width": None, "data": "https://example.org/figure.png", "external": True}]
    assert renderings_at(trace, "plot(") == [
        {"type": "plot", "spec": {"mark": "bar", "data": {"values": [{"x": 1, "y": 2}]}}}]
    assert sum(len(s["renderings"]) for s in trace["steps"]) == 8
    assert trace["lecture"]["title"] == "Renderings demo"


def test_local_image_is_hashed_into_sources(traces):
    assert "tests/lectures/images/renderings_pixel.svg" in traces["renderings_demo"]["sources"]


def test_link_to_function_points_at_its_code(traces):
    (link,) = renderings_at(traces["renderings_demo"], "link(helper)")
    assert link == {"type": "link", "url": None, "title": "helper",
                    "internal": {"path": "tests/lectures/renderings_demo.py",
                                 "line": line_of("renderings_demo", "def helper"), "function": "helper"}}


def test_link_to_record_keeps_other_attributes(traces):
    (link,) = renderings_at(traces["renderings_demo"], "link(Paper(")
    assert link["url"] == "https://example.org/paper" and link["title"] == "A paper"
    assert link["attrs"] == {"authors": "A. Author", "year": 2020}
    (plain,) = renderings_at(traces["renderings_demo"], 'link("https://example.org/plain"')
    assert plain["url"] == "https://example.org/plain" and plain["title"] == "Plain" and plain["internal"] is None


def test_missing_image_is_a_clear_error_naming_the_line(tmp_path):
    result = run_lecture(LECTURES / "missing_image.py", output=tmp_path / "t.json")
    line = line_of("missing_image", "image(\"images")
    assert result.error_line == (f"tests/lectures/missing_image.py:{line}: FileNotFoundError: "
                                 "image not found: images/no_such_picture.png")
    trace = load_trace(tmp_path / "t.json")
    assert trace["steps"][-1]["error"]["traceback"][-1]["line"] == line


# -- step cap -----------------------------------------------------------------------------------------
def test_step_cap_stops_recording_but_the_lecture_finishes(tmp_path, monkeypatch):
    marker = tmp_path / "finished.txt"
    monkeypatch.setenv("LECTRACE_TEST_MARKER", str(marker))
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


def test_no_cap_when_under_the_limit(tmp_path):
    run_lecture(LECTURES / "many_steps.py", output=tmp_path / "t.json")
    trace = load_trace(tmp_path / "t.json")
    assert trace["truncated"] is None and len(trace["steps"]) == 2 + 2 * 200 + 1 + 1


def test_hot_path_tuples_follow_the_step_fields():
    # The hot path appends plain tuples for speed; they must line up with recorder.Step's fields.
    from tracer.capture.recorder import CALL, EXTRAS, KEY, LINE, MEMORY, PREFIX, Step

    seen = []
    run_lecture(LECTURES / "calls_and_comprehensions.py", write=False, on_recorder=seen.append)
    steps = seen[0].steps
    assert (PREFIX, KEY, LINE, EXTRAS, MEMORY) == (0, 1, 2, 3, 4) and len(Step._fields) == 5
    assert any(type(s) is tuple for s in steps) and any(s[EXTRAS] is CALL for s in steps)
    for raw in steps:
        step = Step._make(raw)
        assert isinstance(step.line, int) and step.line >= 1
        assert len(step.key) == 2 and all(isinstance(part, str) for part in step.key)
        assert step.key[0] == "tests/lectures/calls_and_comprehensions.py"
        assert all(isinstance(p, str) and isinstance(n, int) and isinstance(f, str) for p, n, f in step.prefix)
        assert step.extras is None or isinstance(step.extras, dict)
        assert len(step.memory) == 2 and all(isinstance(n, int) for n in step.memory)
