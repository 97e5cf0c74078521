from helpers.traced import traced

from tracer.site.model.line_records import collect_lines
from tracer.site.model.page_model import (
    Annotation,
    CodeBlock,
    build_document,
    is_rendering_only,
    paragraph_groups,
    rendering_statement,
    section_headings,
)

MAIN = "lectures/demo.py"
SOURCE = """from tracer import text


def helper(n):
    \"\"\"Add one.\"\"\"
    return n + 1


def unused():
    return 0


def main():
    text("# Demo")
    total = 0  # @inspect total
    for i in range(3):
        total += helper(i)  # @inspect total
    hidden = 1  # @hide
    value = (1 +
             2)  # @inspect value
"""


def step(line, env=None, renderings=None, function="main", stack=None, **extra):
    frame = {"path": MAIN, "line": line, "function": function}
    return {
        "stack": stack or [frame],
        "env": env or {},
        "renderings": renderings or [],
        "stdout": "",
        "memory": {"nbytes": 0, "peak_nbytes": 0},
        **extra,
    }


def demo_trace():
    steps = [step(14, renderings=[{"type": "markdown", "data": "# Demo"}]), step(15, {"total": {"type": "int", "value": 0}})]
    total = 0
    for i in range(3):
        steps.append(step(16))
        steps.append(step(17, call=True))
        steps.append(
            step(
                6,
                function="helper",
                stack=[{"path": MAIN, "line": 17, "function": "main"}, {"path": MAIN, "line": 6, "function": "helper"}],
            )
        )
        total += i + 1
        steps.append(step(17, {"total": {"type": "int", "value": total}}))
    steps.append(step(16))
    steps.append(step(18))
    steps.append(step(19, {"value": {"type": "int", "value": 3}}))
    return {
        "lecture": {"name": "demo", "path": MAIN, "title": "Demo"},
        "files": {MAIN: SOURCE},
        "hidden_lines": {MAIN: [18]},
        "steps": steps,
    }


def shown_lines(blocks):
    return [line.line for block in blocks if isinstance(block, CodeBlock) for line in block.lines]


def test_collect_lines_counts_runs_and_keeps_last_values():
    records = collect_lines(demo_trace())
    assert records[17].runs == 3  # call steps do not count as runs
    assert records[17].env["total"][1]["value"] == 6
    assert records[16].runs == 4
    assert records[6].runs == 3


def test_document_follows_the_run():
    blocks = build_document(demo_trace())
    lines = shown_lines(blocks)
    # main's signature and executed lines; helper's signature, docstring and body where main first
    # stepped into it (line 17, after its values); no unused(), no @hide line
    assert lines == [13, 15, 16, 17, 4, 5, 6, 19, 20]
    # the page opens with the lecture's prose: the text() line shows its rendering, in its place
    first_annotation = next(b for b in blocks if isinstance(b, Annotation))
    assert first_annotation.record.line == 14
    assert blocks.index(first_annotation) == 1  # after main's def line, before any helper code
    at_17 = next(k for k, b in enumerate(blocks) if isinstance(b, Annotation) and b.record.line == 17)
    assert shown_lines([blocks[at_17 + 1]]) == [4, 5, 6]


def test_a_helper_entered_from_an_unannotated_line_follows_that_line():
    trace = demo_trace()
    for s in trace["steps"]:
        s["env"] = {}  # no values anywhere: line 17 has no annotation, its code block is split after it
    lines = [shown_lines([b]) for b in build_document(trace) if isinstance(b, CodeBlock)]
    assert lines[:3] == [[13], [15, 16, 17], [4, 5, 6]] and lines[3][0] == 19


def test_values_follow_their_statement_and_multiline_statements_stay_whole():
    blocks = build_document(demo_trace())
    kinds = [(type(b).__name__, b.lines[-1].line if isinstance(b, CodeBlock) else b.record.line) for b in blocks]
    assert ("Annotation", 17) in kinds
    index = kinds.index(("Annotation", 19))
    assert kinds[index - 1] == ("CodeBlock", 20)  # the value comes after the statement's last line


def test_linked_function_shows_in_full():
    trace = demo_trace()
    trace["steps"][-1]["renderings"] = [
        {"type": "link", "url": None, "title": "unused", "internal": {"path": MAIN, "line": 9, "function": "unused"}}
    ]
    lines = shown_lines(build_document(trace))
    assert 9 in lines and 10 in lines
    code = {c.line: c for b in build_document(trace) if isinstance(b, CodeBlock) for c in b.lines}
    assert not code[9].ran and not code[10].ran  # never executed: dimmed
    assert code[6].ran and code[13].ran


def test_linked_function_that_ran_is_not_dimmed():
    trace = demo_trace()
    trace["steps"][-1]["renderings"] = [
        {"type": "link", "url": None, "title": "helper", "internal": {"path": MAIN, "line": 4, "function": "helper"}}
    ]
    code = {c.line: c for b in build_document(trace) if isinstance(b, CodeBlock) for c in b.lines}
    assert code[4].ran and code[5].ran and code[6].ran


def test_helper_module_renderings_attach_to_the_calling_line():
    trace = demo_trace()
    trace["steps"].insert(
        2,
        step(
            3,
            renderings=[{"type": "markdown", "data": "from a helper"}],
            function="f",
            stack=[{"path": MAIN, "line": 15, "function": "main"}, {"path": "lectures/util.py", "line": 3, "function": "f"}],
        ),
    )
    records = collect_lines(trace)
    assert [r["data"] for _, r in records[15].renderings] == ["from a helper"]


def test_with_the_real_tracer():
    trace = traced("site_basics")
    blocks = build_document(trace)
    lines = shown_lines(blocks)
    source = trace["files"][trace["lecture"]["path"]].splitlines()
    shown_text = "\n".join(source[k - 1] for k in lines)
    assert "text(" not in shown_text and "note(" not in shown_text  # renderings replace those lines
    assert "secret_setup" not in shown_text  # @hide
    assert "def double(t):" in shown_text and "return t * 2" in shown_text
    assert section_headings(trace) == [(1, "Tensors"), (9, "Values")]


def test_rendering_statement_kinds():
    import ast

    def kind(code):
        return rendering_statement(ast.parse(code).body[0])

    assert kind('text("See"), link(paper)') == "pure"
    assert kind("link(paper)") == "pure"
    assert kind('named_link("einops", url)') == "calls"
    assert kind('text("a"), helper()') == "calls"
    assert kind("x = text('a')") is None and kind("(1, text('a'))") is None and kind("x") is None
    assert is_rendering_only("pure", rendered=True, recorded_other=True)
    assert is_rendering_only("calls", rendered=True, recorded_other=False)
    assert not is_rendering_only("calls", rendered=True, recorded_other=True)  # a helper that also computed
    assert not is_rendering_only("pure", rendered=False, recorded_other=False)


def test_paragraph_groups_join_prose_and_links_only():
    see = {"type": "markdown", "data": "See"}
    cite = {"type": "link", "url": "u", "title": "t"}
    heading = {"type": "markdown", "data": "## A heading"}
    listing = {"type": "markdown", "data": "- one\n- two"}
    verbatim = {"type": "markdown", "data": "x", "verbatim": True}
    assert paragraph_groups([see, cite]) == [[see, cite]]
    assert paragraph_groups([heading, see, cite, listing]) == [[heading], [see, cite], [listing]]
    assert paragraph_groups([verbatim, cite]) == [[verbatim], [cite]]


def test_rendering_only_lines_and_helper_wrappers_replace_their_code():
    trace = traced("authoring_site")
    source = trace["files"][trace["lecture"]["path"]].splitlines()
    shown_text = "\n".join(source[k - 1] for k in shown_lines(build_document(trace)))
    assert 'text("See"), link(KAPLAN)' not in shown_text
    assert "named_link(" not in shown_text  # a helper that only rendered
    assert "params = 40000000000.0" in shown_text


def test_each_helper_shows_in_the_section_where_it_first_runs():
    """f, then g, then main: ``text("## A"); x = f(1); text("## B"); y = g(2)``. g's body and
    ``def main():`` never show under A (they were one code block with f's last line)."""
    trace = traced("sections_in_run_order")
    source = trace["files"][trace["lecture"]["path"]].splitlines()
    shown: list[str] = []
    for block in build_document(trace):
        if isinstance(block, CodeBlock):
            shown.extend(source[code.line - 1].strip() for code in block.lines)
        else:
            shown.extend(str(r.get("data")) for _, r in block.record.renderings)
    assert shown == [
        "def main():",
        "## A",
        "x = f(1)  # @inspect x",
        "def f(a):",
        "b = a + 1  # @inspect b",
        "return b",
        "## B",
        "y = g(2)  # @inspect y",
        "def g(a):",
        "c = a * 2  # @inspect c",
        "return c",
    ]
