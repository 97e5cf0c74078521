"""tracer/commands/trace_problems.py: what a trace must not show students, and the @raises mark that allows an error."""

from __future__ import annotations

from tracer.commands.trace_problems import publish_problems, trace_problems
from tracer.contract.publish_policy import student_warnings

SOURCE = "def main():\n    w = 1  # @inspect w\n    x = (1 +\n         w_q)  # @inspect x\n    return x\n"


def trace(status="ok", source=SOURCE, error_line=None, missing_line=None):
    steps = [{"stack": [{"path": "lectures/a.py", "line": 2, "function": "main"}], "env": {"w": {"type": "int", "value": 1}}}]
    if missing_line:
        steps.append(
            {
                "stack": [{"path": "lectures/a.py", "line": missing_line, "function": "main"}],
                "env": {"x": {"type": "missing", "name": "x", "message": "@inspect x: NameError: name 'x' is not defined"}},
            }
        )
    result = {"status": status, "lecture": {"path": "lectures/a.py"}, "files": {"lectures/a.py": source}, "steps": steps}
    if error_line:
        result["error"] = {
            "type": "NameError",
            "message": "name 'w_q' is not defined\nsecond line",
            "traceback": [{"path": "lectures/a.py", "line": error_line, "function": "main"}],
        }
    return result


def test_a_clean_trace_has_no_problem():
    assert trace_problems(trace()) == []


def test_an_error_names_its_file_and_line():
    assert trace_problems(trace("error", error_line=4)) == [
        "lectures/a.py:4: lecture raised NameError: name 'w_q' is not defined "
        "(mark the line `# @raises` if the lecture teaches this error)"
    ]


def test_a_missing_name_is_named_once_per_line():
    problems = trace_problems(trace(missing_line=3) | {"steps": trace(missing_line=3)["steps"] * 2})
    assert problems == ["lectures/a.py:3: @inspect x: NameError: name 'x' is not defined"]


def test_raises_anywhere_on_the_statement_allows_its_error_and_its_missing_names():
    marked = SOURCE.replace("w_q)  # @inspect x", "w_q)  # @inspect x @raises")
    assert trace_problems(trace("error", marked, error_line=4, missing_line=3)) == []
    # the mark covers its own statement only
    assert trace_problems(trace("error", marked, error_line=5)) != []


def test_an_early_end_without_an_error_record_is_a_problem_too():
    assert trace_problems(trace("exited")) == [
        "lectures/a.py:1: lecture ended early (status exited) (mark the line `# @raises` if the lecture teaches this error)"
    ]


def test_an_image_without_alt_text_fails_publishing_unless_decorative_or_captioned():
    def shown(line, **fields):
        return {
            "stack": [{"path": "lectures/a.py", "line": line, "function": "main"}],
            "env": {},
            "renderings": [{"type": "image", "data": f"lectures/images/{line}.png", "external": False} | fields],
        }

    steps = [
        shown(3),
        shown(3),
        shown(4, alt="a bar chart of bytes per dtype"),
        shown(5, alt=""),
        shown(6, caption="bytes per dtype"),
        shown(7, alt=None),
    ]
    alt = [(w.where, w.kind, w.message) for w in student_warnings({"steps": steps, "lecture": {"path": "lectures/a.py"}})]
    assert alt == [
        (
            "lectures/a.py:3",
            "alt-text",
            'image lectures/images/3.png has no alt text; pass alt="what it shows" (or alt="" if it is decorative)',
        ),
        (
            "lectures/a.py:7",
            "alt-text",
            'image lectures/images/7.png has no alt text; pass alt="what it shows" (or alt="" if it is decorative)',
        ),
    ]
    assert len(publish_problems({"steps": steps, "status": "ok", "lecture": {"path": "lectures/a.py"}}, None)) == 2
    assert trace_problems(trace()) == []  # a warning box (the policy), not an error
