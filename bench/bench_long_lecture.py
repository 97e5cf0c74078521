"""A 100,000-step lecture, end to end: run, build, page weight, page ready and one step (figures).

It generates a training loop of 20,000 iterations that inspects three small tensors per iteration
(five lines each: 100,000 steps, the default step cap), traces it with ``chalktrace run``, builds a
real site holding it (``mkdocs build --strict``, the real plugin), and prints: the run's seconds, the
build's seconds, the page's ``data.js`` bytes raw and gzipped, and in headless Chromium the time until
step mode shows the middle step from a ``#step=N`` link and the median and p95 of one → press.
``--baseline DIR`` (a checkout of another version, e.g. ``git archive COMMIT | tar -x -C DIR``) runs
the same lecture through that version too, in the same run, one after the other: the figures side by side.
``--stages`` builds the site twice more (``build_stages.py``: in one process, then as the build would
choose) and prints where each build's time went: value cards rendered, cut for packing, the rest.

Run: ``.venv/bin/python bench/bench_long_lecture.py [--iterations N] [--no-browser] [--baseline DIR] [--stages]``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STAGES = ROOT / "bench" / "build_stages.py"
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

LECTURE = '''"""A long training loop: three small tensors inspected on every iteration."""

import torch


def main():
    generator = torch.Generator().manual_seed(0)
    w = torch.randn(4, 4, generator=generator) * 0.1
    total = 0.0
    for step in range({iterations}):
        x = torch.randn(4, generator=generator)  # @inspect x
        h = torch.tanh(w @ x)  # @inspect h
        w = w - 0.01 * torch.outer(h, x)  # @inspect w
        total += float(h.sum())
    return total
'''


def build(project: Path, trace: Path, env: dict[str, str] | None = None) -> float:
    """Seconds of one ``mkdocs build --strict`` of a site holding ``trace`` alone."""
    project.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "mkdocs.yml", project / "mkdocs.yml")
    shutil.copytree(ROOT / "site" / "docs", project / "site" / "docs")
    (project / "site" / "traces").mkdir(parents=True)
    shutil.copy(trace, project / "site" / "traces" / trace.name)
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict"],
        cwd=project,
        check=True,
        capture_output=True,
        env={**(env or os.environ), "NO_MKDOCS_2_WARNING": "1"},
    )
    return time.perf_counter() - started


def page_figures(site: Path, steps: int) -> tuple[list[float], list[float]]:
    """Step mode's ready times (3 fresh pages at the middle step) and 100 → presses, in Chromium."""
    from bench_viewer import PRESS_JS, TIMEOUT_MS, ready_times
    from helpers.site import CHROMIUM, CHROMIUM_ARGS, serve
    from playwright.sync_api import sync_playwright

    with serve(site) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page_url = f"{url}lectures/long/"
        ready, _shown = ready_times(browser, page_url, steps // 2, loads=3)
        context = browser.new_context(viewport={"width": 1280, "height": 800}, bypass_csp=True)
        page = context.new_page()
        page.goto(f"{page_url}#step={steps // 2}", timeout=TIMEOUT_MS)
        page.wait_for_function("window.CHALKTRACE_READY !== undefined", timeout=TIMEOUT_MS)
        page.evaluate(PRESS_JS, ["ArrowRight", 20])
        presses = page.evaluate(PRESS_JS, ["ArrowRight", 100])
        context.close()
        browser.close()
    return sorted(ready), sorted(presses)


def measure(label: str, work: Path, lecture: Path, tree: Path | None, browser: bool, stages: bool = False) -> None:
    """Run, build and (unless ``browser`` is false) load the lecture with this checkout's chalktrace
    (``tree`` None) or another's (its directory first on PYTHONPATH), and print the figures; with
    ``stages``, the build's stages too (in one process, then as the build chooses)."""
    from bench_viewer import percentile

    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(tree), *filter(None, [env.get("PYTHONPATH")])])
    trace = work / "traces" / "long.json"
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "tracer", "run", str(lecture), "-o", str(trace), "-q", "--max-steps", "1000000"],
        cwd=tree or ROOT,
        check=True,
        env=env,
    )
    run_seconds = time.perf_counter() - started
    steps = len(json.loads(trace.read_text(encoding="utf-8"))["steps"])
    build_seconds = build(work / "project", trace, env)
    site = work / "project" / "build" / "site"
    data_js = (site / "lectures" / "long" / "data.js").read_bytes()
    print(
        f"{label}: {steps:,} steps, trace {trace.stat().st_size / 1e6:.1f} MB; run {run_seconds:.1f} s; "
        f"build {build_seconds:.1f} s (target <= the run); data.js {len(data_js) / 1e6:.2f} MB raw "
        f"(target <= 4 MB at 100,000 steps), {len(gzip.compress(data_js)) / 1e6:.2f} MB gzipped",
        flush=True,
    )
    if stages:
        for processes, setting in (("one process", {"CHALKTRACE_CARD_WORKERS": "1"}), ("processes as chosen", {})):
            subprocess.run(
                [sys.executable, str(STAGES), str(work / "project"), "--label", f"{label}, {processes}"],
                check=True,
                env={**env, **setting},
            )
    if browser:
        ready, times = page_figures(site, steps)
        print(
            f"{label}: step mode at step {steps // 2:,}: ready {ready[1]:.0f} ms (median of 3; target <= 1,500); "
            f"→ {times[len(times) // 2]:.1f} ms median, {percentile(times, 0.95):.1f} ms p95 (target <= 16)",
            flush=True,
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=20_000, help="loop iterations (five steps each)")
    parser.add_argument("--no-browser", action="store_true", help="leave out page-ready and step times")
    parser.add_argument("--baseline", type=Path, help="a checkout of another version to measure in the same run")
    parser.add_argument("--stages", action="store_true", help="also where each build's time goes (two more builds)")
    args = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="chalktrace-long-") as tmp:
        lecture = Path(tmp) / "long.py"
        lecture.write_text(LECTURE.format(iterations=args.iterations), encoding="utf-8")
        if args.baseline is not None:
            baseline = args.baseline.resolve()
            measure(f"baseline {args.baseline}", Path(tmp) / "baseline", lecture, baseline, not args.no_browser, args.stages)
        measure("this tree", Path(tmp) / "this", lecture, None, not args.no_browser, args.stages)
    load_after = os.getloadavg()
    print(f"load average {load_before[0]:.1f} before, {load_after[0]:.1f} after ({os.cpu_count()} cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
