"""Build time and peak memory of a site made from the hostile lectures against its budget (60 s, 1.5 GB, no live script).

Traces every lecture in ``tests/lectures/hostile/`` that completes or stops with a status (the
40,000-line printer and the 100-million-element tensor among them; the ones that are bad input
write nothing), adds one unreadable trace, builds the real site with ``mkdocs build --strict`` in
a temporary directory, and prints the build's wall time and peak resident memory (the maximum
RSS of the build process itself, from ``wait4``), the budget (60 s, 1.5 GB), and
whether any page holds a live ``<script>`` that came from lecture text. Exit status 1 when a
budget is exceeded or a script got through. Run: ``.venv/bin/python bench/bench_hostile_site.py``
(or wrap it: ``/usr/bin/time -v .venv/bin/python bench/bench_hostile_site.py``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = ROOT / "tests" / "lectures" / "hostile"
BUDGET_SECONDS = 60.0
BUDGET_NBYTES = 1.5e9
# the hostile lectures' payloads, unescaped: a script, an event handler, a script URL
LIVE_SCRIPT = re.compile(
    r"""<script>alert\(|<[a-z][^<>]*[\s/]on[a-z]+\s*=|<[a-z][^<>]*\s(?:href|src|action)=["']?\s*javascript:""", re.I
)


def trace_all(traces: Path) -> list[str]:
    """Trace each hostile lecture (in parallel processes); returns the names that wrote a trace."""
    procs = {}
    for lecture in sorted(HOSTILE.glob("[!_]*.py")):
        procs[lecture.stem] = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tracer",
                "run",
                str(lecture),
                "-o",
                str(traces / f"{lecture.stem}.json"),
                "-q",
                "--timeout",
                "60",
            ],  # lingering_thread.py's thread never ends: the timeout ends its run
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if len(procs) % (os.cpu_count() or 2) == 0:
            for proc in procs.values():
                proc.wait()
    for proc in procs.values():
        proc.wait()
    return sorted(p.stem for p in traces.glob("*.json"))


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="chalktrace-hostile-") as tmp:
        site = Path(tmp)
        shutil.copy(ROOT / "mkdocs.yml", site / "mkdocs.yml")
        shutil.copytree(ROOT / "site" / "docs", site / "site" / "docs")
        traces = site / "site" / "traces"
        traces.mkdir(parents=True)
        started = time.perf_counter()
        written = trace_all(traces)
        print(f"traced {len(written)} hostile lectures in {time.perf_counter() - started:.1f}s: {', '.join(written)}")
        (traces / "unreadable.json").write_text('{"schema_version": 1, "lecture": 5}', encoding="utf-8")
        sizes = {p.name: p.stat().st_size for p in traces.glob("*.json")}
        print(
            "largest traces: " + ", ".join(f"{n} {s / 1e6:.1f} MB" for n, s in sorted(sizes.items(), key=lambda kv: -kv[1])[:3])
        )

        started = time.perf_counter()
        with open(site / "build.log", "w+", encoding="utf-8") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "mkdocs", "build", "--strict"],
                cwd=site,
                stdout=log,
                stderr=subprocess.STDOUT,
                env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
            )
            _, status, usage = os.wait4(proc.pid, 0)  # this child's own peak RSS, not the tracing runs'
            proc.returncode = os.waitstatus_to_exitcode(status)
            seconds = time.perf_counter() - started
            peak_nbytes = usage.ru_maxrss * 1024  # Linux reports kilobytes
            if proc.returncode != 0:
                log.seek(0)
                print(log.read()[-3000:])
                print(f"FAILED: mkdocs build exited {proc.returncode}")
                return 1
        pages = list((site / "build" / "site").rglob("*.html"))
        live = [
            str(p.relative_to(site / "build" / "site"))
            for p in pages
            if LIVE_SCRIPT.search(p.read_text(encoding="utf-8", errors="replace"))
        ]
        print(
            f"site build: {seconds:.1f}s (budget {BUDGET_SECONDS:.0f}s), peak memory "
            f"{peak_nbytes / 1e6:.0f} MB (budget {BUDGET_NBYTES / 1e9:.1f} GB), {len(pages)} pages"
        )
        print(f"pages with a live script from lecture text: {live or 'none'}")
        ok = seconds < BUDGET_SECONDS and peak_nbytes < BUDGET_NBYTES and not live
        print("OK" if ok else "OVER BUDGET OR SCRIPT FOUND")
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
