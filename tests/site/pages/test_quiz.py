"""tracer/site/pages/quiz.py and quiz_questions.py: which steps quiz mode asks about, with what answer, choices and reason.

The rules are checked on value records as the tracer writes them (made by hand where a rule needs a
specific case), on the real trace of tests/lectures/quiz_demo.py (@ask, @noask), and on the
committed traces of lecture_02 (a question in each of its sections on tensors, strides, views,
dtypes and FLOPs).
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from tracer.site.cards.interface_strings import load as load_strings
from tracer.site.model.page_model import section_headings
from tracer.site.pages.quiz import MIN_GAP_STEPS, ask_directives, auto_candidates, choose_questions
from tracer.site.pages.quiz_questions import broadcast_shape, contiguous_stride, fact_question, flops_question
from tracer.contract.source_facts import Ask, parse_ask
from tracer.contract.trace_access import step_frame
from tracer.contract.trace_reading import load_trace
from helpers.traced import traced

REPO = Path(__file__).resolve().parents[3]


def tensor(shape, stride=None, storage="s1", dtype="float32", element_size=4, offset=0):
    numel = 1
    for size in shape:
        numel *= size
    stride = contiguous_stride(shape) if stride is None else stride
    return {
        "type": "tensor",
        "dtype": dtype,
        "shape": shape,
        "stride": stride,
        "storage_offset": offset,
        "contiguous": stride == contiguous_stride(shape),
        "device": "cpu",
        "element_size": element_size,
        "numel": numel,
        "nbytes": numel * element_size,
        "storage_id": storage,
        "storage_nbytes": numel * element_size,
        "requires_grad": False,
        "grad_fn": None,
        "values": [],
        "truncated": False,
        "stats": None,
    }


def rules(found):
    return [rule for rule, _question in found]


def test_shapes_and_strides_helpers():
    assert contiguous_stride([2, 3, 4]) == [12, 4, 1] and contiguous_stride([]) == []
    assert broadcast_shape([[3, 1], [4]]) == [3, 4] and broadcast_shape([[3], [4]]) is None


def test_a_transpose_asks_the_strides_with_swapped_ones_among_the_choices():
    x = tensor([2, 3])
    y = tensor([3, 2], stride=[1, 3])
    found = auto_candidates(7, "y", y, [("x", x)], "y = x.T")
    assert rules(found) == ["stride", "view"]
    question = found[0][1]
    assert question["answer"] == "(1, 3)" and question["accept"] == {"kind": "ints", "value": [1, 3], "tolerance": 0.0}
    assert "(3, 1)" in question["choices"] and "(1, 3)" in question["choices"]
    assert question["reason"] == "transpose swaps the strides; no data moves"
    assert found[1][1]["accept"]["value"] is True  # shares storage with x


def test_expand_and_permute_have_their_own_reasons():
    row = tensor([3])
    rows = tensor([2, 3], stride=[0, 1])
    assert auto_candidates(1, "rows", rows, [("row", row)], "rows = row.expand(2, 3)")[0][1]["reason"].startswith(
        "expand repeats elements with stride 0"
    )
    x = tensor([2, 3, 4])
    p = tensor([4, 2, 3], stride=[1, 12, 4])
    assert auto_candidates(1, "p", p, [("x", x)], "p = x.permute(2, 0, 1)")[0][1]["reason"] == (
        "permute reorders the strides; no data moves"
    )


def test_a_copy_asks_whether_it_shares_storage():
    y = tensor([3, 2], stride=[1, 3])
    z = tensor([3, 2], storage="s2")
    found = auto_candidates(3, "z", z, [("y", y)], "z = y.contiguous()")
    assert rules(found) == ["copy"]
    assert found[0][1]["prompt"] == "Does z share storage with y?" and found[0][1]["accept"]["value"] is False
    assert found[0][1]["choices"] and set(found[0][1]["choices"]) == {"yes", "no"}


def test_a_dtype_change_asks_bytes_with_the_old_element_size_as_a_choice():
    x = tensor([2, 3])
    h = tensor([2, 3], storage="s2", dtype="bfloat16", element_size=2)
    found = auto_candidates(4, "h", h, [("x", x)], "h = x.to(torch.bfloat16)")
    question = dict(found)["dtype"]
    assert question["accept"]["value"] == 12 and question["answer"] == "12 B"
    assert "24 B" in question["choices"]  # element size wrong: float32's 4 bytes
    assert "2 bytes (bfloat16)" in question["reason"] and "float32 took 4 bytes" in question["reason"]
    made = auto_candidates(4, "h", h, [], "h = torch.zeros(2, 3, dtype=torch.bfloat16)")
    assert rules(made) == ["dtype"]
    assert rules(auto_candidates(4, "f", tensor([2, 3]), [], "f = torch.zeros(2, 3)")) == []  # the default dtype


def test_a_reduction_asks_the_shape_with_the_shape_before_as_a_choice():
    x = tensor([2, 3, 4])
    y = tensor([2, 3], storage="s2")
    question = dict(auto_candidates(5, "y", y, [("x", x)], "y = x.sum(dim=-1)"))["reduction"]
    assert question["answer"] == "(2, 3)" and "(2, 3, 4)" in question["choices"] and "(2, 3, 1)" in question["choices"]
    assert question["reason"] == "reducing over dim 2 removes it (keepdim=True would keep it as 1)"
    kept = tensor([2, 3, 1], storage="s3")
    assert dict(auto_candidates(5, "k", kept, [("x", x)], "k = x.sum(-1, keepdim=True)"))["reduction"]["reason"] == (
        "keepdim keeps the reduced dim 2 as size 1"
    )
    assert "reduction" not in rules(auto_candidates(5, "y", y, [("x", x)], "y = x[:, :, 0].clone()"))


def test_a_broadcast_asks_the_shape():
    a = tensor([3, 1])
    b = tensor([4], storage="s2")
    c = tensor([3, 4], storage="s3")
    question = dict(auto_candidates(6, "c", c, [("a", a), ("b", b)], "c = a + b"))["broadcast"]
    assert question["answer"] == "(3, 4)" and "(3, 1)" in question["choices"]
    assert "(3, 1) and (4,) → (3, 4)" in question["reason"]


def test_facts_of_a_value():
    y = tensor([3, 2], stride=[1, 3], offset=1)
    assert fact_question(0, "y", "offset", y)["accept"]["value"] == 1
    contiguous = fact_question(0, "y", "contiguous", y)
    assert contiguous["accept"] == {"kind": "bool", "value": False, "tolerance": 0.0}
    assert "(1, 3)" in contiguous["reason"] and "(2, 1)" in contiguous["reason"]
    assert fact_question(0, "y", "numel", y)["accept"]["value"] == 6
    assert fact_question(0, "y", "dtype", y)["accept"] == {"kind": "dtype", "value": "float32", "tolerance": 0.0}
    assert fact_question(0, "y", "", y)["fact"] == "shape"
    assert fact_question(0, "n", "", {"type": "int", "value": 6})["accept"]["value"] == 6
    assert fact_question(0, "f", "value", {"type": "float", "value": "nan"}) is None
    assert fact_question(0, "s", "stride", {"type": "str", "value": "x"}) is None


def test_flops_and_collective_bytes():
    matmul = flops_question(9, {"flops": 2 * 4 * 5 * 6, "by_op": {"aten.mm": 240}})
    assert matmul["accept"] == {"kind": "number", "value": 240, "tolerance": 0.01}
    assert "120 FLOPs" in matmul["choices"] and "2·m·n·k" in matmul["reason"]
    assert "only matmul-like" in flops_question(9, {"flops": 0, "by_op": {}})["reason"]


def test_parse_ask_arguments():
    assert parse_ask(["x.shape", "y.stride()", "z", "shares", "x", "flops", "n"]) == (
        [Ask("x", "shape"), Ask("y", "stride"), Ask("z", "shares", "x"), Ask("", "flops"), Ask("n", "")],
        [],
    )
    assert parse_ask(["x.storage_offset"])[0] == [Ask("x", "offset")]
    assert parse_ask(["3+"])[1] and parse_ask(["3+"])[0] == []


def test_ask_directives_read_from_source():
    source = "def main():\n    y = (x\n         .T)  # @ask y.stride\n    w = x[0]  # @noask\n"
    assert ask_directives(source) == {2: ([Ask("y", "stride")], False), 4: ([], True)}


@pytest.fixture(scope="module")
def demo():
    return traced("quiz_demo")


def line_of(trace, text: str) -> int:
    source = trace["files"]["tests/lectures/quiz_demo.py"]
    return next(k for k, line in enumerate(source.splitlines(), 1) if text in line)


def test_the_fixture_lecture_asks_the_transpose_the_ask_and_never_the_noask_lines(demo):
    questions = choose_questions(demo)
    lines = [step_frame(demo["steps"][q["step"]])["line"] for q in questions]
    assert lines == [
        line_of(demo, "y = x.T"),
        line_of(demo, "z = y.contiguous()"),
        line_of(demo, "n = z.numel()"),
        line_of(demo, "p = a @ a.T"),
    ]
    assert [q["prompt"] for q in questions] == [
        "What is y.stride()?",
        "Does z share storage with y?",
        "What is n?",
        "How many FLOPs does this line do?",
    ]
    assert [q.get("forced", False) for q in questions] == [False, True, True, False]
    assert questions[1]["accept"]["value"] is False and questions[2]["accept"]["value"] == 6
    assert questions[3]["accept"]["value"] == 2 * 2 * 3 * 2  # (2, 3) @ (3, 2), counted because of @ask flops
    assert all(b["step"] - a["step"] >= MIN_GAP_STEPS for a, b in zip(questions, questions[1:]))


def test_noask_is_what_keeps_a_view_from_being_asked(demo):
    without = copy.deepcopy(demo)
    path = "tests/lectures/quiz_demo.py"
    without["files"][path] = without["files"][path].replace("  # @inspect w @noask", "  # @inspect w")
    lines = [step_frame(without["steps"][q["step"]])["line"] for q in choose_questions(without)]
    assert line_of(demo, "w = x[:, 1]") in lines


def test_ask_records_the_values_it_names(demo):
    # the recorder inspects what an @ask names, though the line has no @inspect
    step = next(s for s in demo["steps"] if s["stack"][-1]["line"] == line_of(demo, "z = y.contiguous()") and s["env"])
    assert set(step["env"]) == {"z", "y"}


def test_automatic_questions_keep_a_screenful_apart_on_a_real_lecture():
    trace = load_trace(REPO / "site" / "traces" / "lecture_02.json")
    auto = [q["step"] for q in choose_questions(trace) if not q.get("forced")]
    assert len(auto) >= 5 and all(b - a >= MIN_GAP_STEPS for a, b in zip(auto, auto[1:]))


@pytest.mark.parametrize("path", ["site/traces/lecture_02.json", "site/traces/gpu/lecture_02.json"])
def test_lecture_02_asks_in_its_sections_on_tensors_strides_views_dtypes_and_flops(path):
    trace = load_trace(REPO / path)  # as the site reads it: each step's stack from the frames table
    headings = sorted(section_headings(trace, 2) + section_headings(trace, 3))
    questions = choose_questions(trace)

    def asked_in(title: str) -> list[dict]:
        start = next(step for step, heading in headings if heading == title)
        end = min([step for step, _ in headings if step > start] + [len(trace["steps"])])
        return [q for q in questions if start <= q["step"] < end]

    assert [q["fact"] for q in asked_in("Creating tensors")] == ["nbytes"]  # tensors
    assert [q["fact"] for q in asked_in("Strides")] == ["stride"]
    assert [q["fact"] for q in asked_in("Views share storage")] == ["shares"]
    assert {q["fact"] for q in asked_in("Floating-point formats")} == {"nbytes"}  # dtypes change the bytes
    assert [q["fact"] for q in asked_in("FLOPs of a matrix multiplication")] == ["flops"]
    for question in questions:
        assert question["answer"] in question["choices"] or not question["choices"]


def test_questions_and_reasons_speak_the_course_language() -> None:
    value = {
        "type": "tensor",
        "shape": [2, 3],
        "stride": [1, 2],
        "storage_offset": 0,
        "contiguous": False,
        "numel": 6,
        "element_size": 8,
        "nbytes": 48,
        "dtype": "int64",
        "storage_id": "s1",
    }
    english = fact_question(5, "y", "contiguous", value)
    assert english is not None and english["prompt"] == "Is y contiguous?" and english["answer"] == "no"
    assert english["reason"] == "its strides (1, 2) are not a fresh tensor's (3, 1)"
    chinese = fact_question(5, "y", "contiguous", value, words=load_strings("zh-Hans"))
    assert chinese is not None and chinese["prompt"] == "y 是连续的吗？"
    assert chinese["answer"] == "否" and sorted(chinese["choices"]) == ["否", "是"]
    assert chinese["reason"] == "它的步长 (1, 2) 不是新建张量的步长 (3, 1)"
    nbytes = fact_question(5, "y", "nbytes", value, words=load_strings("zh-Hans"))
    assert nbytes is not None and nbytes["prompt"] == "y 占多少字节（nbytes）？"
    assert nbytes["reason"] == "6 个元素 × 8 字节（int64）= 48 字节"
