"""edtrace's module names during a traced run: chalktrace's API, never an installed edtrace, gone afterwards."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from tracer.capture import import_alias
from tracer.capture.runner import LectureError, run_lecture
from tracer.contract.trace_reading import load_trace

FAKE_EDTRACE = 'raise RuntimeError("the installed edtrace was imported")\n'


def course(tmp_path: Path, lecture: str) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'c'\n")
    lectures = tmp_path / "lectures"
    lectures.mkdir()
    # an installed edtrace, first on sys.path (beside the lecture): importing it fails the test
    (lectures / "edtrace").mkdir()
    (lectures / "edtrace" / "__init__.py").write_text(FAKE_EDTRACE)
    (lectures / "edtrace" / "file_util.py").write_text(FAKE_EDTRACE)
    (lectures / "execute_util.py").write_text(FAKE_EDTRACE)  # an old course module of that name
    path = lectures / "lecture.py"
    path.write_text(textwrap.dedent(lecture))
    return path


LECTURE = """
    import edtrace
    import edtrace.file_util
    from edtrace import Reference, link, make_graph, graph, text
    from edtrace.file_util import download_file
    from execute_util import note


    def main():
        text("# Aliased")
        edtrace.text("through the module")
        link(Reference(title="A record", authors=["Ada Example"], date="2099"))
        graph(make_graph([{"id": "a"}, {"id": "b"}], [{"source": "a", "target": "b"}], layout="circle"))
        note("2025 style")
        assert edtrace.file_util.download_file is download_file
"""


def test_edtrace_and_execute_util_resolve_to_chalktrace_and_leave_no_trace(tmp_path):
    lecture = course(tmp_path, LECTURE)
    meta_path = list(sys.meta_path)
    result = run_lecture(lecture, output=tmp_path / "t.json")
    assert result.status == "ok", result.error_line
    kinds = [r["type"] for s in load_trace(tmp_path / "t.json")["steps"] for r in s["renderings"]]
    assert kinds == ["markdown", "markdown", "link", "graph", "note"]
    assert sys.meta_path == meta_path
    assert not [name for name in sys.modules if name.split(".")[0] in ("edtrace", "execute_util")]


def test_modules_imported_before_the_run_are_put_back(tmp_path):
    lecture = course(tmp_path, LECTURE)
    before = type(sys)("edtrace")
    sys.modules["edtrace"] = before
    try:
        assert run_lecture(lecture, output=tmp_path / "t.json").status == "ok"
        assert sys.modules["edtrace"] is before
    finally:
        del sys.modules["edtrace"]


def test_a_name_without_an_equivalent_fails_the_import_saying_so(tmp_path):
    lecture = course(
        tmp_path,
        """
        from edtrace import text, pop_renderings


        def main():
            text("never")
    """,
    )
    with pytest.raises(
        LectureError,
        match=r"lectures/lecture.py:\d+: MissingName: edtrace.pop_renderings has no "
        r"chalktrace equivalent yet",
    ):
        run_lecture(lecture, output=tmp_path / "t.json")
    assert not (tmp_path / "t.json").exists()


def test_alias_only_inside_the_block():
    with import_alias.installed():
        import edtrace  # noqa: F401  (served by the alias)

        assert sys.modules["edtrace"].text.__module__ == "tracer.capture.api"
    assert "edtrace" not in sys.modules
    with pytest.raises(ModuleNotFoundError):
        import edtrace  # noqa: F401,F811  (nothing installed)


def test_a_rank_process_gets_the_alias_too(tmp_path):
    from pathlib import Path as _Path

    lecture = _Path(__file__).resolve().parents[1] / "lectures" / "ranks_edtrace.py"
    result = run_lecture(lecture, output=tmp_path / "t.json")
    assert result.status == "ok", result.error_line
    streams = load_trace(tmp_path / "t.json")["ranks"]["launches"][0]["streams"]
    assert [[r["data"] for s in st["steps"] for r in s["renderings"]] for st in streams] == [
        ["rank 0 of 2 renders through edtrace's name"],
        ["rank 1 of 2 renders through edtrace's name"],
    ]
