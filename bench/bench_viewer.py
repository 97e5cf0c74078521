"""Step viewer speed on a ~5,000-step lecture in headless Chromium (figures, not pass/fail).

Generates a lecture (a loop with a few inspected values, a nested call and section headings),
traces it with the real tracer (``python -m tracer run``), builds the real site in a temp dir,
serves it on 127.0.0.1 and measures: (a) time until interactive, i.e. from navigation start to
``window.LECTRACE_READY`` (set by viewer.js once step mode shows ``#step=0``), over fresh page
loads; (b) the time of one step: a key press dispatched inside the page, timed with
``performance.now()`` around the dispatch plus a forced style/layout, over 200 presses each of
→ (step), ↓ (step over) and alternating Home/End (a jump across the whole trace). Also prints
data.js and trace sizes. Run: ``.venv/bin/python bench/bench_viewer.py [--steps N]``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from conftest import CHROMIUM, CHROMIUM_ARGS, build_site, serve  # noqa: E402

READY_TARGET_MS = 1000.0
STEP_TARGET_MS = 16.0
STEPS_PER_ITERATION = 7  # what one loop iteration of the generated lecture records
PRESSES = 200

LECTURE = '''"""Viewer benchmark: a long loop with a nested call."""

import torch

from tracer import text


def scale(t, k):
    out = t * k  # @inspect out
    return out


def main():
    text("## Warm-up")
    x = torch.arange(12.0).reshape(3, 4)  # @inspect x
    total = 0.0  # @inspect total
    for i in range({iterations}):
        y = scale(x, i % 7)  # @inspect y
        total += float(y.sum())  # @inspect total i
        if i % {section_every} == 0:
            text(f"## Block {{i // {section_every}}}")
    text("## Done")
    done = True  # @inspect done
'''

# One key press, timed inside the page: the handler's DOM updates plus the style/layout they cause.
PRESS_JS = """([key, presses]) => {
  const times = [];
  for (let n = 0; n < presses; n++) {
    const k = Array.isArray(key) ? key[n % key.length] : key;
    const started = performance.now();
    window.dispatchEvent(new KeyboardEvent("keydown", {key: k, bubbles: true, cancelable: true}));
    document.body.offsetHeight;  // force style and layout now, inside the timed region
    document.querySelector(".lt-current")?.getBoundingClientRect();
    times.push(performance.now() - started);
  }
  return times;
}"""


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def verdict(value: float, target: float) -> str:
    return "ok" if value <= target else "MISSED"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5000, help="about how many steps the lecture records")
    parser.add_argument("--loads", type=int, default=5, help="page loads for the time-until-interactive figure")
    args = parser.parse_args()
    if not CHROMIUM.exists():
        print("chromium not installed: apt-get install -y chromium", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="lectrace-bench-viewer-") as tmp:
        work = Path(tmp)
        iterations = max(1, args.steps // STEPS_PER_ITERATION)
        lecture = work / "bench_viewer.py"
        lecture.write_text(LECTURE.format(iterations=iterations, section_every=max(1, iterations // 8)))
        trace = work / "traces" / "bench_viewer.json"
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "tracer", "run", str(lecture), "-o", str(trace), "-q"], cwd=ROOT, check=True)
        trace_seconds = time.perf_counter() - started
        started = time.perf_counter()
        site = build_site(work / "project", [trace])
        build_seconds = time.perf_counter() - started
        data_js_bytes = (site / "lectures" / "bench_viewer" / "data.js").stat().st_size
        trace_bytes = trace.stat().st_size

        with serve(site) as url, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            page_url = f"{url}lectures/bench_viewer/#step=0"
            ready: list[float] = []
            for _ in range(args.loads):
                context = browser.new_context(viewport={"width": 1280, "height": 800})
                page = context.new_page()
                page.goto(page_url)
                page.wait_for_function("window.LECTRACE_READY !== undefined", timeout=30000)
                ready.append(page.evaluate("window.LECTRACE_READY"))
                count = page.evaluate("window.LECTRACE_DATA.count")
                context.close()

            context = browser.new_context(viewport={"width": 1280, "height": 800})
            page = context.new_page()
            page.goto(page_url)
            page.wait_for_function("window.LECTRACE_READY !== undefined", timeout=30000)
            results = {
                "→ step": page.evaluate(PRESS_JS, ["ArrowRight", PRESSES]),
                "↓ step over": page.evaluate(PRESS_JS, ["ArrowDown", PRESSES]),
                "Home/End jump": page.evaluate(PRESS_JS, [["End", "Home"], PRESSES]),
            }
            page.keyboard.press("Home")
            real_keys = []  # through the browser's own input pipeline, timed by viewer.js itself
            for _ in range(50):
                page.keyboard.press("ArrowRight")
                real_keys.append(page.evaluate("window.LECTRACE_LAST_STEP_MS"))
            final_step = page.evaluate("location.hash")
            context.close()
            browser.close()

    print(f"lecture: {count} steps (traced in {trace_seconds:.1f} s, site built in {build_seconds:.1f} s)")
    print(f"data.js {data_js_bytes:,} B vs trace {trace_bytes:,} B ({data_js_bytes / trace_bytes:.2f}x the trace)")
    return report(ready, results, real_keys, final_step)


def report(ready: list[float], results: dict[str, list[float]], real_keys: list[float], final_step: str) -> int:
    ready_ms = statistics.median(ready)
    print(f"time until interactive (navigation start -> step mode shown, median of {len(ready)} loads): "
          f"{ready_ms:.0f} ms  [target <= {READY_TARGET_MS:.0f} ms: {verdict(ready_ms, READY_TARGET_MS)}]"
          f"  (all: {', '.join(f'{r:.0f}' for r in ready)})")
    worst = 0.0
    for name, times in results.items():
        median, p95 = statistics.median(times), percentile(times, 0.95)
        worst = max(worst, median)
        print(f"one step, {name:14} over {len(times)} presses: median {median:.2f} ms, p95 {p95:.2f} ms"
              f"  [target median <= {STEP_TARGET_MS:.0f} ms: {verdict(median, STEP_TARGET_MS)}]")
    print(f"real key presses (viewer's own timing of go(), 50 presses): median {statistics.median(real_keys):.2f} ms; "
          f"ended at {final_step}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
