"""tracer/cli.py: ``python -m tracer run``: exit codes, messages, output paths and options."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tracer import cli
from tracer.contract.trace_reading import load_trace
from tracer.contract.trace_validation import validation_error

REPO = Path(__file__).resolve().parents[2]
COMMANDS_PAGE = REPO / "site" / "docs" / "guide" / "course-setup.md"  # the commands, their options and exit codes
LECTURES = REPO / "tests" / "lectures"
PREVIOUS = '{"schema_version": 1, "previous": "trace"}\n'

OK = '"""A tiny lecture."""\n\nfrom tracer import text\n\n\ndef main():\n    text("# Tiny")\n    x = 41 + 1  # @inspect x\n'
BOOM = 'def main():\n    n = 1  # @inspect n\n    raise ValueError("bad value")\n'
BROKEN = "def main():\n    x = [1,\n\n    y = 2\n"


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A throwaway project (pyproject.toml marker, lectures/) so nothing is written into the repo."""
    root = tmp_path_factory.mktemp("project")
    (root / "pyproject.toml").write_text("[project]\nname = 'scratch'\n", encoding="utf-8")
    (root / "lectures").mkdir()
    for name, source in (("ok", OK), ("boom", BOOM), ("broken", BROKEN)):
        (root / "lectures" / f"{name}.py").write_text(source, encoding="utf-8")
    traces = root / "site" / "traces"
    traces.mkdir(parents=True)
    (traces / "broken.json").write_text(PREVIOUS, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def runs(project):
    """The three exit codes, one subprocess each, run side by side (each is mostly torch's import)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    commands = {
        "ok": ["lectures/ok.py"],
        "boom": ["lectures/boom.py", "-o", "out/boom.json"],
        "broken": ["lectures/broken.py"],
    }
    procs = {
        name: subprocess.Popen(
            [sys.executable, "-m", "tracer", "run", *args],
            cwd=project,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, args in commands.items()
    }
    results = {}
    for name, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=120)
        results[name] = (proc.returncode, stdout, stderr)
    return results


def test_exit_0_writes_default_output_under_project_root(project, runs):
    code, _, stderr = runs["ok"]
    assert code == 0, stderr
    trace = load_trace(project / "site" / "traces" / "ok.json")
    assert trace["status"] == "ok" and trace["lecture"] == {"name": "ok", "path": "lectures/ok.py", "title": "Tiny"}
    assert "lectures/ok.py: ok," in stderr
    assert not (REPO / "site" / "traces" / "ok.json").exists()


def test_exit_1_lecture_raised_prints_path_line_type_message(project, runs):
    code, _, stderr = runs["boom"]
    assert code == 1
    assert "lectures/boom.py:3: ValueError: bad value" in stderr.splitlines()
    trace = load_trace(project / "out" / "boom.json")  # -o, relative to the working directory
    assert trace["status"] == "error" and trace["steps"][-1]["error"]["type"] == "ValueError"
    assert not (project / "site" / "traces" / "boom.json").exists()


def test_exit_2_syntax_error_one_line_and_previous_trace_untouched(project, runs):
    code, stdout, stderr = runs["broken"]
    assert code == 2
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lectures/broken.py:2: SyntaxError: "), stderr
    assert (project / "site" / "traces" / "broken.json").read_text(encoding="utf-8") == PREVIOUS
    assert "Traceback" not in stderr + stdout


# -- in-process: the same main() the console script calls ------------------------------------------------
def call(*argv: str) -> tuple[int, str]:
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        code = cli.main(list(argv))
    return code, stderr.getvalue()


@pytest.mark.parametrize("argv", [["--help"], ["run", "--help"]])
def test_help_documents_exit_codes(capsys, argv):
    with pytest.raises(SystemExit) as info:
        cli.main(argv)
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "exit codes:" in out
    for code in ("0", "1", "2"):
        assert any(line.strip().startswith(code + " ") for line in out.splitlines()), code


def test_missing_file_exit_2(tmp_path):
    code, stderr = call("run", str(tmp_path / "nope.py"), "-o", str(tmp_path / "t.json"), "-q")
    assert code == 2 and stderr.strip().endswith("nope.py: no such lecture file")
    assert not (tmp_path / "t.json").exists()


def test_output_takes_a_single_lecture(tmp_path):
    code, stderr = call("run", "a.py", "b.py", "-o", str(tmp_path / "t.json"))
    assert code == 2 and "single lecture" in stderr


def test_quiet_prints_nothing_on_success(tmp_path):
    code, stderr = call("run", str(LECTURES / "uses_helper.py"), "-o", str(tmp_path / "t.json"), "-q")
    assert code == 0 and stderr == ""
    assert validation_error(json.loads((tmp_path / "t.json").read_text(encoding="utf-8"))) is None


def test_seed_and_inspect_all_and_max_steps_reach_the_trace(tmp_path):
    out = tmp_path / "t.json"
    code, _ = call(
        "run", str(LECTURES / "inspect_all_demo.py"), "-o", str(out), "-q", "--seed", "5", "--inspect-all", "--max-steps", "2"
    )
    trace = load_trace(out)
    assert code == 0 and trace["environment"]["seed"] == 5
    assert trace["truncated"] == {"max_steps": 2} and len(trace["steps"]) == 2
    assert sorted(trace["steps"][1]["env"]) == ["a", "b"]


def test_seed_changes_random_values(tmp_path):
    def values(seed: str) -> list:
        out = tmp_path / f"s{seed}.json"
        call("run", str(LECTURES / "random_values.py"), "-o", str(out), "-q", "--seed", seed)
        return [v for s in load_trace(out)["steps"] for v in s["env"].values()]

    assert values("0") == values("0") != values("3")


def test_every_command_is_registered_in_cli_and_listed_in_the_readme():
    # One place registers commands: a command missing from COMMANDS is missing from `chalktrace --help`.
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, __import__("argparse")._SubParsersAction))
    assert sorted(sub.choices) == sorted(cli.COMMANDS)
    readme = COMMANDS_PAGE.read_text(encoding="utf-8")
    for name in cli.COMMANDS:
        assert f"chalktrace {name}" in readme, f"the guide's Commands section does not show `chalktrace {name}`"


def test_each_command_is_a_module_and_only_cli_parses_command_lines():
    # MkDocs' shape: the CLI parses and dispatches; tracer/commands/NAME.py does the work with main(args).
    import importlib

    for name in cli.COMMANDS:
        assert callable(importlib.import_module(f"tracer.commands.{name}").main), name
    for path in sorted((REPO / "tracer").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if path.name != "cli.py":
            assert "add_argument(" not in text and "ArgumentParser(" not in text, (
                f"{path.relative_to(REPO)} parses arguments; parsers belong in tracer/cli.py"
            )


def test_exit_codes_documented_once_and_in_the_readme():
    from tracer.exit_codes import EPILOG, ExitCode

    readme = COMMANDS_PAGE.read_text(encoding="utf-8")
    paragraph = readme[readme.index("Exit codes:") :].split("\n\n")[0]
    for code in ExitCode:
        assert f"  {int(code)} " in EPILOG
        assert f"; {int(code)} " in paragraph or paragraph.startswith(f"Exit codes: {int(code)} "), (
            f"the guide does not explain exit code {int(code)}"
        )


def synopsis(readme: str, command: str) -> str:
    """The guide's synopsis lines of ``command`` (with their continuation lines)."""
    block = readme[readme.index("## Commands") :].split("```")[1]
    lines, taken = [], False
    for line in block.splitlines():
        if line.startswith("chalktrace "):
            taken = line.split()[1] == command
        if taken:
            lines.append(line)
    return "\n".join(lines)


def test_every_option_is_in_its_command_s_synopsis():
    import argparse

    readme = COMMANDS_PAGE.read_text(encoding="utf-8")
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    missing = []
    for name, command in sub.choices.items():
        shown = synopsis(readme, name)
        for action in command._actions:
            strings = [s for s in action.option_strings if s not in ("-h", "--help", "-q", "--quiet")]
            if strings and not any(re.search(re.escape(s) + r"\b", shown) for s in strings):
                missing.append(f"{name} {strings[-1]}")
    assert missing == []


def test_run_on_a_folder_is_one_line(tmp_path):
    (tmp_path / "lectures").mkdir()
    code, stderr = call("run", str(tmp_path / "lectures"), "-q")
    assert code == 2 and len(stderr.strip().splitlines()) == 1
    assert (
        stderr.strip() == "lectures: is a folder; run takes lecture files (lectures/NAME.py), `chalktrace build` "
        "traces every lecture"
    )


@pytest.mark.parametrize("command", [["build"], ["check"], ["serve", "-a", "127.0.0.1:0"], ["present"]])
def test_commands_outside_a_course_say_so_in_one_line(tmp_path, command):
    done = subprocess.run([sys.executable, "-m", "tracer", *command], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"chalktrace {command[0]}: not in a course: no lectures/ folder in {tmp_path} "
        "(run it in a course's folder; `chalktrace init DIR` makes one; an edtrace course: `chalktrace init --here`)"
    ]


def test_build_of_a_course_without_mkdocs_yml_says_so(tmp_path):
    (tmp_path / "lectures").mkdir()
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    code, stderr = call_in(tmp_path, "build")
    assert code == 2 and stderr.splitlines() == [
        f"chalktrace build: not in a course: no mkdocs.yml in {tmp_path} (`chalktrace init DIR` makes one; "
        "`build --no-site` only traces)"
    ]


def test_serve_on_a_busy_port_is_one_line(tmp_path):
    import socket

    (tmp_path / "lectures").mkdir()
    (tmp_path / "mkdocs.yml").write_text("site_name: x\n", encoding="utf-8")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "tracer", "serve", "-a", f"127.0.0.1:{port}"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"chalktrace serve: 127.0.0.1:{port} is in use (Address already in use): is "
        "another server running there? Stop it, or pass another address: "
        f"-a 127.0.0.1:{port + 1}"
    ]


def call_in(directory: Path, *args: str) -> tuple[int, str]:
    done = subprocess.run([sys.executable, "-m", "tracer", *args], cwd=directory, capture_output=True, text=True, timeout=120)
    return done.returncode, done.stderr


def test_the_version_is_written_once_shown_by_version_and_recorded_in_each_trace(capsys):
    import tomllib

    import tracer
    from helpers.traced import traced

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "tracer.__version__"}
    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.strip() == f"chalktrace {tracer.__version__}"
    assert traced("site_basics")["environment"]["chalktrace"] == tracer.__version__
