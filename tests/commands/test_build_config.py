"""`chalktrace build` and the MkDocs configuration: problems named by key before anything is traced,
a configuration without the chalktrace plugin refused, and a traced lecture without a page a failure."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def chalktrace(root: Path, *argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tracer", *argv],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1", **(env or {})},
    )


@pytest.fixture
def course(tmp_path: Path) -> Path:
    made = chalktrace(tmp_path, "init", "course", "-q")
    assert made.returncode == 0, made.stderr
    return tmp_path / "course"


def set_plugin(root: Path, lines: str) -> None:
    config = root / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    assert "  - chalktrace\n" in text
    config.write_text(text.replace("  - chalktrace\n", lines), encoding="utf-8")


def test_a_mistyped_plugin_option_is_named_with_its_key_before_anything_is_traced(course):
    set_plugin(course, "  - chalktrace:\n      step_mod: false\n")
    done = chalktrace(course, "build", "-q")
    assert done.returncode == 2, done.stderr
    assert (
        "mkdocs.yml: Config value 'plugins': Plugin 'chalktrace' option 'step_mod': Unrecognised configuration name"
        in done.stderr
    )
    assert "Traceback" not in done.stderr
    assert not list((course / "site" / "traces").glob("*.json")) and not (course / "build").exists()


def test_a_config_without_the_chalktrace_plugin_fails_in_one_line(course):
    set_plugin(course, "")
    done = chalktrace(course, "build", "-q")
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if "chalktrace plugin" in line]
    assert lines == [
        "mkdocs.yml: the chalktrace plugin is not loaded (add `- chalktrace` under `plugins:`); "
        "the site would have no lecture pages"
    ]
    assert not (course / "build").exists()


def test_a_lecture_whose_trace_produced_no_page_fails_the_build(course):
    (course / "elsewhere").mkdir()
    set_plugin(course, "  - chalktrace:\n      traces_dir: elsewhere\n")  # the plugin reads no trace of site/traces
    done = chalktrace(course, "build", "-q")
    assert done.returncode == 1, done.stderr
    assert "site/traces/hello.json: the site build wrote no page for it (no lectures/hello/index.html)" in done.stderr
    assert "site built" not in done.stderr


def test_a_config_inheriting_the_plugin_with_env_options_builds(course):
    config = course / "mkdocs.yml"
    text = config.read_text(encoding="utf-8").replace(
        "  - chalktrace\n", "  - chalktrace:\n      step_mode: !ENV [STEP_MODE, true]\n"
    )
    (course / "base.yml").write_text(text, encoding="utf-8")
    config.write_text("INHERIT: base.yml\n", encoding="utf-8")
    done = chalktrace(course, "build", "-q", env={"STEP_MODE": "false"})
    assert done.returncode == 0, done.stderr
    assert (course / "build" / "site" / "lectures" / "hello" / "index.html").is_file()
    assert not (course / "build" / "site" / "lectures" / "hello" / "data.js").exists()  # !ENV reached the plugin
