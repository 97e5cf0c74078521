"""tracer/capture/runner.py: running a lecture end to end: errors, bad input, atomic writes, determinism, options."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import sys
from pathlib import Path

import pytest

from tracer.capture import api, runner
from tracer.capture.runner import LectureError, find_project_root, run_lecture
from tracer.contract.trace_reading import load_trace
from tracer.contract.trace_validation import validation_error
from helpers.traced import line_of

REPO = Path(__file__).resolve().parents[2]
LECTURES = REPO / "tests" / "lectures"
PREVIOUS = '{"schema_version": 1, "previous": "trace"}\n'


@pytest.fixture
def project(tmp_path):
    """A throwaway project: a pyproject.toml marker and a lectures/ folder."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'scratch'\n", encoding="utf-8")
    (tmp_path / "lectures").mkdir()
    return tmp_path


def write_lecture(project: Path, name: str, source: str) -> Path:
    path = project / "lectures" / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    return path


def previous_trace(directory: Path) -> Path:
    out = directory / "previous.json"
    out.write_text(PREVIOUS, encoding="utf-8")
    return out


# -- a lecture that raises -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def raised(tmp_path_factory):
    out = tmp_path_factory.mktemp("raised") / "raises_midway.json"
    result = run_lecture(LECTURES / "raises_midway.py", output=out)
    return result, load_trace(out)


def test_exception_still_writes_a_valid_trace(raised):
    result, trace = raised
    assert result.status == "error" and trace["status"] == "error"
    assert validation_error(trace) is None


def test_exception_steps_end_at_the_failing_line(raised):
    _, trace = raised
    lines = [(s["stack"][-1]["function"], s["stack"][-1]["line"]) for s in trace["steps"]]
    assert lines == [
        ("main", line_of("raises_midway", "n = 3")),
        ("main", line_of("raises_midway", "print(")),
        ("main", line_of("raises_midway", "ratio = divide")),
        ("divide", line_of("raises_midway", "return a / b")),
    ]
    assert trace["steps"][1]["stdout"] == "before the error\n"
    assert all("error" not in s for s in trace["steps"][:-1])


def test_exception_error_fields(raised):
    result, trace = raised
    error = trace["steps"][-1]["error"]
    path = "tests/lectures/raises_midway.py"
    assert error == {
        "type": "ZeroDivisionError",
        "message": "division by zero",
        "traceback": [
            {"path": path, "line": line_of("raises_midway", "ratio = divide"), "function": "main"},
            {"path": path, "line": line_of("raises_midway", "return a / b"), "function": "divide"},
        ],
    }
    assert trace["error"] == error
    assert result.error_line == f"{path}:{line_of('raises_midway', 'return a / b')}: ZeroDivisionError: division by zero"


def test_exception_leaves_no_spurious_warnings(raised):
    _, trace = raised  # `ratio` was never bound because its line raised: not a lecture mistake
    assert trace["warnings"] == []


def test_caught_exception_is_not_an_error(project, tmp_path):
    lecture = write_lecture(
        project,
        "caught",
        (
            "def main():\n"
            "    try:\n"
            "        x = 1 / 0\n"
            "    except ZeroDivisionError:\n"
            "        x = 0  # @inspect x\n"
            "    y = x + 1  # @inspect y\n"
        ),
    )
    result = run_lecture(lecture, output=tmp_path / "t.json")
    trace = load_trace(tmp_path / "t.json")
    assert result.status == "ok" and "error" not in trace
    assert not any("error" in s for s in trace["steps"])
    assert trace["steps"][-1]["env"] == {"y": {"type": "int", "value": 1}}


# -- bad input: nothing written ---------------------------------------------------------------------------
def test_syntax_error_names_file_and_line_and_keeps_previous_trace(project):
    lecture = write_lecture(project, "broken", "def main():\n    x = 1\n    y = (2\n")
    out = previous_trace(project)
    with pytest.raises(LectureError) as info:
        run_lecture(lecture, output=out)
    message = str(info.value)
    assert re.fullmatch(r"lectures/broken\.py:3: SyntaxError: .+", message), message
    assert "\n" not in message
    assert out.read_text(encoding="utf-8") == PREVIOUS


def test_missing_file_names_the_file(project):
    out = previous_trace(project)
    with pytest.raises(LectureError) as info:
        run_lecture(project / "lectures" / "nope.py", output=out)
    assert str(info.value) == "lectures/nope.py: no such lecture file"
    assert out.read_text(encoding="utf-8") == PREVIOUS


def test_import_error_names_the_line_and_writes_nothing(project):
    lecture = write_lecture(project, "bad_import", "import os\nimport no_such_module_for_chalktrace\n\n\ndef main():\n    pass\n")
    out = project / "site" / "traces" / "bad_import.json"
    with pytest.raises(LectureError) as info:
        run_lecture(lecture)
    assert str(info.value).startswith("lectures/bad_import.py:2: ModuleNotFoundError: ")
    assert not out.exists() and not (project / "site").exists()


def test_no_main_is_bad_input(project):
    lecture = write_lecture(project, "no_main", "x = 1\n")
    with pytest.raises(LectureError, match=r"^lectures/no_main\.py:1: no main\(\) function"):
        run_lecture(lecture)
    assert not (project / "site").exists()


# -- atomic writes ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("crash_at", ["os.replace", "os.fsync", "trace_json"])
def test_crash_while_writing_keeps_previous_trace_and_leaves_no_temp_file(tmp_path, monkeypatch, crash_at):
    out = previous_trace(tmp_path)

    def crash(*args, **kwargs):
        raise OSError(f"simulated crash in {crash_at}")

    if crash_at == "trace_json":
        monkeypatch.setattr(runner, "trace_json", crash)
    else:
        monkeypatch.setattr(os, crash_at.split(".")[1], crash)
    with pytest.raises(OSError, match="simulated crash"):
        run_lecture(LECTURES / "uses_helper.py", output=out)
    monkeypatch.undo()
    assert out.read_text(encoding="utf-8") == PREVIOUS
    assert sorted(p.name for p in tmp_path.iterdir()) == ["previous.json"]


def test_default_output_is_under_the_project_root(project):
    lecture = write_lecture(project, "tiny", "def main():\n    x = 1  # @inspect x\n")
    result = run_lecture(lecture)
    out = project / "site" / "traces" / "tiny.json"
    assert result.output == out and load_trace(out)["lecture"] == {"name": "tiny", "path": "lectures/tiny.py", "title": "tiny"}


def test_find_project_root(project):
    nested = project / "lectures" / "deep"
    nested.mkdir()
    assert find_project_root(nested) == project


# -- determinism, paths, addresses ------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["calls_and_comprehensions", "random_values", "directives_demo"])
def test_two_runs_give_identical_json(tmp_path, name):
    first = run_lecture(LECTURES / f"{name}.py", output=tmp_path / "a.json")
    second = run_lecture(LECTURES / f"{name}.py", output=tmp_path / "b.json")
    assert first.trace_text == second.trace_text
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


def test_no_machine_paths_or_addresses_in_repo_lecture(tmp_path):
    result = run_lecture(LECTURES / "paths_and_addresses.py", output=tmp_path / "t.json")
    text = (tmp_path / "t.json").read_text(encoding="utf-8")
    assert str(REPO) not in text and str(tmp_path) not in text
    assert not re.search(r"0x[0-9a-fA-F]{4,}", text)
    trace = json.loads(text)
    here = [s["env"]["here"] for s in trace["steps"] if "here" in s["env"]]
    assert here == [{"type": "str", "value": "tests/lectures/paths_and_addresses.py"}]
    assert "tests/lectures/paths_and_addresses.py" in "".join(s["stdout"] for s in trace["steps"])
    assert trace["error"]["message"] == "stopped in tests/lectures/paths_and_addresses.py"
    assert result.error_line.endswith("RuntimeError: stopped in tests/lectures/paths_and_addresses.py")


def test_no_machine_paths_for_a_lecture_outside_the_repo(project, tmp_path):
    lecture = write_lecture(
        project,
        "where",
        (
            "from pathlib import Path\n\n"
            "def helper():\n"
            "    return 1\n\n"
            "def main():\n"
            "    here = Path(__file__)  # @inspect here\n"
            "    fn = helper  # @inspect fn\n"
            "    print(__file__, object())\n"
        ),
    )
    run_lecture(lecture, output=tmp_path / "t.json")
    text = (tmp_path / "t.json").read_text(encoding="utf-8")
    assert str(project) not in text and str(Path.home()) + "/" not in text
    assert not re.search(r"0x[0-9a-fA-F]{4,}", text)
    trace = json.loads(text)
    assert set(trace["files"]) == {"lectures/where.py"}
    fn = [s["env"]["fn"] for s in trace["steps"] if "fn" in s["env"]][0]
    assert fn == {"type": "function", "name": "helper", "path": "lectures/where.py", "line": 3}


# -- header ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def helper_trace(tmp_path_factory):
    out = tmp_path_factory.mktemp("helper") / "uses_helper.json"
    run_lecture(LECTURES / "uses_helper.py", output=out, seed=7)
    return load_trace(out)


def test_sources_hash_every_lecture_file(helper_trace):
    for path in ("tests/lectures/uses_helper.py", "tests/lectures/_helper_mod.py"):
        assert helper_trace["sources"][path] == hashlib.sha256((REPO / path).read_bytes()).hexdigest()


def test_environment(helper_trace):
    import numpy
    import torch

    env = helper_trace["environment"]
    assert env["python"] == platform.python_version() and env["torch"] == torch.__version__
    assert env["numpy"] == numpy.__version__ and env["seed"] == 7
    assert env["device"] == ("cuda" if torch.cuda.is_available() else "cpu")


def test_title_falls_back_to_docstring(helper_trace):
    doc = (LECTURES / "uses_helper.py").read_text(encoding="utf-8").split('"""')[1]
    assert helper_trace["lecture"]["title"] == doc.splitlines()[0]


def test_run_leaves_the_interpreter_as_it_found_it():
    path_before, stdout_before = list(sys.path), sys.stdout
    run_lecture(LECTURES / "uses_helper.py", write=False)
    assert sys.path == path_before and sys.stdout is stdout_before
    assert "uses_helper" not in sys.modules and "_helper_mod" not in sys.modules
    assert api.current_sink() is None
    assert sys.gettrace() is None or "coverage" in type(sys.gettrace()).__module__


def test_write_false_writes_nothing(tmp_path):
    result = run_lecture(LECTURES / "uses_helper.py", output=tmp_path / "t.json", write=False)
    assert result.output is None and not (tmp_path / "t.json").exists()
    assert validation_error(json.loads(result.trace_text)) is None


# -- options -----------------------------------------------------------------------------------------
def test_inspect_all_records_every_local_at_every_step(tmp_path):
    run_lecture(LECTURES / "inspect_all_demo.py", output=tmp_path / "t.json", inspect_all=True)
    steps = load_trace(tmp_path / "t.json")["steps"]
    assert [sorted(s["env"]) for s in steps] == [["a"], ["a", "b"], ["a", "b", "t"], ["a", "b", "t"]]
    assert steps[-1]["env"]["a"] == {"type": "int", "value": 3}
    assert steps[2]["env"]["t"]["type"] == "tensor"


def test_without_inspect_all_nothing_is_recorded(tmp_path):
    run_lecture(LECTURES / "inspect_all_demo.py", output=tmp_path / "t.json")
    assert all(s["env"] == {} for s in load_trace(tmp_path / "t.json")["steps"])


def _random_values(tmp_path: Path, seed: int | None) -> dict:
    kwargs = {} if seed is None else {"seed": seed}
    result = run_lecture(LECTURES / "random_values.py", output=tmp_path / f"seed{seed}.json", **kwargs)
    steps = json.loads(result.trace_text)["steps"]
    env = {k: v for s in steps for k, v in s["env"].items()}
    return {"r": env["r"]["value"], "n": env["n"]["value"], "t": env["t"]["values"]}


def test_seed_default_is_zero_and_reproducible(tmp_path):
    default = _random_values(tmp_path, None)
    assert default == _random_values(tmp_path, 0)
    import random

    assert default["r"] == random.Random(0).random()


def test_seed_changes_every_generator(tmp_path):
    zero, one = _random_values(tmp_path, 0), _random_values(tmp_path, 1)
    assert all(zero[k] != one[k] for k in ("r", "n", "t"))


def test_a_lecture_that_never_imports_torch_is_traced_without_importing_it(tmp_path):
    # torch is the `chalktrace[torch]` extra: a numpy or pure-Python lecture must trace where it is
    # missing, so nothing on the capture side may import it for such a lecture (an @flops line included).
    import subprocess

    lecture = Path(__file__).parents[1] / "lectures" / "numpy_only.py"
    out = tmp_path / "numpy_only.json"
    script = (
        "import sys; from tracer.capture.runner import run_lecture; "
        f"run_lecture({str(lecture)!r}, output={str(out)!r}); print(sorted(m for m in sys.modules if m.split('.')[0] == 'torch'))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    trace = load_trace(out)
    assert trace["environment"]["torch"] is None and trace["environment"]["numpy"]
    a = next(s["env"]["a"] for s in trace["steps"] if "a" in s["env"])
    assert a["type"] == "ndarray" and a["stats"]["min"] == 0.0 and a["stats"]["max"] == 1.0
    assert a["stats"]["mean"] == 0.5 and abs(a["stats"]["std"] - 0.3952847075210474) < 1e-12  # sample std, as torch's
    # the @flops line is timed without PyTorch's counter (importing torch would count none of numpy's work)
    compute = next(s["compute"] for s in trace["steps"] if "compute" in s)
    assert compute["flops"] == 0 and compute["seconds"] >= 0 and "does not import torch" in compute["peak_note"]
    assert not any("@flops" in w for w in trace["warnings"])


# -- a lecture named like a module -----------------------------------------------------------------
LIBRARY_NAMES = ["numbers", "math", "random", "types", "copy", "inspect", "tracer"]


@pytest.mark.parametrize("name", LIBRARY_NAMES)
def test_a_lecture_named_like_a_module_shadows_nothing(project, tmp_path, name):
    # The lecture and the libraries it uses import these names; the lecture itself must not answer for them.
    write_lecture(
        project,
        name,
        "import numbers, math, random, types, copy, inspect\n"
        "from tracer import text\n\n\n"
        "def main():\n"
        f"    text('# {name}')\n"
        "    x = isinstance(3, numbers.Integral)  # @inspect x\n"
        "    y = copy.deepcopy([math.floor(2.5)])  # @inspect y\n",
    )
    result = run_lecture(project / "lectures" / f"{name}.py", output=tmp_path / "out.json")
    assert (result.status, result.error_line) == ("ok", None)
    assert name not in sys.modules or getattr(sys.modules[name], "__file__", None) != str(project / "lectures" / f"{name}.py")
    envs = [step.get("env") or {} for step in load_trace(tmp_path / "out.json")["steps"]]
    assert {"type": "bool", "value": True} in [env.get("x") for env in envs]
    assert [2] in [[item["value"] for item in env["y"]["items"]] for env in envs if "y" in env]


def test_a_lecture_class_is_named_without_a_module(project, tmp_path):
    write_lecture(project, "shapes", "class Box:\n    pass\n\n\ndef main():\n    b = Box()  # @inspect b\n")
    run_lecture(project / "lectures" / "shapes.py", output=tmp_path / "out.json")
    text = (tmp_path / "out.json").read_text(encoding="utf-8")
    assert "__chalktrace_lecture__" not in text and "Box" in text


def test_an_error_keeps_python_s_suggestion(project, tmp_path):
    write_lecture(project, "typo", "def main():\n    w_k = 1\n    y = w_q + 1\n")
    result = run_lecture(project / "lectures" / "typo.py", output=tmp_path / "out.json")
    assert result.error_line == "lectures/typo.py:3: NameError: name 'w_q' is not defined. Did you mean: 'w_k'?"


def test_an_inspect_of_a_missing_name_suggests_the_close_one(project, tmp_path):
    write_lecture(project, "typo", "def main():\n    w_k = 1  # @inspect w_q\n")
    run_lecture(project / "lectures" / "typo.py", output=tmp_path / "out.json")
    env = load_trace(tmp_path / "out.json")["steps"][-1]["env"]
    assert env["w_q"]["message"] == "@inspect w_q: NameError: name 'w_q' is not defined. Did you mean: 'w_k'?"
