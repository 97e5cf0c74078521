"""What crosses the boundary between a lecture and chalktrace (tracer/capture/traced_process.py, terminal.py):
output written below ``sys.stdout`` reaches the step that wrote it, chalktrace's own messages reach
the stderr it saved whatever the lecture does to ``print``, and the lecture's timers and signal
handlers cannot reach the writing of the trace."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tracer.capture.runner import run_lecture
from tracer.contract.trace_reading import load_trace


def course(root: Path, name: str, source: str) -> Path:
    (root / "pyproject.toml").write_text("[project]\nname = 'scratch'\n", encoding="utf-8")
    (root / "lectures").mkdir(exist_ok=True)
    lecture = root / "lectures" / f"{name}.py"
    lecture.write_text(source, encoding="utf-8")
    return lecture


def by_line(trace: dict) -> dict[int, dict]:
    return {step["stack"][-1]["line"]: step for step in trace["steps"]}


FD_LECTURE = """\
import os
import subprocess
import sys


def main():
    print("from print")
    os.system("echo from os.system")
    subprocess.run(["echo", "from subprocess"])
    os.write(1, b"straight to fd 1\\n")
    os.write(2, b"straight to fd 2\\n")
    subprocess.run([sys.executable, "-c", "import sys; sys.stderr.write('child stderr\\\\n')"])
    done = True
"""


def test_child_processes_and_direct_writes_reach_the_step_that_wrote_them(tmp_path):
    lecture = course(tmp_path, "fds", FD_LECTURE)
    result = run_lecture(lecture, output=tmp_path / "t.json")
    steps = by_line(load_trace(tmp_path / "t.json"))
    assert steps[7]["stdout"] == "from print\n"
    assert steps[8]["stdout"] == "from os.system\n"
    assert steps[9]["stdout"] == "from subprocess\n"
    assert steps[10]["stdout"] == "straight to fd 1\n"
    assert steps[11]["stderr"] == "straight to fd 2\n"
    assert steps[12]["stderr"] == "child stderr\n"
    assert steps[13]["stdout"] == "" and "stderr" not in steps[13]
    assert result.warnings == []  # every write was explained: nothing to say


def test_output_that_cannot_be_placed_exactly_is_still_shown_and_said_once(tmp_path):
    lecture = course(
        tmp_path,
        "bound",
        "from os import write\n\n\ndef main():\n    write(1, b'early bound\\n')\n"
        "    write(1, b'again\\n')\n    x = 1  # @inspect x\n",
    )
    result = run_lecture(lecture, output=tmp_path / "t.json")
    trace = json.loads((tmp_path / "t.json").read_text(encoding="utf-8"))
    assert "".join(step["stdout"] for step in trace["steps"]) == "early bound\nagain\n"
    assert len([w for w in result.warnings if "file descriptor 1 or 2" in w]) == 1


def test_chalktraces_messages_survive_a_lecture_that_patches_print_and_stderr(tmp_path):
    lecture = course(
        tmp_path,
        "silencer",
        "import builtins, io, sys\n\nbuiltins.print = lambda *a, **k: None\n"
        "sys.stderr = io.StringIO()\n\n\ndef main():\n    raise ValueError('boom')\n",
    )
    done = subprocess.run(
        [sys.executable, "-m", "tracer", "run", str(lecture), "-o", str(tmp_path / "t.json")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1
    assert "lectures/silencer.py:8: ValueError: boom" in done.stderr
    assert "lectures/silencer.py: raised" in done.stderr


def test_an_interval_timer_left_armed_cannot_stop_the_trace_being_written(tmp_path):
    lecture = course(
        tmp_path,
        "timer",
        "import signal\n\n\ndef on_alarm(signum, frame):\n"
        "    raise RuntimeError('the lecture\\'s timer fired')\n\n\ndef main():\n"
        "    signal.signal(signal.SIGALRM, on_alarm)\n"
        "    signal.setitimer(signal.ITIMER_REAL, 0.05, 0.0005)\n    x = 1\n",
    )
    out = tmp_path / "t.json"
    done = subprocess.run(
        [sys.executable, "-m", "tracer", "run", str(lecture), "-o", str(out), "--max-steps", "5"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    trace = json.loads(out.read_text(encoding="utf-8"))
    assert trace["status"] == "ok" and any("interval timer" in w for w in trace["warnings"])


def test_signal_handlers_are_as_before_after_a_run(tmp_path):
    import signal

    lecture = course(
        tmp_path,
        "handlers",
        "import signal\n\n\ndef main():\n"
        "    signal.signal(signal.SIGUSR1, lambda *a: None)\n"
        "    signal.signal(signal.SIGALRM, lambda *a: None)\n"
        "    signal.alarm(100)\n",
    )
    before = (signal.getsignal(signal.SIGUSR1), signal.getsignal(signal.SIGALRM))
    run_lecture(lecture, write=False)
    assert (signal.getsignal(signal.SIGUSR1), signal.getsignal(signal.SIGALRM)) == before
    assert signal.alarm(0) == 0  # the lecture's alarm was cancelled


@pytest.mark.parametrize("signature", ["main(n)", "main(*, name)"])
def test_a_main_that_requires_arguments_is_bad_input_and_keeps_the_previous_trace(tmp_path, signature):
    lecture = course(tmp_path, "args", "def main():\n    x = 1\n")
    out = tmp_path / "t.json"
    run_lecture(lecture, output=out)
    previous = out.read_bytes()
    lecture.write_text(f"def {signature}:\n    x = 1\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "tracer", "run", str(lecture), "-o", str(out)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[0].startswith("lectures/args.py:1: main() cannot be called without arguments")
    assert out.read_bytes() == previous
