"""One-line loops step once per iteration; a deleted local never shows a global of the same name;
a saved exception raised again is attached to the raise that ended the lecture."""

from __future__ import annotations

import textwrap

from helpers.projects import make_project
from tracer.capture.runner import run_lecture
from tracer.contract.trace_reading import load_trace

SOURCE = """
x = "the module's x"


def shadow():
    x = 5  # @inspect x
    del x
    y = 1  # @inspect x y


def tail():
    for k in range(2): w = k + 10  # @inspect w


def countdown():
    n = 3
    while n > 0: n -= 1  # @inspect n
    tail()


def main():
    shadow()
    for i in range(3): y = i * 2  # @inspect y
    total = sum([1, 2])  # @inspect total
    for _ in []: z = 1  # @inspect z
    countdown()
"""


def trace_of(tmp_path, source: str, name: str = "lecture") -> dict:
    root = make_project(tmp_path, {f"{name}.py": textwrap.dedent(source)})
    run_lecture(root / "lectures" / f"{name}.py", output=tmp_path / f"{name}.json")
    return load_trace(tmp_path / f"{name}.json")


def at_line(trace: dict, fragment: str) -> list[dict]:
    lines = trace["files"][trace["lecture"]["path"]].splitlines()
    (line,) = [n for n, text in enumerate(lines, 1) if fragment in text]
    return [step["env"] for step in trace["steps"] if step["stack"][-1]["line"] == line]


def test_each_iteration_of_a_one_line_loop_is_its_own_step_with_its_values(tmp_path):
    trace = trace_of(tmp_path, SOURCE)
    assert [env["y"]["value"] for env in at_line(trace, "for i in range(3)")] == [0, 2, 4]
    assert [env["n"]["value"] for env in at_line(trace, "while n > 0")] == [2, 1, 0]
    assert [env["w"]["value"] for env in at_line(trace, "for k in range(2)")] == [10, 11]  # last line of a function
    assert len(at_line(trace, "for _ in []")) == 1  # a loop that never runs: its one step
    assert [env["total"]["value"] for env in at_line(trace, "total = sum")] == [3]


def test_a_deleted_local_shows_no_card_not_the_module_s_variable(tmp_path):
    trace = trace_of(tmp_path, SOURCE)
    first, after = at_line(trace, "x = 5"), at_line(trace, "y = 1  # @inspect x y")
    assert first[0]["x"]["value"] == 5
    assert after == [{"y": {"type": "int", "value": 1}}]
    assert not any("module's x" in str(step["env"]) for step in trace["steps"])
    assert not trace["warnings"]


def test_a_saved_exception_raised_again_is_attached_to_the_raise_that_ended_the_lecture(tmp_path):
    trace = trace_of(
        tmp_path,
        """
        def attempt(n):
            raise RuntimeError(f"attempt {n} failed")


        def main():
            errors = []
            for n in range(2):
                try:
                    attempt(n)
                except RuntimeError as e:
                    errors.append(e)
            ok = 5  # @inspect ok
            raise errors[0]
        """,
    )
    (failed,) = [step for step in trace["steps"] if step.get("error")]
    lines = trace["files"][trace["lecture"]["path"]].splitlines()
    assert lines[failed["stack"][-1]["line"] - 1].strip() == "raise errors[0]"
    assert failed["error"]["message"] == "attempt 0 failed"
