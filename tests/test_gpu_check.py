"""bench/gpu_check.py's dry run on CPU (``--no-cuda``): it re-traces hello and lecture_02, runs the
tests it is given, and writes its figures; without CUDA and without ``--no-cuda`` it refuses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "bench" / "gpu_check.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": ""}
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def test_dry_run_retraces_runs_the_tests_and_prints_the_figures(tmp_path):
    out = tmp_path / "gpu-check"
    done = _run(
        "--out", str(out), "--no-cuda", "--quick", "--tests", "tests/capture/test_memory_gate.py::test_line_effects_from_bytecode"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for name in ("hello", "lecture_02"):
        trace = json.loads((out / f"{name}.json").read_text(encoding="utf-8"))
        assert trace["status"] == "ok" and trace["environment"]["memory_source"] == "cpu_recorded"
        assert f"re-trace {name}: ok" in done.stdout
    figures = json.loads((out / "figures.json").read_text(encoding="utf-8"))
    assert figures["tests"]["exit"] == 0 and "1 passed" in (out / "tests.txt").read_text(encoding="utf-8")
    assert figures["machine"]["gpu"] == "none (--no-cuda)"
    assert figures["loop"]["lines"] > 200_000 and figures["loop"]["recording_lines_per_s"] > 0
    assert figures["ratio_tensor_work"]["ratio"] > 0 and figures["capture_us_per_1m_tensor"]["cpu"] > 0
    assert "GPU: none (--no-cuda)" in done.stdout and "lines/s" in done.stdout
    readout = figures["capture_readout"]["cpu"]  # capture on the device: one small copy, no scalar read
    assert readout["copies"] == 1 and readout["scalar_reads"] == 0 and 0 < readout["nbytes"] <= 128 * 128 * 4 + 4096
    assert "capture on the device (cpu): used" in done.stdout
    # the CPU's probe counts the lecture's tensors alone: where a card is computed never shows in it
    steps = figures["retrace_lecture_02"]["steps"]
    assert figures["capture_in_peak"] == {"ok": True, "steps": steps, "steps_differing": 0, "largest_peak_rise_nbytes": 0}
    assert (out / "lecture_02_host_cards.json").exists()


def test_without_cuda_it_asks_for_the_dry_run(tmp_path):
    done = _run("--out", str(tmp_path / "x"))
    assert done.returncode == 2 and "--no-cuda" in done.stderr
    assert not (tmp_path / "x").exists()


def test_a_missing_package_is_named_before_anything_runs(tmp_path):
    # the script's Python, with a finder in front that refuses jsonschema_rs (as if not installed)
    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "sitecustomize.py").write_text(
        "import sys\n"
        "class Hide:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'jsonschema_rs':\n"
        "            raise ModuleNotFoundError(name)\n"
        "        return None\n"
        "sys.meta_path.insert(0, Hide())\n",
        encoding="utf-8",
    )
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "PYTHONPATH": str(hide)}
    out = tmp_path / "x"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(out), "--no-cuda"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 2 and "lacks jsonschema_rs:" in done.stderr and "PYTHONPATH" in done.stderr
    assert not out.exists()
