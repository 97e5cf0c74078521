"""How a course's layout is found: chalktrace's lectures/, an edtrace course's root, or chalktrace.toml."""

from __future__ import annotations

import pytest

from tracer.contract.course_layout import CHALKTRACE, EDTRACE, LayoutError, layout_of


def lecture(path, body="def main():\n    pass\n"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body, encoding="utf-8")


def test_a_lectures_folder_is_chalktraces_layout(tmp_path):
    lecture(tmp_path / "lectures" / "intro.py")
    found = layout_of(tmp_path)
    assert (found.kind, found.lectures_dir, found.traces_dir) == (CHALKTRACE, tmp_path / "lectures", tmp_path / "site/traces")
    assert not found.lenient and found.scratch_dir is None


def test_root_lectures_beside_lecture_util_are_an_edtrace_course(tmp_path):
    lecture(tmp_path / "lecture_01.py")
    lecture(tmp_path / "lecture_util.py", "def helper():\n    pass\n")
    found = layout_of(tmp_path)
    assert (found.kind, found.lectures_dir, found.traces_dir) == (EDTRACE, tmp_path, tmp_path / "var/traces")
    assert found.found_by == "lectures at the root beside lecture_util.py"
    assert found.lenient and found.scratch_dir == tmp_path / "var" and found.site_dir == tmp_path / "var/site"
    assert found.is_lecture_file(tmp_path / "lecture_01.py") and not found.is_lecture_file(tmp_path / "execute.py")


def test_a_helper_alone_is_not_a_course(tmp_path):
    lecture(tmp_path / "lecture_util.py", "def helper():\n    pass\n")
    assert layout_of(tmp_path).kind == CHALKTRACE  # no lecture: `build` says there is no course here


@pytest.mark.parametrize(
    "pyproject",
    [
        '[project]\nname = "c"\ndependencies = ["numpy", "edtrace>=0.2"]\n',
        '[project]\nname = "c"\n[tool.uv.sources]\nedtrace = { path = "edtrace/backend", editable = true }\n',
        '[dependency-groups]\ndev = ["EdTrace"]\n',
    ],
)
def test_a_pyproject_that_depends_on_edtrace_is_an_edtrace_course(tmp_path, pyproject):
    (tmp_path / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    found = layout_of(tmp_path)
    assert found.kind == EDTRACE and found.found_by == "pyproject.toml depends on edtrace"


def test_a_dependency_named_like_edtrace_is_not_edtrace(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "c"\ndependencies = ["edtracer"]\n', encoding="utf-8")
    assert layout_of(tmp_path).kind == CHALKTRACE


def test_chalktrace_toml_decides_and_keeps_traces_where_it_says(tmp_path):
    lecture(tmp_path / "lectures" / "intro.py")  # ignored: the file says the root holds the lectures
    (tmp_path / "chalktrace.toml").write_text(
        'layout = "edtrace"\ntraces = "site/traces"\nlenient = false\n[alt_text]\n"images/a.png" = "A bar chart"\n',
        encoding="utf-8",
    )
    found = layout_of(tmp_path)
    assert (found.kind, found.lectures_dir, found.traces_dir, found.lenient) == (
        EDTRACE,
        tmp_path,
        tmp_path / "site/traces",
        False,
    )
    assert found.alt_text == {"images/a.png": "A bar chart"} and found.config == tmp_path / "chalktrace.toml"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('layout = "flat"\n', "chalktrace.toml: layout must be 'chalktrace' or 'edtrace', not 'flat'"),
        ("lenient = 1\n", "chalktrace.toml: lenient must be true or false"),
        ('trace = "var/traces"\n', "chalktrace.toml: unknown setting(s) trace (known: alt_text, layout, lenient, traces)"),
        ('traces = "/abs"\n', "chalktrace.toml: traces must be a folder relative to the course root, e.g. 'var/traces'"),
    ],
)
def test_a_chalktrace_toml_that_cannot_be_used_says_why(tmp_path, text, message):
    (tmp_path / "chalktrace.toml").write_text(text, encoding="utf-8")
    with pytest.raises(LayoutError) as raised:
        layout_of(tmp_path)
    assert str(raised.value) == message
