"""``chalktrace build``: re-trace the lectures whose traces are not fresh (in parallel), then build the site.

The plan (``plan_build``) asks the CUDA guard (``gpu_runs``) and freshness (``freshness``) per
lecture; the lectures are traced through the run protocol (a ``chalktrace run`` process each); one build runs at a time per project
(``build_lock``). This module must not record steps or render pages: MkDocs builds the site.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Collection, Iterator

from tracer.contract.paths import shown_path
from tracer.commands.course import course_root
from tracer.commands.freshness import course_lectures, course_skipped, freshness
from tracer.commands.gpu_runs import cuda_guard
from tracer.commands.retrace_status import RetraceStatus
from tracer.commands.runner_batches import split, trace_batches
from tracer.commands.site_check import config_problems, missing_pages
from tracer.commands.site_config import mkdocs_config
from tracer.commands.trace_problems import publish_problems
from tracer.commands.run_protocol import RunOutcome, run_many
from tracer.contract import course_layout, paths
from tracer.contract.course_layout import CourseLayout, quiet_layout_of
from tracer.contract.trace_access import local_images
from tracer.contract.lecture_files import course_path
from tracer.contract.trace_format import TraceError
from tracer.contract.trace_reading import load_trace
from tracer.exit_codes import ExitCode
from tracer.runners.config import RunnerError


@contextlib.contextmanager
def build_lock(layout: CourseLayout) -> Iterator[None]:
    """One build at a time per project: a second waits instead of racing on the same traces."""
    import fcntl

    lock_dir = layout.work_dir
    lock_dir.mkdir(parents=True, exist_ok=True)
    with open(lock_dir / ".chalktrace.lock", "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print("chalktrace: another build is running; waiting for it to finish", file=sys.stderr)
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def plan_build(
    project_root: Path, lectures: list[Path], *, force: bool, has_cuda: bool | None = None, on_runners: Collection[Path] = ()
) -> tuple[list[Path], list[str], list[str]]:
    """(lectures to re-trace, notes to print, blocking problems). ``on_runners``: lectures a runner
    traces (its machine, not this one, decides whether there is a GPU)."""
    todo: list[Path] = []
    notes: list[str] = []
    problems: list[str] = []
    for lecture in lectures:
        target = course_layout.trace_path(project_root, lecture)
        cuda_here = True if lecture in on_runners else has_cuda
        refusal = cuda_guard(lecture, target, force=force, has_cuda=cuda_here)
        if refusal is not None:
            if refusal.blocking:
                problems.append(refusal.message)
                continue
            notes.append(refusal.message)
            if refusal.skip:
                continue
        why = freshness(lecture, target, project_root) or missing_drawings(target, project_root)
        if why is None and not (refusal is not None and force):
            continue
        todo.append(lecture)
    return todo, notes, problems


def missing_drawings(trace_file: Path, project_root: Path) -> str | None:
    """Why a fresh trace of an edtrace course must still be re-traced before its page is built: an
    image it shows that the lecture drew into ``var/`` is gone (git ignores ``var/``: a fresh clone
    has none), and only a run draws it again. None when nothing is missing, and for other courses."""
    scratch = quiet_layout_of(project_root).scratch_dir
    if scratch is None:
        return None
    try:
        trace = load_trace(trace_file, validate=False)
    except TraceError:
        return None
    gone = [
        image
        for image in local_images(trace)
        if (project_root / image).resolve().is_relative_to(scratch.resolve()) and not (project_root / image).exists()
    ]
    return f"drawn by the lecture, gone: {', '.join(gone)}" if gone else None


def build(
    project_root: Path,
    *,
    jobs: int,
    timeout: float,
    force: bool,
    site: bool,
    show: bool = True,
    runner: str | None = None,
    status: RetraceStatus | None = None,
) -> int:
    layout = quiet_layout_of(project_root)
    lectures = course_lectures(layout)
    resolved_site_dir = None
    if site:  # a site that cannot be built is said before any lecture is traced for it
        config_lines, resolved_site_dir = site_config_problems(project_root)
        for line in config_lines:
            print(line, file=sys.stderr)
        if config_lines:
            return ExitCode.BAD_INPUT
    try:
        batches = split(lectures, project_root, runner)[1]
    except RunnerError as exc:
        print(f"chalktrace: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    with build_lock(layout):
        on_runners = {p for _runner, some in batches for p in some}
        todo, notes, problems = plan_build(project_root, lectures, force=force, on_runners=on_runners)
        for path, why in course_skipped(layout):
            if not path.name.startswith("_"):  # helpers are said to be helpers by their name
                print(f"{course_path(path, project_root)}: skipped: {why}", file=sys.stderr)
        for note in notes:
            print(note, file=sys.stderr)
        for removed in remove_orphan_traces(layout, project_root):
            print(removed, file=sys.stderr)
        if not todo:
            print(f"chalktrace: all {len(lectures)} traces fresh; nothing to re-trace", file=sys.stderr)
            outcomes: list[RunOutcome] = []
            local: list[RunOutcome] = []
        else:
            print(
                f"chalktrace: re-tracing {len(todo)} of {len(lectures)} lectures with {min(jobs, len(todo))} process(es)",
                file=sys.stderr,
            )
            started = time.perf_counter()
            here = [p for p in todo if p not in on_runners]
            remote = [(r, [p for p in some if p in todo]) for r, some in batches]
            # this machine's lectures trace meanwhile; Ctrl-C lands here, where the runners' jobs are cancelled
            local = []
            retracing = threading.Thread(
                target=lambda: local.extend(
                    run_many(
                        here,
                        [course_layout.trace_path(project_root, p) for p in here],
                        jobs=jobs,
                        timeout=timeout,
                        force=force,
                        project_root=project_root,
                        show=show,
                    )
                ),
                daemon=True,
            )
            retracing.start()
            outcomes = trace_batches(
                [(r, some) for r, some in remote if some],
                lambda p: course_layout.trace_path(project_root, p),
                project_root,
                timeout=timeout,
                force=force,
                show=show,
                status=status,
            )
            retracing.join()
            outcomes = local + outcomes
            print(f"chalktrace: re-tracing finished in {time.perf_counter() - started:.1f}s", file=sys.stderr)
        if status is not None:  # the open page says what this machine could not trace (serve)
            status.traced_here(local, lectures)
        # A run that raised wrote its error trace: the published traces' problems below name it.
        failed = [o for o in outcomes if not o.ok and o.returncode != ExitCode.LECTURE_FAILED]
        for outcome in failed:
            print(outcome.message or f"{shown_path(outcome.lecture, project_root)}: exit {outcome.returncode}", file=sys.stderr)
        students_would_see = published_problems(project_root, lectures)
        for problem in students_would_see:
            print(problem, file=sys.stderr)
        for problem in problems:
            print(problem, file=sys.stderr)
        if site:
            code = build_site(project_root, lectures=lectures, resolved_site_dir=resolved_site_dir)
            if code:
                return code
        return ExitCode.LECTURE_FAILED if (failed or problems or students_would_see) else ExitCode.OK


def remove_orphan_traces(layout: CourseLayout, project_root: Path) -> list[str]:
    """Delete each trace (and kept GPU run) whose lecture file is gone (renamed or deleted), so its
    page is not published; one line each saying so. A lecture that exists but is skipped (being
    edited, say) keeps its trace. Git still holds what was committed."""
    said = []
    for trace in sorted(layout.traces_dir.glob("*.json")):
        lecture = layout.lectures_dir / f"{trace.stem}.py"
        if lecture.exists():
            continue
        gpu_run = layout.traces_dir / paths.GPU_RUNS_SUBDIR / trace.name
        for gone in (trace, gpu_run):
            if gone.exists():
                gone.unlink()
                said.append(
                    f"{shown_path(gone, project_root)}: removed (its lecture {shown_path(lecture, project_root)} is gone); "
                    "commit the deletion"
                )
    return said


def published_problems(project_root: Path, lectures: list[Path]) -> list[str]:
    """What the committed traces of ``lectures`` would show students that they should not see
    (``publish_problems``), each ``path:line: what``."""
    problems = []
    for lecture in lectures:
        committed = course_layout.trace_path(project_root, lecture)
        try:
            trace = load_trace(committed, validate=False)
        except TraceError:
            continue  # missing or unreadable: the site build reports it on the lecture's page
        problems.extend(publish_problems(trace, project_root))
    return problems


def site_config_problems(project_root: Path) -> tuple[list[str], Path | None]:
    """The problems of the MkDocs configuration the site is built with, each one line naming its
    key (checked before any lecture is traced), and the site folder it builds into."""
    config, _site_dir = mkdocs_config(quiet_layout_of(project_root))
    return config_problems(config, shown_path(config, project_root))


def build_site(
    project_root: Path, strict: bool = True, lectures: Collection[Path] = (), resolved_site_dir: Path | None = None
) -> int:
    """Build the site with MkDocs, then check that every lecture of ``lectures`` with a trace got its
    page (in ``resolved_site_dir``, the configuration's site folder, when known)."""
    layout = quiet_layout_of(project_root)
    config, site_dir = mkdocs_config(layout)
    command = [sys.executable, "-m", "mkdocs", "build", "--quiet", "-f", str(config)] + (["--strict"] if strict else [])
    # a lecture page that could not be built fails the build (it still shows an error card on the site)
    done = subprocess.run(
        command, cwd=project_root, env=dict(os.environ, NO_MKDOCS_2_WARNING="1", **{paths.FAIL_ON_BROKEN_PAGES_ENV: "1"})
    )
    if done.returncode:
        print("chalktrace: site build failed (see above)", file=sys.stderr)
        return done.returncode
    traced = [(p.stem, shown_path(layout.trace_path(p), project_root)) for p in lectures if layout.trace_path(p).is_file()]
    missing = missing_pages(resolved_site_dir or site_dir, traced)
    for line in missing:
        print(line, file=sys.stderr)
    if missing:
        print("chalktrace: site build failed (lectures without a page, see above)", file=sys.stderr)
        return ExitCode.LECTURE_FAILED
    print(f"chalktrace: site built in {shown_path(site_dir, project_root)}/", file=sys.stderr)
    return done.returncode


def main(args: argparse.Namespace) -> int:
    root = course_root("build", site=not args.no_site)
    if root is None:
        return ExitCode.BAD_INPUT
    return build(
        root,
        jobs=args.jobs,
        timeout=args.timeout,
        force=args.force,
        site=not args.no_site,
        show=not args.quiet,
        runner=args.runner,
    )
