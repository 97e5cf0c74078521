"""tracer/cli.py: numeric options are checked when parsed, and a file-system error while writing is
one line naming the path and the reason, exit 2, with the previous trace intact."""

from __future__ import annotations

import contextlib
import errno
import io
import os

import pytest

from tracer.contract.paths import RESERVED_LECTURE_NAMES

from tracer import cli
from tracer.capture.runner import run_lecture


def call(*argv: str) -> tuple[int, str]:
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        try:
            code = cli.main(list(argv))
        except SystemExit as exc:  # argparse refuses
            code = exc.code
    return int(code), stderr.getvalue()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["run", "x.py", "--timeout", "nan"], "argument --timeout: must be a finite number of seconds above 0, got 'nan'"),
        (["run", "x.py", "--timeout", "inf"], "argument --timeout: must be a finite number of seconds above 0, got 'inf'"),
        (["run", "x.py", "--timeout", "-1"], "argument --timeout: must be a finite number of seconds above 0, got '-1'"),
        (["run", "x.py", "--timeout", "0"], "argument --timeout: must be a finite number of seconds above 0, got '0'"),
        (["run", "x.py", "--timeout", "soon"], "argument --timeout: not a number of seconds: 'soon'"),
        (["build", "--timeout", "nan"], "argument --timeout: must be a finite number of seconds above 0"),
        (["check", "-j", "0"], "argument -j/--jobs: must be at least 1, got 0"),
        (["run", "x.py", "--max-output-chars", "-5"], "argument --max-output-chars: must be 0 or more, got -5"),
        (["run", "x.py", "--preview-elements", "0"], "argument --preview-elements: must be at least 1, got 0"),
        (["run", "x.py", "--nproc-per-node", "0"], "argument --nproc-per-node: must be at least 1, got 0"),
    ],
)
def test_numeric_options_are_refused_clearly(argv, message):
    code, err = call(*argv)
    assert code == 2 and message in err and "Traceback" not in err


@pytest.fixture
def traced(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'scratch'\n", encoding="utf-8")
    (tmp_path / "lectures").mkdir()
    lecture = tmp_path / "lectures" / "tiny.py"
    lecture.write_text("def main():\n    x = 1  # @inspect x\n", encoding="utf-8")
    out = tmp_path / "site" / "traces" / "tiny.json"
    run_lecture(lecture, output=out)
    return lecture, out


def test_a_full_disk_is_one_line_with_path_and_reason_and_the_previous_trace_stays(traced, monkeypatch):
    lecture, out = traced
    previous = out.read_bytes()
    lecture.write_text("def main():\n    x = 2  # @inspect x\n", encoding="utf-8")

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    code, err = call("run", str(lecture), "-o", str(out), "-q")
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, err
    assert "tiny.json: No space left on device" in lines[0] and "previous" in lines[0]
    assert out.read_bytes() == previous
    assert [p.name for p in out.parent.iterdir()] == ["tiny.json"]  # no temporary file left behind


def test_a_traces_folder_that_cannot_be_written_is_one_line_naming_it(traced):
    lecture, out = traced
    blocked = out.parent.parent / "blocked"
    blocked.write_text("a file where a folder should be", encoding="utf-8")
    code, err = call("run", str(lecture), "-o", str(blocked / "tiny.json"), "-q")
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, err
    assert "blocked" in lines[0] and "Traceback" not in err


@pytest.mark.parametrize("name", ["index", "README", "assets", "search", "Index", "404"])
def test_a_lecture_named_like_a_path_the_site_reserves_is_refused_with_the_list(tmp_path, name):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'scratch'\n", encoding="utf-8")
    (tmp_path / "lectures").mkdir()
    lecture = tmp_path / "lectures" / f"{name}.py"
    lecture.write_text("def main():\n    x = 1\n", encoding="utf-8")
    code, err = call("run", str(lecture), "-q")
    assert code == 2
    assert err.strip() == (
        f"lectures/{name}.py: the name {name!r} is reserved by the site (its page would not be "
        f"at lectures/{name}/); reserved names: {', '.join(RESERVED_LECTURE_NAMES)}; rename the file "
        f"(e.g. {name}_lecture.py)"
    )
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize("name", ["..", ".", ".hidden", "trailing."])
def test_a_lecture_named_with_path_steps_or_edge_dots_is_refused_in_one_line(tmp_path, name):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'scratch'\n", encoding="utf-8")
    (tmp_path / "lectures").mkdir()
    lecture = tmp_path / "lectures" / f"{name}.py"
    lecture.write_text("def main():\n    x = 1\n", encoding="utf-8")
    code, err = call("run", str(lecture), "-q")
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, err
    assert f"the name {name!r} cannot be part of a page URL" in lines[0] and "rename the file" in lines[0]
    assert not (tmp_path / "site").exists() and not (tmp_path / "data.js").exists()
