"""tracer/contract/helper_files.py: which helper modules opt in to being stepped into, and which decisions changed."""

from __future__ import annotations

import pytest

from tracer.contract.helper_files import MARKER, SettingsError, changed_decisions, has_marker, opted_in, trace_patterns


@pytest.mark.parametrize(
    "source, marked",
    [
        (f"{MARKER}\ndef f(): pass\n", True),
        ('"""Docstring."""\n#  chalktrace:   trace  \n', True),  # spacing is free
        ("\n" * 9 + MARKER + "\n", True),  # line 10
        ("\n" * 10 + MARKER + "\n", False),  # line 11: too far down to be "at the top"
        ("x = 1  # chalktrace: trace\n", False),  # a trailing comment on code is not the marker
        ("# chalktrace: trace me later\n", False),
        ("def f(): pass\n", False),
    ],
)
def test_marker(source, marked):
    assert has_marker(source) is marked


def test_patterns_match_project_relative_paths():
    patterns = ("lectures/_accounting.py", "lectures/helpers/*.py")
    assert opted_in("lectures/_accounting.py", "", patterns)
    assert opted_in("lectures/helpers/plots.py", "", patterns)
    assert not opted_in("lectures/_other.py", "", patterns)
    assert not opted_in("other/lectures/_accounting.py", "", patterns)


def test_trace_patterns_from_pyproject(tmp_path):
    assert trace_patterns(tmp_path) == ()  # no pyproject.toml
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    assert trace_patterns(tmp_path) == ()  # no [tool.chalktrace]
    (tmp_path / "pyproject.toml").write_text("[tool.chalktrace]\ntrace_helpers = ['a.py', 'b/*.py']\n", encoding="utf-8")
    assert trace_patterns(tmp_path) == ("a.py", "b/*.py")


@pytest.mark.parametrize(
    "text, message",
    [
        ("[tool.chalktrace]\ntrace_helpers = 'a.py'\n", "trace_helpers must be a list of path patterns"),
        ("[tool.chalktrace]\ntrace_helpers = [1]\n", "trace_helpers must be a list of path patterns"),
        ("[tool.chalktrace\n", "not valid TOML"),
    ],
)
def test_bad_settings_are_one_line_errors(tmp_path, text, message):
    (tmp_path / "pyproject.toml").write_text(text, encoding="utf-8")
    with pytest.raises(SettingsError, match=message) as caught:
        trace_patterns(tmp_path)
    assert str(caught.value).startswith("pyproject.toml: ") and "\n" not in str(caught.value)


def test_changed_decisions_re_decides_each_helper_among_the_sources(tmp_path):
    lectures = tmp_path / "lectures"
    lectures.mkdir()
    (lectures / "talk.py").write_text("def main(): pass\n")
    (lectures / "_a.py").write_text("X = 1\n")
    (lectures / "_b.py").write_text(f"{MARKER}\nY = 2\n")
    sources = ["lectures/_a.py", "lectures/_b.py", "lectures/images/x.svg", "lectures/talk.py"]
    settings = tmp_path / "pyproject.toml"

    settings.write_text("[project]\nname = 'x'\n")
    assert changed_decisions(sources, "lectures/talk.py", ["lectures/_b.py"], tmp_path) == []  # as recorded
    settings.write_text("[tool.chalktrace]\ntrace_helpers = ['lectures/_a.py']\n")
    assert changed_decisions(sources, "lectures/talk.py", ["lectures/_b.py"], tmp_path) == ["lectures/_a.py now stepped into"]
    (lectures / "_b.py").write_text("Y = 2\n")  # its marker removed (its hash changes too)
    assert changed_decisions(sources, "lectures/talk.py", ["lectures/_a.py", "lectures/_b.py"], tmp_path) == [
        "lectures/_b.py no longer stepped into"
    ]
    settings.write_text("[tool.chalktrace]\ntrace_helpers = 'lectures/_a.py'\n")
    with pytest.raises(SettingsError, match="trace_helpers must be a list"):
        changed_decisions(sources, "lectures/talk.py", [], tmp_path)
