"""Where a site build's time goes: step mode's value cards rendered, cut for packing, and the rest (figures).

Builds one MkDocs project in this process, from a cold render cache, with timers around the two
per-card stages of step mode's data (each one call of ``card_workers.map_chunks``, whether it runs
here alone or with worker processes), and prints one line: the whole build's seconds, each stage's
seconds and microseconds per item (values rendered; distinct cards cut), and the rest (trace loading,
steps, read page, packing, writing). ``CHALKTRACE_CARD_WORKERS`` chooses the processes as in any build.
``bench_long_lecture.py --stages`` runs it on its 100,000-step lecture, in one process and as the
build would choose. It must not change what the build makes: the timers only wrap the build's own
calls, and are taken off again after it.

Run: ``.venv/bin/python bench/build_stages.py PROJECT [--label TEXT]`` (PROJECT holds ``mkdocs.yml``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

# What each timed stage is called, by the function ``map_chunks`` runs for it, and what its items are.
STAGES = {"_render_cards": ("render", "value"), "cut_cards": ("cut", "card")}


def _counted(name: str, items: Any, results: list[Any]) -> int:
    """How many values a render call drew (its items are steps, each with several), or cards a cut call cut."""
    if name == "_render_cards":
        return sum(len(step_cards) for cards, _heatmaps in results for step_cards in cards)
    return len(items)


def timed_build(project: Path) -> tuple[float, dict[str, tuple[float, int]]]:
    """Seconds of one ``mkdocs build --strict`` of ``project`` from a cold render cache, and each stage's
    (seconds, items)."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    from tracer.site.pages import card_workers

    stages: dict[str, tuple[float, int]] = {}
    map_chunks = card_workers.map_chunks

    def timed(work: Any, items: Any, **kwargs: Any) -> list[Any]:
        started = time.perf_counter()
        results = map_chunks(work, items, **kwargs)
        if work.__name__ in STAGES:
            stage = STAGES[work.__name__][0]
            seconds, count = stages.get(stage, (0.0, 0))
            stages[stage] = (seconds + time.perf_counter() - started, count + _counted(work.__name__, items, results))
        return results

    card_workers.map_chunks = timed  # the callers look it up on the module at each call
    shutil.rmtree(project / "build" / ".chalktrace-cache", ignore_errors=True)
    os.environ["NO_MKDOCS_2_WARNING"] = "1"
    here = Path.cwd()
    os.chdir(project)  # the configuration's paths are the project's
    try:
        config = load_config(str(project / "mkdocs.yml"), strict=True)
        started = time.perf_counter()
        build(config)
        return time.perf_counter() - started, stages
    finally:
        os.chdir(here)
        card_workers.map_chunks = map_chunks


def stages_line(label: str, seconds: float, stages: dict[str, tuple[float, int]]) -> str:
    parts = []
    for stage, unit in STAGES.values():
        spent, count = stages.get(stage, (0.0, 0))
        per = f" ({spent / count * 1e6:,.0f} µs a {unit}, {count:,} {unit}s)" if count else " (none)"
        parts.append(f"{stage} {spent:.2f} s{per}")
    rest = seconds - sum(spent for spent, _count in stages.values())
    return f"{label}: build {seconds:.2f} s: " + ", ".join(parts) + f", the rest {rest:.2f} s"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project", type=Path, help="a folder holding mkdocs.yml")
    parser.add_argument("--label", default="build stages")
    args = parser.parse_args()
    import logging

    logging.getLogger("mkdocs").setLevel(logging.WARNING)  # the figures, not the build's own lines
    seconds, stages = timed_build(args.project.resolve())
    print(stages_line(args.label, seconds, stages), flush=True)
    return 0


if __name__ == "__main__":  # card workers start from a fresh process, which imports this module again
    sys.exit(main())
