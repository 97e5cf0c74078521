"""tracer/new_course.py (``lectrace init DIR``): the files of a new course, and never overwriting.

That the new course traces and builds with lectrace installed from a wheel is tests/test_packaging.py.
"""

from __future__ import annotations

import os

from tracer import cli
from tracer.new_course import create_course

EXPECTED = [".ci/run", ".gitignore", "README.md", "lectures/hello.py", "mkdocs.yml", "requirements.txt",
            "site/docs/index.md"]


def test_init_writes_a_course(tmp_path):
    course = tmp_path / "intro-to-ml"
    assert create_course(course) == EXPECTED
    assert (course / "site" / "traces").is_dir()
    assert os.access(course / ".ci" / "run", os.X_OK)
    assert "site_name: intro to ml" in (course / "mkdocs.yml").read_text()
    assert "  - lectrace" in (course / "mkdocs.yml").read_text()
    readme = (course / "README.md").read_text().splitlines()
    assert readme[0] == "# intro to ml"
    commands = [line for line in readme[:6] if line.startswith(".venv/") or line.startswith("python3 -m venv")]
    assert len(commands) == 2 and "lectrace build" in commands[0] and "lectrace check" in commands[1]
    assert "<!-- lectrace:lectures -->" in (course / "site" / "docs" / "index.md").read_text()
    compile((course / "lectures" / "hello.py").read_text(), "hello.py", "exec")


def test_init_refuses_a_directory_with_files(tmp_path, capsys):
    (tmp_path / "keep.txt").write_text("mine")
    assert cli.main(["init", str(tmp_path)]) == 2
    assert "already exists and is not empty" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


def test_init_command_and_name_option(tmp_path):
    assert cli.main(["init", str(tmp_path / "c"), "--name", "Systems 101", "-q"]) == 0
    assert (tmp_path / "c" / "README.md").read_text().startswith("# Systems 101\n")


def test_init_requirement_option_says_where_lectrace_comes_from(tmp_path):
    assert (create_course(tmp_path / "a") and (tmp_path / "a" / "requirements.txt").read_text() == "lectrace\n")
    spec = "lectrace @ file:///wheels/lectrace-0.1.0-py3-none-any.whl"
    assert cli.main(["init", str(tmp_path / "b"), "--requirement", spec, "-q"]) == 0
    assert (tmp_path / "b" / "requirements.txt").read_text() == spec + "\n"
