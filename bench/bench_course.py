"""Edit-to-visible at course size: a generated course of lecture_02-sized lectures (figures, not pass/fail).

The course is made with ``chalktrace init`` and holds ``--lectures`` copies of ``lectures/lecture_02.py``
(with its helper ``_accounting.py`` and its images), each a lecture of its own (``lecture_01.py`` …).
It prints, with the machine's load (the machine may be shared: timings are noisy):

- **cold build**: ``chalktrace build`` in the new course (no trace, no page cache): every lecture is
  traced, then every page rendered;
- **warm build**: ``chalktrace build`` again with nothing changed (target: at most 10% of cold);
- **save to served change**: under ``chalktrace serve``, one lecture is edited (a new ``text()`` line)
  and the served page is fetched over HTTP until it shows the edit; measured in this course and in a
  course of one lecture (target: the ratio at most 1.3);
- for each figure, the share that is tracing: for the builds, the re-tracing phase (``build`` prints
  when it ends; the rest is checking freshness and rendering the site); under ``serve``, from the save
  until the lecture's new trace is written.

``--gpu-runs`` gives every lecture a kept GPU run (this repository's ``site/traces/gpu/lecture_02.json``,
as that lecture's), as a course that traces on a GPU and builds without one has. ``--baseline DIR`` (a
checkout of another version, e.g. ``git archive COMMIT | tar -x -C DIR``) first makes the same course
with that version and prints its cold and warm builds and its save to served change: the two side
by side, in one run.

Run: ``.venv/bin/python bench/bench_course.py [--lectures 25] [--jobs N] [--edits 3] [--gpu-runs] [--baseline DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LECTURE = REPO / "lectures" / "lecture_02.py"
KEPT_GPU_RUN = REPO / "site" / "traces" / "gpu" / "lecture_02.json"
ENV = dict(os.environ, NO_MKDOCS_2_WARNING="1")
TRACED_MARK = "chalktrace: re-tracing finished"  # build's line when its tracing phase ends


def make_course(root: Path, lectures: int) -> list[Path]:
    """A new course (``chalktrace init``) holding ``lectures`` copies of lecture_02; their paths."""
    subprocess.run(
        [sys.executable, "-m", "tracer", "init", str(root), "--name", "Bench", "-q", "--requirement", "chalktrace"],
        check=True,
        env=ENV,
    )
    (root / "lectures" / "hello.py").unlink()
    shutil.copy(REPO / "lectures" / "_accounting.py", root / "lectures" / "_accounting.py")
    shutil.copytree(REPO / "lectures" / "images", root / "lectures" / "images")
    (root / "pyproject.toml").write_text('[tool.chalktrace]\ntrace_helpers = ["lectures/_accounting.py"]\n', encoding="utf-8")
    paths = []
    for k in range(1, lectures + 1):
        path = root / "lectures" / f"lecture_{k:02d}.py"
        shutil.copy(LECTURE, path)
        paths.append(path)
    return paths


def keep_gpu_runs(root: Path, lectures: list[Path]) -> None:
    """Give each lecture a kept GPU run: this repository's run of lecture_02, named as that lecture's."""
    kept = json.loads(KEPT_GPU_RUN.read_text(encoding="utf-8"))
    folder = root / "site" / "traces" / "gpu"
    folder.mkdir(parents=True, exist_ok=True)
    for lecture in lectures:
        relative = f"lectures/{lecture.name}"
        text = json.dumps({**kept, "lecture": {**kept["lecture"], "name": lecture.stem, "path": relative}}, separators=(",", ":"))
        # its frames and files name the lecture's source by path, as a run of this lecture would
        text = text.replace(json.dumps(kept["lecture"]["path"]), json.dumps(relative))
        (folder / f"{lecture.stem}.json").write_text(text, encoding="utf-8")


def timed_build(root: Path, jobs: int, env: dict[str, str] = ENV) -> tuple[float, float]:
    """(seconds, tracing seconds) of one ``chalktrace build``."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "tracer", "build", "-j", str(jobs)], cwd=root, env=env, stderr=subprocess.PIPE, text=True
    )
    traced_at = started
    assert process.stderr is not None
    for line in process.stderr:
        if line.startswith(TRACED_MARK):
            traced_at = time.perf_counter()
    if process.wait():
        raise SystemExit(f"build failed in {root}")
    return time.perf_counter() - started, traced_at - started


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def fetch(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return str(response.read().decode("utf-8", "replace"))
    except OSError:
        return ""


def edit_to_served(root: Path, lecture: Path, edits: int, env: dict[str, str] = ENV) -> list[tuple[float, float]]:
    """Under ``chalktrace serve``: (save-to-served seconds, save-to-trace-written seconds) per edit."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "tracer", "serve", "-a", f"127.0.0.1:{port}"],
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}/lectures/{lecture.stem}/"
    trace = root / "site" / "traces" / f"{lecture.stem}.json"
    original = lecture.read_text(encoding="utf-8")
    figures = []
    try:
        deadline = time.monotonic() + 600
        while "</html>" not in fetch(url):
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit("serve did not come up")
            time.sleep(0.5)
        time.sleep(3)  # let serve's start-up settle (its first build, the watcher)
        for k in range(edits):
            marker = f"Edit marker {k} {time.time_ns()}"
            before = trace.stat().st_mtime_ns
            saved = time.perf_counter()
            saved_wall = time.time()
            lecture.write_text(original.replace("def main():\n", f'def main():\n    text("{marker}")\n', 1), encoding="utf-8")
            while marker not in fetch(url):
                if time.perf_counter() - saved > 600:
                    raise SystemExit("the edit never showed")
                time.sleep(0.05)
            seen = time.perf_counter() - saved
            written = trace.stat().st_mtime_ns
            tracing = (written / 1e9 - saved_wall) if written != before else float("nan")
            figures.append((seen, tracing))
            time.sleep(2)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(30)
        lecture.write_text(original, encoding="utf-8")
    return figures


def share(part: float, whole: float) -> str:
    return f"{100 * part / whole:.0f}%" if whole > 0 else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lectures", type=int, default=25)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--edits", type=int, default=3, help="edits timed under serve (median reported)")
    parser.add_argument("--keep", help="build the courses here and keep them (default: a temporary folder)")
    parser.add_argument("--gpu-runs", action="store_true", help="give every lecture a kept GPU run")
    parser.add_argument("--baseline", type=Path, help="a checkout of another version: its builds and saves first")
    args = parser.parse_args()
    where = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="chalktrace-bench-course-"))
    baseline: tuple[float, float, float, float] | None = None
    try:
        if args.baseline is not None:
            env = dict(ENV, PYTHONPATH=os.pathsep.join([str(args.baseline.resolve()), *filter(None, [ENV.get("PYTHONPATH")])]))
            lectures = make_course(where / "baseline", args.lectures)
            if args.gpu_runs:
                keep_gpu_runs(where / "baseline", lectures)
            base_cold, base_tracing = timed_build(where / "baseline", args.jobs, env)
            base_warm = timed_build(where / "baseline", args.jobs, env)[0]
            base_served = statistics.median(seen for seen, _ in edit_to_served(where / "baseline", lectures[0], args.edits, env))
            baseline = (base_cold, base_tracing, base_warm, base_served)
        big = make_course(where / "course", args.lectures)
        if args.gpu_runs:
            keep_gpu_runs(where / "course", big)
        cold, cold_tracing = timed_build(where / "course", args.jobs)
        warm, warm_tracing = timed_build(where / "course", args.jobs)
        served_big = edit_to_served(where / "course", big[0], args.edits)
        small = make_course(where / "one", 1)
        if args.gpu_runs:
            keep_gpu_runs(where / "one", small)
        timed_build(where / "one", args.jobs)
        served_small = edit_to_served(where / "one", small[0], args.edits)
    finally:
        if not args.keep:
            shutil.rmtree(where, ignore_errors=True)
    big_seen = statistics.median(s for s, _ in served_big)
    big_traced = statistics.median(t for _, t in served_big)
    small_seen = statistics.median(s for s, _ in served_small)
    small_traced = statistics.median(t for _, t in served_small)
    print(
        f"course: {args.lectures} lectures the size of lecture_02{', each with a kept GPU run' if args.gpu_runs else ''}; "
        f"-j {args.jobs}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    print(f"{'figure':<44}{'seconds':>9}{'tracing':>9}")
    if baseline is not None:
        base_cold, base_tracing, base_warm, base_served = baseline
        print(f"{'baseline: cold build':<44}{base_cold:>9.1f}{share(base_tracing, base_cold):>9}")
        print(
            f"{'baseline: warm build, nothing changed':<44}{base_warm:>9.1f}{'':>9}   {100 * base_warm / base_cold:.1f}% of cold"
        )
        print(f"{f'baseline: save to served change, {args.lectures} lectures':<44}{base_served:>9.1f}")
    print(f"{'cold build':<44}{cold:>9.1f}{share(cold_tracing, cold):>9}")
    print(
        f"{'warm build, nothing changed':<44}{warm:>9.1f}{share(warm_tracing, warm):>9}   "
        f"{100 * warm / cold:.1f}% of cold (target <= 10%)"
    )
    print(f"{f'save to served change, {args.lectures} lectures':<44}{big_seen:>9.1f}{share(big_traced, big_seen):>9}")
    print(
        f"{'save to served change, 1 lecture':<44}{small_seen:>9.1f}{share(small_traced, small_seen):>9}   "
        f"ratio {big_seen / small_seen:.2f} (target <= 1.3)"
    )
    print(
        "each edit (seen s / traced s): "
        + f"{args.lectures} lectures "
        + ", ".join(f"{s:.1f}/{t:.1f}" for s, t in served_big)
        + "; 1 lecture "
        + ", ".join(f"{s:.1f}/{t:.1f}" for s, t in served_small)
    )


if __name__ == "__main__":
    main()
