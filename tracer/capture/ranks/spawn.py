"""The launcher side of distributed tracing: follow the ranks a traced lecture starts, merge their shards.

While a lecture's ``main()`` is traced, :class:`SpawnRanks` is the traced process's process-start hook
(``TracedProcess.on_process_start``: it patches ``multiprocessing``'s ``BaseProcess.start`` for
as long as it runs, and nothing else: the per-line hot path is untouched, so lectures that start no
processes pay nothing). A process whose target is
``torch.multiprocessing.spawn``'s wrapper, or a function defined in the lecture's directory, gets
its function replaced by a picklable ``worker.RankTarget`` that traces it in the child and
writes a shard. Processes started from the same line at the same step form one *launch*, which
gets a free port for its env:// rendezvous (two traced lectures never meet on one port) and a
shared clock. When the lecture is done the traced reaps every child (no orphans), reads the
shards and adds the launch to the trace (``shards.add_launch``); a failed rank's error, with its
rank and ``file:line``, becomes the run's error line. While ranks run, a ``desync_watch.DesyncWatch``
thread compares the collectives they announce; ranks that disagree are stopped at once and the
diagnosis (``desync``) becomes the run's error line, ahead of whatever the backend raised.

``abort()`` (through ``TracedProcess.abort``) is the timeout timer's hook: it kills the ranks and says
which one hangs where, or never joined the group. This module must not format steps or merge
shards itself (``worker``/``shards`` do), and must not import the runner.
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, TypeGuard

from tracer.capture.ranks.desync import diagnose
from tracer.capture.ranks.desync_watch import DesyncWatch, Member, gone, rank_states
from tracer.capture.ranks import shards
from tracer.capture.ranks.worker import RankConfig, RankTarget
from tracer.capture.recorder import EXTRAS, RecordedStep
from tracer.capture.traced_process import TracedProcess
from tracer.contract.trace_access import stream_last_frame

REAP_SECONDS = 10.0  # how long a finished lecture waits for its ranks before killing them
STOP_SECONDS = 5.0  # how long desynchronised ranks get to write their shards before they are killed


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _is_torch_spawn_wrapper(target: Any) -> bool:
    return getattr(target, "__module__", None) == "torch.multiprocessing.spawn" and getattr(target, "__name__", "") == "_wrap"


@dataclass
class SpawnLaunch:
    number: int
    step: int  # the parent's step count when the first process started (the launching line's step)
    where: str | None
    t0: float
    port: int
    processes: list[tuple[int, Any]] = field(default_factory=list)  # (spawn index, Process)
    desync: dict[str, Any] | None = None  # the watch named ranks that disagree (trace_format.Desync)


class SpawnRanks:
    """The ranks a traced lecture starts with ``multiprocessing`` (a TracedProcess extension)."""

    shard_path: Path | None = None  # the launcher writes the trace, not a shard

    def __init__(self, traced: TracedProcess) -> None:
        self.traced = traced
        self.recorder = traced.recorder
        self.lecture = Path(traced.lecture)
        options = traced.options
        self.options: dict[str, Any] = dict(
            seed=options.seed,
            inspect_all=options.inspect_all,
            max_steps=options.max_steps,
            measure_flops=options.measure_flops,
            max_plot_points=options.max_plot_points,
        )
        self.launches: list[SpawnLaunch] = []
        self._dir: Path | None = None
        self._lecture_dir = str(self.lecture.parent.resolve()) + os.sep
        self._watch: DesyncWatch | None = None
        traced.on_process_start(self.adopt)

    # -- lifecycle (TracedProcess extension) -------------------------------------------------------------
    def start(self) -> None:
        pass

    def stop(self) -> None:
        self.reap()
        if self._watch is not None:
            self._watch.stop()

    def reap(self, seconds: float = REAP_SECONDS) -> None:
        """Wait for every rank this traced process started; kill the ones still running after ``seconds``."""
        deadline = time.monotonic() + seconds
        for launch in self.launches:
            for _index, process in launch.processes:
                try:
                    process.join(max(0.0, deadline - time.monotonic()))
                    if process.is_alive():
                        process.kill()
                        process.join(5)
                except (AssertionError, ValueError):
                    pass  # never started, or already closed

    # -- adopting processes ------------------------------------------------------------------------
    def _is_lecture_function(self, fn: Any) -> TypeGuard[Callable[..., Any]]:
        code = getattr(fn, "__code__", None)
        if code is None:
            return False
        try:
            return str(Path(code.co_filename).resolve()).startswith(self._lecture_dir)
        except OSError:
            return False

    def adopt(self, process: Any) -> None:
        """Trace ``process``'s function as a rank, if it is a lecture's (called from ``start()``)."""
        target = getattr(process, "_target", None)
        if _is_torch_spawn_wrapper(target):
            fn, index, args, error_file = process._args
            if not self._is_lecture_function(fn):
                return
            launch = self._launch()
            process._args = (RankTarget(fn, self._config(launch, index)), index, args, error_file)
        elif self._is_lecture_function(target):
            launch = self._launch()
            index = len(launch.processes)
            process._target = RankTarget(target, self._config(launch, index))
        else:
            return
        launch.processes.append((index, process))

    def _launch(self) -> SpawnLaunch:
        step, where = len(self.recorder.steps), self.recorder.location()
        if self.launches and (self.launches[-1].step, self.launches[-1].where) == (step, where):
            return self.launches[-1]
        if self._dir is None:
            self._dir = Path(tempfile.mkdtemp(prefix="chalktrace-ranks-"))
        launch = SpawnLaunch(number=len(self.launches), step=step, where=where, t0=time.time(), port=free_port())
        self.launches.append(launch)
        if self._watch is None:
            self._watch = DesyncWatch(self._running_launches, self._on_desync)
            self._watch.start()
        return launch

    # -- desynchronised ranks ------------------------------------------------------------------------
    def _members(self, launch: SpawnLaunch, exitcodes: bool = False) -> list[Member]:
        assert self._dir is not None
        base = self._dir / f"launch{launch.number}-"
        return [
            Member(
                index,
                Path(f"{base}{index}.seq"),
                Path(f"{base}{index}.where"),
                getattr(process, "pid", None),
                getattr(process, "exitcode", None) if exitcodes else None,
            )
            for index, process in launch.processes
        ]

    def _running_launches(self) -> list[tuple[int, list[Member]]]:
        return [(launch.number, self._members(launch)) for launch in list(self.launches) if launch.desync is None]

    def _on_desync(self, number: int, record: dict[str, Any]) -> None:
        """The watch's verdict: keep it and stop the launch's ranks now (they write what they did so
        far), rather than leave them blocked until the backend's timeout."""
        launch = self.launches[number]
        record["found_seconds"] = round(time.time() - launch.t0, 3)
        launch.desync = record
        # asked by file first: a rank's heartbeat thread then writes its shard (SIGTERM may land on a
        # thread torch started before the rank could block it, and kill the rank without one)
        members = self._members(launch)
        reason = f"stopped by the launcher: the ranks disagree on collective #{record['n']}"
        for member in members:
            try:
                member.where.with_suffix(".stop").write_text(reason, encoding="utf-8")
            except OSError:
                pass
        deadline = time.monotonic() + STOP_SECONDS
        while time.monotonic() < deadline and not all(gone(m) or m.where.with_suffix(".json").exists() for m in members):
            time.sleep(0.05)
        for _index, process in launch.processes:
            try:
                process.terminate()
            except Exception:
                pass

    def _config(self, launch: SpawnLaunch, index: int) -> RankConfig:
        assert self._dir is not None
        return RankConfig(
            lecture=str(self.lecture),
            project_root=str(self.traced.project_root),
            shard_path=str(self._dir / f"launch{launch.number}-{index}.json"),
            t0=launch.t0,
            port=launch.port,
            parent_pid=os.getpid(),
            launch=launch.number,
            index=index,
            output_head_chars=self.recorder.output.head_chars,
            output_tail_chars=self.recorder.output.tail_chars,
            **self.options,
        )

    # -- after the lecture ---------------------------------------------------------------------------
    def finish(self, header: Any, steps: list[RecordedStep], escaped: BaseException | None) -> str | None:
        """Add the ranks to the trace ``header``; return the error line naming the failed rank, if
        one failed."""
        if not self.launches:
            return None
        line = None
        try:
            for launch in self.launches:
                line = self._merge(launch, header, steps, escaped) or line
        finally:
            if self._dir is not None:
                shutil.rmtree(self._dir, ignore_errors=True)
        return line

    def _merge(self, launch: SpawnLaunch, header: Any, steps: list[RecordedStep], escaped: BaseException | None) -> str | None:
        assert self._dir is not None
        streams = []
        for index, process in launch.processes:
            path = self._dir / f"launch{launch.number}-{index}.json"
            shard = shards.read_json(path)
            exitcode = getattr(process, "exitcode", None)
            if shard is None or not isinstance(shard.get("shard"), dict):
                streams.append(shards.lost_stream(index, exitcode, shards.read_json(path.with_suffix(".where"))))
                continue
            shard["shard"]["exitcode"] = exitcode
            shards.absorb_files(header, shard)
            stream = shards.stream_from_shard(shard)
            stream["backend"] = shard["shard"].get("backend")
            streams.append(stream)
        step = launch.step if launch.step < len(steps) else (len(steps) - 1 if steps else None)
        record = shards.make_launch(streams, step=step, how="spawn")
        for stream in record["streams"]:
            stream.pop("backend", None)
        states, world = rank_states(self._members(launch, exitcodes=True))
        shards.add_sequences(record, states)
        desync = launch.desync or diagnose(states, world)
        if desync is not None:
            record["desync"] = desync
            _where_they_stood(desync, record)
        shards.add_launch(header, record)
        if desync is not None and escaped is not None:
            return _desync_failure(header, steps, launch.step, record, desync)
        failed_index = getattr(escaped, "error_index", None) if escaped is not None else None
        cause = shards.root_cause(record, failed_index)
        if cause is None or escaped is None:
            return None  # a lecture that handled its ranks' failure ran fine; the streams still show it
        header["error"] = {**(cause.get("error") or {"type": "Error", "message": "", "traceback": []}), "rank": cause["rank"]}
        _shorten_spawn_error(steps, launch.step, cause)
        return shards.failure_line(cause, record["world_size"])

    # -- the timeout timer ---------------------------------------------------------------------------
    def abort(self) -> tuple[str, str] | None:
        """Kill every live rank; (where, what) describing the ranks that held the lecture up."""
        hung = []
        for launch in self.launches:
            for index, process in launch.processes:
                if process.exitcode is not None:
                    continue
                where = shards.read_json(self._dir / f"launch{launch.number}-{index}.where") if self._dir else None
                hung.append((index, where or {}))
                try:
                    process.kill()
                except Exception:
                    pass
        for launch in self.launches:
            for _index, process in launch.processes:
                try:
                    process.join(5)
                except Exception:
                    pass
        if not hung:
            return None
        return describe_hang(hung)


def describe_hang(hung: list[tuple[int, dict[str, Any]]]) -> tuple[str, str]:
    """Where the first rank to blame is, and a sentence about every rank still running."""
    starting = [(i, w) for i, w in hung if not w.get("where") and not w.get("joined")]
    absent = [
        (i, w) for i, w in hung if not w.get("joined") and w.get("waiting_in") != "init_process_group" and (i, w) not in starting
    ]
    joining = [(i, w) for i, w in hung if w.get("waiting_in") == "init_process_group"]
    parts = []
    for index, where in absent:
        parts.append(f"rank {index} never joined the process group (last at {where['where']})")
    if starting:
        parts.append(
            ("ranks " if len(starting) > 1 else "rank ")
            + ", ".join(str(i) for i, _ in starting)
            + " still starting (not yet in its function)"
        )
    if joining:
        parts.append(
            ("ranks " if len(joining) > 1 else "rank ") + ", ".join(str(i) for i, _ in joining) + " waiting in init_process_group"
        )
    for index, where in hung:
        if (index, where) in absent or (index, where) in joining or (index, where) in starting:
            continue
        rank = where.get("rank", index) if where.get("rank") is not None else index
        waiting = f" waiting in {where['waiting_in']}" if where.get("waiting_in") else ""
        parts.append(f"rank {rank}{waiting} at {where.get('where') or '?'}")
    blame = absent[0] if absent else hung[0]
    return blame[1].get("where") or "?", "; ".join(parts)  # "?": no rank reached its function


def _where_they_stood(desync: dict[str, Any], record: dict[str, Any]) -> None:
    """A rank whose heartbeat no longer said where it was (its function had ended) stood on its last
    line; one that kept no steps either (stopped before it wrote its shard) was last seen at the call
    of its last collective."""
    last_lines = {}
    for stream in record["streams"]:
        frame = stream_last_frame(stream.get("frames") or [], stream["steps"])
        if frame is not None:
            last_lines[stream["rank"]] = f"{frame['path']}:{frame['line']}"
    for rank in desync["ranks"]:
        if not rank.get("where"):
            last = rank.get("last") or {}
            called = f"{last['path']}:{last['line']}" if last.get("path") else None
            rank["where"] = last_lines.get(rank["rank"]) or called


def _desync_failure(
    header: dict[str, Any], steps: list[RecordedStep], start: int, record: dict[str, Any], desync: dict[str, Any]
) -> str:
    """The run failed because its ranks disagreed: the trace's error and the launching line say so,
    in place of whatever the backend raised in the ranks left waiting (gloo: "Connection closed by
    peer"); a rank that raised on its own stays the cause, named as any failed rank is."""
    raised = next(
        (r for r in desync["ranks"] if r["state"] == "never called" and (r.get("ended") or {}).get("how") == "raised"), None
    )
    stream = next((s for s in record["streams"] if raised is not None and s["rank"] == raised["rank"]), None)
    message = desync["message"]
    if stream is not None and stream.get("error"):
        header["error"] = {**stream["error"], "rank": stream["rank"]}
        _shorten_spawn_error(steps, start, stream)
        return message
    else:
        waiting = next(r for r in desync["ranks"] if r["state"] in ("waiting", "called"))
        last = waiting.get("last") or {}
        frame = [{"path": last["path"], "line": last["line"], "function": "?"}] if last.get("path") else []
        header["error"] = {"type": "Desync", "message": message.split(": ", 1)[-1], "traceback": frame, "rank": waiting["rank"]}
    for index in range(start, len(steps)):
        extras = steps[index][EXTRAS]
        if extras and extras.get("error"):
            extras = dict(extras)
            extras["error"] = {**extras["error"], "message": "ranks desynchronised: " + message.split(": ", 1)[-1]}
            steps[index] = RecordedStep._make(steps[index])._replace(extras=extras)
            break
    return message


def _shorten_spawn_error(steps: list[RecordedStep], start: int, cause: dict[str, Any]) -> None:
    """The launching line's error names the failed rank instead of quoting its whole traceback."""
    error = cause.get("error") or {}
    for index in range(start, len(steps)):
        extras = steps[index][EXTRAS]
        if extras and extras.get("error"):
            extras = dict(extras)
            extras["error"] = {
                **extras["error"],
                "message": f"rank {cause['rank']} failed: {error.get('type', 'Error')}: "
                f"{(error.get('message') or '').splitlines()[0] if error.get('message') else ''}",
            }
            steps[index] = RecordedStep._make(steps[index])._replace(extras=extras)
            return
