"""Value cards of a long lecture: microseconds to render one, and the same bytes as another checkout.

Traces ``bench_long_lecture``'s training loop (``--iterations``, default 2,000: 10,005 steps and
6,000 small tensor cards, 4-vectors and a 4 x 4 matrix), then renders every card as step mode does
(``HtmlRenderer.value`` and ``summary``, one renderer, serially) and prints the CPU microseconds a
card, best of ``--rounds``, each round in a fresh process. ``--baseline DIR`` (a checkout of another
version, e.g. ``git archive COMMIT | tar -x -C DIR``) renders the same trace with that version too,
alternating with this tree round by round, and prints the ratio and whether every card's HTML (read
mode's form too) and every heatmap PNG is byte for byte the same. CPU time, not wall time: the
figure is meant to hold on a shared machine.

``--trace PATH`` renders an existing trace's cards instead (``site/traces/lecture_02.json``: bigger
tensors, whole-tensor heatmaps of up to 128 x 128 cells).

Run: ``.venv/bin/python bench/bench_cards.py [--iterations N | --trace PATH] [--rounds N] [--baseline DIR]``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def render_all(trace_path: str) -> dict[str, float | int | str]:
    """Render every card of the trace (in this process, with whichever ``tracer`` it imports)."""
    from tracer.contract.trace_reading import load_trace
    from tracer.site.cards.render import HtmlRenderer
    from tracer.site.cards.templates import template_env

    trace = load_trace(trace_path)
    renderer = HtmlRenderer(trace, template_env())
    digest = hashlib.sha256()
    cards = 0
    value_seconds = summary_seconds = 0.0
    for index, step in enumerate(trace["steps"]):
        for name, value in step["env"].items():
            started = time.process_time()
            html = renderer.value(name, value, step_index=index)
            between = time.process_time()
            summary = renderer.summary(name, value)
            value_seconds += between - started
            summary_seconds += time.process_time() - between
            digest.update(f"{html}\0{summary}\1".encode())
            cards += 1
    for index, step in enumerate(trace["steps"]):  # read mode's form, untimed (a read page shows a few)
        for name, value in step["env"].items():
            digest.update(str(renderer.value(name, value, step_index=index, shared_diagrams={}, exact_grids=False)).encode())
    for name in sorted(renderer.heatmaps):
        digest.update(name.encode() + renderer.heatmaps[name])
    return {
        "cards": cards,
        "value_us": value_seconds / max(cards, 1) * 1e6,
        "summary_us": summary_seconds / max(cards, 1) * 1e6,
        "sha256": digest.hexdigest(),
    }


def measured(trace: Path, tree: Path | None) -> dict[str, float | int | str]:
    """One round in a fresh process, with this checkout's chalktrace or ``tree``'s (first on PYTHONPATH)."""
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(tree), *filter(None, [env.get("PYTHONPATH")])])
    done = subprocess.run(
        [sys.executable, __file__, "--render", str(trace)], cwd=tree or ROOT, check=True, capture_output=True, text=True, env=env
    )
    result: dict[str, float | int | str] = json.loads(done.stdout)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=2_000, help="loop iterations (three cards each)")
    parser.add_argument("--rounds", type=int, default=3, help="fresh processes per tree; the best counts")
    parser.add_argument("--baseline", type=Path, help="a checkout of another version to measure in the same run")
    parser.add_argument("--trace", type=Path, help="render this trace's cards instead (e.g. site/traces/lecture_02.json)")
    parser.add_argument("--render", help=argparse.SUPPRESS)  # a round's own process: render this trace
    args = parser.parse_args()
    if args.render:
        print(json.dumps(render_all(args.render)))
        return 0
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_long_lecture import LECTURE

    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="chalktrace-cards-") as tmp:
        lecture, trace = Path(tmp) / "long.py", Path(tmp) / "long.json"
        if args.trace is not None:
            trace = args.trace.resolve()
        else:
            lecture.write_text(LECTURE.format(iterations=args.iterations), encoding="utf-8")
            subprocess.run(
                [sys.executable, "-m", "tracer", "run", str(lecture), "-o", str(trace), "-q", "--max-steps", "1000000"],
                cwd=ROOT,
                check=True,
            )
        trees: list[tuple[str, Path | None]] = [("this tree", None)]
        if args.baseline is not None:
            trees.insert(0, (f"baseline {args.baseline}", args.baseline.resolve()))
        best: dict[str, dict[str, float | int | str]] = {}
        for _round in range(args.rounds):
            for label, tree in trees:
                result = measured(trace, tree)
                total = float(result["value_us"]) + float(result["summary_us"])
                if label not in best or total < float(best[label]["value_us"]) + float(best[label]["summary_us"]):
                    best[label] = result
    for label, result in best.items():
        value_us, summary_us = float(result["value_us"]), float(result["summary_us"])
        print(
            f"{label}: {result['cards']:,} cards; {value_us + summary_us:.0f} µs a card "
            f"(value {value_us:.0f}, summary {summary_us:.0f}; CPU, best of {args.rounds}); HTML sha256 {str(result['sha256'])[:16]}"
        )
    if args.baseline is not None:
        base, this = (best[label] for label, _tree in trees)
        ratio = (float(base["value_us"]) + float(base["summary_us"])) / (float(this["value_us"]) + float(this["summary_us"]))
        same = "the same bytes" if base["sha256"] == this["sha256"] else "DIFFERENT bytes"
        print(f"this tree renders a card {ratio:.2f}x as fast as the baseline; every card and heatmap: {same}")
    load_after = os.getloadavg()
    print(f"load average {load_before[0]:.1f} before, {load_after[0]:.1f} after ({os.cpu_count()} cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
