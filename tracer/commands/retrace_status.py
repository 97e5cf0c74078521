"""What ``chalktrace serve`` tells open pages about lectures being re-traced on a runner.

While serving, a lecture that a runner traces is away for a while (a queue, a GPU node): the
development server publishes ``RetraceStatus``'s file (the plugin links it into the served site as
``paths.RETRACE_STATUS_URL``) and the page's reload script shows "re-tracing on gpu (job 812345)",
or the one-line failure, until the new trace arrives and the page reloads. A lecture this machine
could not trace at all (a syntax error mid-edit: no trace is written, so no reload comes) is said
the same way, with runner ``""``, until a run of it succeeds. The file maps each lecture's name to
``{"runner", "job", "state": "running" | "failed", "message"}``; a lecture is dropped from it when
its trace is back. Given ``DraftTraces``, a lecture that failed here with a syntax error also gets
its error-only draft (the page then shows the error at its line), withdrawn as the entry is dropped.
This module only writes that file (and asks for drafts); it must not trace.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

from tracer.commands.draft_traces import DraftTraces
from tracer.commands.run_protocol import RunOutcome
from tracer.contract.course_layout import trace_path
from tracer.contract.files import write_atomic
from tracer.runners.config import Runner


class RetraceStatus:
    def __init__(self, path: Path, drafts: DraftTraces | None = None, project_root: Path | None = None) -> None:
        self.path = path
        self.drafts = drafts
        self.project_root = project_root
        self._lectures: dict[str, dict[str, str]] = {}
        self._lock = threading.Lock()
        self._write()

    def _write(self) -> None:
        write_atomic(self.path, json.dumps(self._lectures, sort_keys=True) + "\n")

    def started(self, runner: Runner, lectures: list[Path]) -> None:
        with self._lock:
            for lecture in lectures:
                self._lectures[lecture.stem] = {"runner": runner.name, "job": "", "state": "running", "message": ""}
            self._write()

    def job(self, runner: Runner, lectures: list[Path], job: str) -> None:
        with self._lock:
            for lecture in lectures:
                if lecture.stem in self._lectures:
                    self._lectures[lecture.stem]["job"] = job
            self._write()

    def finished(self, outcome: RunOutcome) -> None:
        """The lecture's trace is back (dropped: the page reloads on the new trace), or it failed (said)."""
        with self._lock:
            entry = self._lectures.pop(outcome.lecture.stem, None)
            if entry is not None and outcome.returncode not in (0, 1):  # 1: the lecture raised; its trace is back
                self._lectures[outcome.lecture.stem] = {**entry, "state": "failed", "message": outcome.message}
            self._write()

    def traced_here(self, outcomes: list[RunOutcome], lectures: list[Path]) -> None:
        """This machine's runs of a build of ``lectures``: one that wrote no trace (exit 2: a syntax
        error, an import that failed) is said on the open page, since no new trace will reload it; a
        lecture that traced, or needed no run (a save undid the error), is dropped."""
        with self._lock:
            failed = {o.lecture.stem: o for o in outcomes if o.returncode not in (0, 1)}  # 1: raised; its error trace reloads
            for name, outcome in failed.items():
                message = (outcome.message or f"{name}: exit {outcome.returncode}").splitlines()[0]
                self._lectures[name] = {"runner": "", "job": "", "state": "failed", "message": message}
                if self.drafts is not None and self.project_root is not None:
                    root = self.project_root
                    self.drafts.publish(outcome.lecture, root, trace_path(root, outcome.lecture))
            if self.drafts is not None:
                self.drafts.keep_only(lectures)  # a lecture deleted with its draft up has no page
            for lecture in lectures:
                if self.drafts is not None and lecture.stem not in failed:
                    self.drafts.withdraw(lecture)
                entry = self._lectures.get(lecture.stem)
                if lecture.stem not in failed and entry is not None and not entry["runner"]:
                    del self._lectures[lecture.stem]
            self._write()
