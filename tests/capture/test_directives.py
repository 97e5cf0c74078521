"""tracer/capture/directives.py: comment directives, parsed alone and as seen in a real trace."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from tracer.capture.directives import Directives, parse_comment, parse_source
from tracer.capture.runner import run_lecture
from tracer.contract.trace_reading import load_trace
from tracer.contract.trace_validation import validation_error

LECTURE = Path(__file__).resolve().parents[1] / "lectures" / "directives_demo.py"
SOURCE = LECTURE.read_text(encoding="utf-8")
PATH = "tests/lectures/directives_demo.py"


def line_of(fragment: str) -> int:
    (line,) = [i for i, text in enumerate(SOURCE.splitlines(), 1) if fragment in text]
    return line


# -- parsing ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "comment, expected",
    [
        ("# @inspect x y", {"inspect": ["x", "y"]}),
        ("# @inspect x, @inspect y", {"inspect": ["x", "y"]}),
        ("#@inspect model.weight x.grad", {"inspect": ["model.weight", "x.grad"]}),
        ("# @stepover @inspect ones", {"stepover": [], "inspect": ["ones"]}),
        ("# @clear a b", {"clear": ["a", "b"]}),
        ("# @hide", {"hide": []}),
        ("# @flops @inspect z", {"flops": [], "inspect": ["z"]}),
        ("# email me @ alice", {}),
        ("# see `@inspect` in the docs", {}),  # quoted: prose that merely mentions a directive
        # after prose, anywhere in the comment
        ("# the number of parameters @inspect num_parameters", {"inspect": ["num_parameters"]}),
        ("# float32  @inspect total_nbytes", {"inspect": ["total_nbytes"]}),
        ("# slow, @stepover", {"stepover": []}),
        ("# a, b @inspect a, @inspect b", {"inspect": ["a", "b"]}),
        # sentence punctuation is not part of a name
        ("# @inspect: x", {"inspect": ["x"]}),
        ("# the count @inspect n.", {"inspect": ["n"]}),
        ("# (see @inspect model.weight)", {"inspect": ["model.weight"]}),
        # not directive tokens: e-mail addresses, decorator calls or attributes, parenthesised, matmul
        ("# ask alice@example.com", {}),
        ("# @torch.no_grad()", {}),
        ("# @functools.cache", {}),
        ("# TODO(@alice): check", {}),
        ("# y = a @ b", {}),
        ("# y = a@b", {}),
    ],
)
def test_parse_comment(comment, expected):
    found, unknown = parse_comment(comment)
    assert found == expected and unknown == []


@pytest.mark.parametrize(
    "comment, unknown",
    [
        ("# cc @alice", ["alice"]),
        ("# @property", ["property"]),  # a commented-out bare decorator is a @word token: it warns
        ("# x @inpsect x", ["inpsect"]),  # a typo after prose is reported, not silently dropped
    ],
)
def test_parse_comment_reports_any_unknown_word_token(comment, unknown):
    assert parse_comment(comment)[1] == unknown


def test_parse_comment_reports_unknown_directives():
    found, unknown = parse_comment("# @inspect x @frobnicate y")
    assert found == {"inspect": ["x"]} and unknown == ["frobnicate"]


SNIPPET = """\
def f():
    a = 1  # @inspect a @bogus
    b = (1 +
         2)  # @inspect b
    c = 1  # @hide
    d = [  # @hide
        1,
    ]
    if a:  # @inspect a
        pass
    e = 2  # @inspect 3x
    g = 2  # @inspect a, @inspect a
"""


def test_parse_source_keys_directives_by_statement_start():
    parsed = parse_source(SNIPPET)
    assert parsed.by_line[2] == Directives(inspect=("a",))
    assert parsed.by_line[3] == Directives(inspect=("b",))  # written on line 4, the statement starts on 3
    assert 4 not in parsed.by_line
    assert parsed.by_line[9] == Directives(inspect=("a",))
    assert parsed.by_line[12] == Directives(inspect=("a",))  # duplicates collapse


def test_parse_source_maps_continuation_lines_to_their_statement():
    parsed = parse_source(SNIPPET)
    assert parsed.starts == {4: 3, 7: 6, 8: 6}


def test_parse_source_hidden_lines_cover_the_whole_statement():
    assert parse_source(SNIPPET).hidden_lines == [5, 6, 7, 8]


def test_parse_source_warnings_name_the_line():
    warnings = dict(parse_source(SNIPPET).warnings)
    assert "unknown directive @bogus" in warnings[2]
    assert "'3x'" in warnings[11]
    assert parse_source(SNIPPET).by_line[11] == Directives()  # the bad name is dropped, not inspected


DEFS = """\
def plain(a, b):  # @inspect a b
    return a + b


@staticmethod
@functools.cache
def decorated(
    x,
    y,
):  # the inputs @inspect x, @inspect y
    return x


async def later(n):  # @inspect n @hide
    return n


def main():
    z = plain(1, 2)  # @inspect z
"""


def test_def_line_inspect_names_arguments_on_entry():
    parsed = parse_source(DEFS)
    # keyed by co_firstlineno (the first decorator's line), naming the def line to step on
    assert parsed.entries == {1: (1, ("a", "b")), 5: (7, ("x", "y")), 14: (14, ("n",))}
    # not a value of the enclosing scope when the def statement runs
    assert 1 not in parsed.by_line and 7 not in parsed.by_line
    assert parsed.by_line[14] == Directives(hide=True)  # other directives on a def line keep their meaning
    assert parsed.by_line[19] == Directives(inspect=("z",))
    assert parsed.warnings == []


ROWS = """\
def main():
    x = make(128)  # @inspect x rows=32
    y, z = x, x  # @inspect y rows=4 z
    w = x  # @inspect rows=16
    v = x  # @inspect v rows=0
    u = x  # @inspect u rows=many
    t = x  # @inspect t call=last
    s = x  # @inspect s call=latest


def f(a):  # @inspect a rows=3
    return a
"""


def test_inspect_rows_is_an_option_of_every_name_it_inspects_not_a_name():
    parsed = parse_source(ROWS)
    assert parsed.by_line[2] == Directives(inspect=("x",), rows=32)
    assert parsed.by_line[3] == Directives(inspect=("y", "z"), rows=4)
    assert parsed.by_line[4] == Directives(all_locals=True, rows=16)  # a bare @inspect with the option: every local
    assert parsed.by_line[5] == Directives(inspect=("v",))
    assert parsed.by_line[6] == Directives(inspect=("u",))
    # call=first|last is read mode's choice of run (the site reads it): the tracer only checks it
    assert parsed.by_line[7] == Directives(inspect=("t",)) and parsed.by_line[8] == Directives(inspect=("s",))
    assert dict(parsed.warnings) == {
        5: "@inspect rows= takes a whole number of rows of at least 1, not '0'",
        6: "@inspect rows= takes a whole number of rows of at least 1, not 'many'",
        8: "@inspect call= takes first or last, not 'latest'",
        11: "@inspect rows=N works on the lines that bind a value, not on a def line",
    }
    assert parsed.entries == {11: (11, ("a",))}


def test_parse_source_raises_syntax_error():
    with pytest.raises(SyntaxError):
        parse_source("def broken(:\n")


# -- in a trace -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("directives") / "directives_demo.json"
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        result = run_lecture(LECTURE, output=out)
    return result, load_trace(out), stderr.getvalue()


@pytest.fixture(scope="module")
def trace(run):
    return run[1]


def steps_at(trace, fragment: str, function: str = "main") -> list[dict]:
    line = line_of(fragment)
    return [s for s in trace["steps"] if s["stack"][-1]["line"] == line and s["stack"][-1]["function"] == function]


def only_step(trace, fragment: str) -> dict:
    (step,) = steps_at(trace, fragment)
    return step


def test_trace_is_valid_and_completes(run, trace):
    result, _, _ = run
    assert result.status == "ok" and trace["status"] == "ok"
    assert validation_error(trace) is None
    assert steps_at(trace, "done = True")  # ran to the end despite the problems below


def test_inspect_space_separated(trace):
    env = only_step(trace, "b = 2")["env"]
    assert env == {"a": {"type": "int", "value": 1}, "b": {"type": "int", "value": 2}}


def test_inspect_comma_repeated(trace):
    env = only_step(trace, "c = a + b")["env"]
    assert env == {"a": {"type": "int", "value": 1}, "c": {"type": "int", "value": 3}}


def test_inspect_dotted_names(trace):
    weight = only_step(trace, "model = nn.Linear")["env"]["model.weight"]
    assert weight["type"] == "tensor" and weight["shape"] == [1, 2] and weight["requires_grad"] is True
    grad = only_step(trace, ".backward()")["env"]["x.grad"]
    assert grad["type"] == "tensor" and grad["shape"] == [2] and grad["requires_grad"] is False


def test_missing_name_is_visible_and_warned(run, trace):
    _, _, stderr = run
    missing = only_step(trace, "ghost = 0")["env"]["nowhere"]
    assert missing["type"] == "missing" and "nowhere" in missing["message"]
    where = f"{PATH}:{line_of('ghost = 0')}"
    assert any(w.startswith(where) and "nowhere" in w for w in trace["warnings"])
    assert f"{where}: @inspect nowhere" in stderr


def test_clear(trace):
    assert only_step(trace, "gone = 5")["env"]["gone"] == {"type": "int", "value": 5}
    step = only_step(trace, "del gone")
    assert step["clear"] == ["gone"] and step["env"] == {}
    assert all("clear" not in s for s in trace["steps"] if s is not step)


def test_stepover_records_no_steps_inside_the_callee(trace):
    inside = [s for s in trace["steps"] if s["stack"][-1]["function"] == "make_pair"]
    # make_pair runs twice; only the call without @stepover is stepped into (three lines).
    assert [s["stack"][-1]["line"] for s in inside] == [line_of("left = 1"), line_of("right = 2"), line_of("return left, right")]
    assert all(s["stack"][0]["line"] == line_of("first = make_pair()") for s in inside)
    step = only_step(trace, "pair = make_pair()")
    assert "call" not in step
    assert step["env"]["pair"]["type"] == "tuple"


def test_hide(trace):
    assert trace["hidden_lines"] == {PATH: [line_of("secret = 42")]}
    assert only_step(trace, "secret = 42")  # hidden from the page, still executed and stepped


def test_directive_on_last_line_of_multiline_statement(trace):
    start = line_of("total = (a +")
    steps = [s for s in trace["steps"] if start <= s["stack"][-1]["line"] <= start + 2]
    assert len(steps) == 1 and steps[0]["stack"][-1]["line"] == start
    assert steps[0]["env"] == {"total": {"type": "int", "value": 6}}
    labels = only_step(trace, "labels = dict(")["env"]["labels"]
    assert labels["type"] == "dict" and labels["length"] == 2
    assert not any("total" in w or "labels" in w for w in trace["warnings"])


def test_unknown_directive_warns_once_and_never_crashes(run, trace):
    _, _, stderr = run
    where = f"{PATH}:{line_of('odd = i')}"
    assert [w for w in trace["warnings"] if "frobnicate" in w] == [
        f"{where}: unknown directive @frobnicate (known: @inspect, @clear, @stepover, @hide, @flops, @ask, @noask, @raises, @animate, @accept, @varies)"
    ]
    assert stderr.count("@frobnicate") == 1
    assert len(steps_at(trace, "odd = i")) == 3  # the loop body still ran and was stepped three times


def test_comment_scan_respects_strings_and_falls_back_inside_multiline_strings():
    from tracer.capture.directives import parse_source

    source = (
        's = "a # @inspect nope"  # @inspect s\n'
        "t = 'it\\'s # @hide'  # @clear t\n"
        'doc = """\n'
        "x = 1  # @inspect x\n"
        '"""  # @inspect doc\n'
    )
    parsed = parse_source(source)
    assert parsed.by_line[1].inspect == ("s",) and not parsed.by_line[1].hide
    assert parsed.by_line[2].clear == ("t",) and not parsed.by_line[2].hide
    assert 4 not in parsed.by_line  # that "comment" is text inside a string literal
    assert parsed.by_line[3].inspect == ("doc",)  # the literal's statement starts on line 3


def test_ask_records_what_it_names_and_noask_is_kept():
    parsed = parse_source(
        "def main():\n    z = y.T  # @ask z shares x\n    w = a @ b  # @ask flops\n"
        "    v = 1  # @noask @inspect v\n    u = 2  # @ask\n    t = 3  # @ask 3+\n"
    )
    assert parsed.by_line[2] == Directives(inspect=("z", "x"), ask=("z", "shares", "x"))
    assert parsed.by_line[3].flops and parsed.by_line[3].inspect == () and 3 in parsed.statements
    assert parsed.by_line[4] == Directives(inspect=("v",), noask=True)
    assert [line for line, _message in parsed.warnings] == [5, 6]


NOTES_LECTURE = '''from tracer import speaker_note, text

def main():
    text('hi')
    speaker_note("""
        Say *this*.
    """)
    x = 1
    speaker_note('then this')  # a comment
    y = (speaker_note, 2)
'''


def test_a_speaker_note_statement_is_hidden_and_its_note_recorded_on_its_step(tmp_path):
    lecture = tmp_path / "notes.py"
    lecture.write_text(NOTES_LECTURE, encoding="utf-8")
    assert parse_source(NOTES_LECTURE).hidden_lines == [5, 6, 7, 9]
    result = run_lecture(lecture, output=tmp_path / "notes.json")
    assert result.status == "ok"
    trace = load_trace(tmp_path / "notes.json")
    assert validation_error(trace) is None
    notes = [(step["stack"][-1]["line"], step["speaker_notes"]) for step in trace["steps"] if step.get("speaker_notes")]
    assert notes == [(5, ["Say *this*."]), (9, ["then this"])]
    assert all(not step["renderings"] for step in trace["steps"] if step.get("speaker_notes"))


def test_a_bare_inspect_asks_for_every_local_and_a_refused_name_does_not():
    parsed = parse_source("def f(a):  # @inspect\n    b = a  # @inspect\n    c = b  # @inspect 3x\n    return c\n")
    assert parsed.by_line[2].all_locals and not parsed.by_line[3].all_locals
    assert parsed.entries[1] == (1, ("*",))


def test_inspect_reads_subscripts_without_running_code():
    """``@inspect vocab[new_id] history[-1] d['k'] obj.attr[i]``: each recorded under its own name; a
    subscript of an object that is not a built-in container, tensor or array is refused (its
    __getitem__ is never run), with a clear message."""
    from helpers.traced import traced

    trace = traced("inspect_subscripts")
    env = {name: value for step in trace["steps"] for name, value in (step.get("env") or {}).items()}
    assert env["vocab[new_id]"] == {"type": "int", "value": 1}
    assert env["history[-1]"] == {"type": "float", "value": 0.25} and env["history[0]"]["value"] == 0.9
    assert env["vocab['the']"] == {"type": "int", "value": 0}
    assert env["model.layers[i]"]["value"] == "attend"
    assert env["counted[3]"]["type"] == "missing" and "could run its code" in env["counted[3]"]["message"]
    assert env["seen"] == {"type": "int", "value": 0}  # Counting.__getitem__ never ran
    assert not [w for w in trace["warnings"] if "takes names" in w]


def test_inspect_refuses_calls_and_expressions_in_subscripts():
    parsed = parse_source("def main():\n    x = [1]  # @inspect x[f()] x[0]\n")
    assert parsed.by_line[2].inspect == ("x[0]",)
    assert parsed.warnings == [
        (2, "@inspect/@clear takes names, dotted paths or subscripts (x[0], d['k'], obj.attr[i]), not 'x[f()]'")
    ]


def test_an_invalid_escape_is_reported_at_its_file_and_line():
    """``text("\\m")`` is warned about by Python while parsing (as File "<unknown>"); the tracer
    names the lecture's line instead, and the parse itself prints nothing."""
    import warnings

    source = 'def main():\n    x = 1\n    y = "\\\\m and \\\\d"\n'.replace("\\\\", "\\")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning escaping the parse would raise here
        parsed = parse_source(source)
    assert parsed.warnings == [
        (3, "invalid escape sequence '\\m' (use a raw string, r\"...\", or double the backslash)"),
    ]
