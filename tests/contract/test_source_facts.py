"""tracer/contract/source_facts.py: one parse per source, shared by the capture side and the site side."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from tracer.contract import source_facts as sf
from tracer.capture import api

SOURCE = '''"""Doc."""
import torch


@decorated
def helper(x):
    """Helper doc."""
    total = (x +
             1)
    return total


class Outer:
    class Inner:
        pass


def main():
    y: Float[torch.Tensor, "batch seq"] = torch.zeros(2, 3)
    note = """a # not a comment
    @inspect nothing"""
    try:
        pass
    except ValueError:
        pass
'''


def test_facts_of_one_walk():
    facts = sf.source_facts(SOURCE)
    assert facts.error is None
    assert facts.owner[5] == facts.owner[6] == 6  # decorator and def line belong to the def
    assert facts.owner[9] == 8  # the assignment's second line
    assert facts.owner[7] == 7  # the docstring is a statement of its own
    assert facts.returns == {10}
    assert facts.annotations == {(19, "y"): "batch seq"}
    assert facts.class_lines == {"Outer": 13, "Outer.Inner": 14}
    assert (20, 21) in facts.strings
    assert 24 in facts.handlers
    assert [d.name for d in facts.definitions] == ["helper", "Outer", "main", "Inner"]
    assert sf.docstring_node(facts.definitions[0]).lineno == 7
    assert sf.header_end(facts.statements[6]) == 6 and sf.definition_start(facts.definitions[0]) == 5


def test_cached_by_text_and_syntax_errors_kept():
    assert sf.source_facts(SOURCE) is sf.source_facts(SOURCE)
    broken = sf.source_facts("def main(:\n")
    assert isinstance(broken.error, SyntaxError) and broken.tree.body == [] and broken.statements == {}


def test_rendering_calls_are_the_api_functions_that_emit():
    # A new rendering call in the API must be known to the site (or its statements show as code).
    tree = ast.parse(inspect.getsource(api))
    emitting = {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and not node.name.startswith("_")
        and any(isinstance(n, ast.Call) and getattr(n.func, "id", "") == "_emit" for n in ast.walk(node))
    }
    assert emitting == set(sf.RENDERING_CALLS), emitting ^ set(sf.RENDERING_CALLS)


def test_no_module_parses_lecture_sources_on_its_own():
    # Lecture text is parsed in source_facts only (lecture discovery reads files it has not traced).
    package = Path(sf.__file__).resolve().parent.parent
    offenders = [
        str(p.relative_to(package))
        for p in package.rglob("*.py")
        if "ast.parse(" in p.read_text(encoding="utf-8") and p.name != "source_facts.py"
    ]
    assert offenders == []


def test_every_directive_is_parsed_handled_and_documented():
    # A new directive name fails here until the parser keeps it (a Directives field), a line using it
    # parses to something, and the authoring guide documents it; the site hides it from code by the same list.
    import dataclasses

    from tracer.capture.directives import KNOWN, Directives, parse_source
    from tracer.site.model.directive_comments import DIRECTIVE_NAMES as SITE_NAMES

    assert KNOWN == SITE_NAMES == sf.DIRECTIVE_NAMES
    # all_locals is not a directive of its own: it is what a bare ``# @inspect`` (no names) sets; rows
    # is an @inspect option (``# @inspect x rows=32``).
    assert {f.name for f in dataclasses.fields(Directives)} - {"all_locals", "rows"} == set(sf.DIRECTIVE_NAMES)
    assert parse_source("def main():\n    x = 1  # @inspect x rows=3\n").by_line[2].rows == 3
    assert parse_source("def main():\n    x = 1  # @inspect\n").by_line[2].all_locals
    readme = (Path(sf.__file__).resolve().parents[2] / "site" / "docs" / "guide" / "authoring.md").read_text(encoding="utf-8")
    for name in sf.DIRECTIVE_NAMES:
        argument = "unencodable" if name == "accept" else "x"  # @accept takes a warning kind
        parsed = parse_source(f"def main():\n    x = 1  # @{name} {argument}\n")
        assert parsed.warnings == [], name
        assert parsed.by_line[2] != Directives() or parsed.hidden_lines, name
        assert f"@{name}" in readme, f"the authoring guide does not document @{name}"


def test_read_source_decodes_as_python_does(tmp_path):
    from tracer.contract.source_facts import read_source

    (tmp_path / "latin.py").write_bytes(b"# coding: latin-1\nx = '\xe9'\r\n")
    (tmp_path / "bom.py").write_bytes(b"\xef\xbb\xbfx = '\xc3\xa9'\n")
    (tmp_path / "plain.py").write_bytes(b"x = '\xc3\xa9'\n")
    assert read_source(tmp_path / "latin.py") == "# coding: latin-1\nx = 'é'\n"  # newlines translated, as read_text did
    assert read_source(tmp_path / "bom.py") == "x = 'é'\n"
    assert read_source(tmp_path / "plain.py") == "x = 'é'\n"
    (tmp_path / "bad.py").write_bytes(b"x = '\xe9'\n")
    with pytest.raises(SyntaxError):  # not UTF-8 and no coding line: as Python refuses it
        read_source(tmp_path / "bad.py")


def test_speaker_note_statements_are_emptied_and_every_other_line_kept_in_place():
    source = (
        "import tracer\n"
        "def main():\n"
        "    x = 1\n"
        "    speaker_note('one')\n"
        "    tracer.speaker_note('''\n"
        "        two\n"
        "    ''')\n"
        "    print(speaker_note)  # a name, not a note\n"
        "    y = speaker_note_count('three')\n"
    )
    kept = sf.without_speaker_notes(source).splitlines()
    assert len(kept) == len(source.splitlines())
    assert kept[3] == kept[4] == kept[5] == kept[6] == ""
    assert kept[2] == "    x = 1" and "print(speaker_note)" in kept[7] and "three" in kept[8]
    assert sf.without_speaker_notes("x = 1\n") == "x = 1\n"
