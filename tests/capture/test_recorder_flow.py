"""tracer/capture/recorder.py: values bound by ``yield`` and ``await`` appear on the step that binds
them, and every step survives exceptions that are kept and raised again, chained or grouped."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracer.capture.runner import run_lecture
from tracer.contract.trace_reading import load_trace
from helpers.traced import line_of

LECTURES = Path(__file__).resolve().parents[1] / "lectures"


def shown(trace: dict) -> list[tuple[str, int, dict]]:
    """(function, line, {name: value}) of each step that is not a call step."""
    out = []
    for step in trace["steps"]:
        if step.get("call"):
            continue
        top = step["stack"][-1]
        out.append((top["function"], top["line"], {k: v.get("value") for k, v in step["env"].items()}))
    return out


@pytest.fixture(scope="module")
def suspended(tmp_path_factory):
    out = tmp_path_factory.mktemp("flow") / "t.json"
    result = run_lecture(LECTURES / "suspended_values.py", output=out)
    return result, load_trace(out)


def test_a_value_received_by_yield_is_on_the_step_that_binds_it(suspended):
    result, trace = suspended
    line = line_of("suspended_values", "x = yield total")
    assert [env["x"] for function, at, env in shown(trace) if at == line and "x" in env] == [5, 7]
    assert not any("NameError" in w or "@inspect x" in w for w in result.warnings)


def test_a_value_bound_by_await_is_on_the_step_that_binds_it(suspended):
    _, trace = suspended
    steps = shown(trace)
    assert ("work", line_of("suspended_values", "a = await fetch(3)"), {"a": 6}) in steps
    assert ("work", line_of("suspended_values", "b = await asyncio.sleep"), {"b": 7}) in steps
    assert not any(v.get("type") == "missing" for s in trace["steps"] for v in s["env"].values())


def test_an_async_generator_receives_its_value_on_its_step(suspended):
    _, trace = suspended
    steps = shown(trace)
    assert ("agen", line_of("suspended_values", "v = yield 1"), {"v": 10}) in steps
    assert ("drive", line_of("suspended_values", "second = await ag.asend(10)"), {"second": 11}) in steps
    assert steps[-1][0] != "main" or steps[-1][2] != {}  # main's last line shows its value


@pytest.fixture(scope="module")
def flow(tmp_path_factory):
    out = tmp_path_factory.mktemp("flow") / "t.json"
    result = run_lecture(LECTURES / "exception_flow.py", output=out)
    return result, load_trace(out)


def test_every_step_after_an_exception_is_raised_and_kept_survives(flow):
    result, trace = flow
    steps = shown(trace)
    assert ("main", line_of("exception_flow", "cause = str("), {"cause": "bad 2"}) in steps
    assert ("grouped", line_of("exception_flow", "count = len(group"), {"count": 2}) in steps
    assert ("main", line_of("exception_flow", "count = grouped()"), {"count": 2}) in steps
    assert ("main", line_of("exception_flow", "a = 1"), {"a": 1}) in steps
    assert ("main", line_of("exception_flow", "b = a + 1"), {"b": 2}) in steps
    assert result.status == "error"


def test_the_error_lands_on_the_line_that_raised_last(flow):
    result, trace = flow
    errors = [s for s in trace["steps"] if "error" in s]
    assert len(errors) == 1 and errors[0] is trace["steps"][-1]
    assert errors[0]["stack"][-1]["line"] == line_of("exception_flow", "raise kept")
    assert errors[0]["error"]["message"] == "bad 1"
    assert result.error_line.startswith(f"tests/lectures/exception_flow.py:{line_of('exception_flow', 'raise kept')}:")


def test_an_error_raised_in_a_callee_stays_on_the_callee_line(tmp_path):
    lecture = tmp_path / "lectures" / "deep.py"
    lecture.parent.mkdir()
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    lecture.write_text(
        "def inner(n):\n    raise KeyError(n)\n\n\ndef outer(n):\n    try:\n        inner(n)\n"
        "    finally:\n        n = n + 1\n\n\ndef main():\n    outer(1)\n",
        encoding="utf-8",
    )
    result = run_lecture(lecture, output=tmp_path / "t.json")
    steps = load_trace(tmp_path / "t.json")["steps"]
    (error,) = [s for s in steps if "error" in s]
    assert (error["stack"][-1]["function"], error["stack"][-1]["line"]) == ("inner", 2)
    after = [(s["stack"][-1]["function"], s["stack"][-1]["line"]) for s in steps[steps.index(error) + 1 :]]
    assert ("outer", 9) in after  # the finally block that ran while it unwound
    assert result.error_line.startswith("lectures/deep.py:2: KeyError")
