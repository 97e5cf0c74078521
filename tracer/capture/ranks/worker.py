"""The rank side of distributed tracing: trace one rank's function and write its shard.

A process started by a traced lecture (``torch.multiprocessing.spawn`` or a ``multiprocessing``
process whose target is a lecture function) runs a :class:`RankTarget` instead of the bare function:
it runs it in a ``TracedProcess`` (the same recorder, value encoder, memory probe and authoring-API sink
as the launcher's), wraps ``torch.distributed``'s collectives (``collectives.CollectiveLog``), runs the function and
writes a *shard*: a trace of this rank alone (the same format, so the same writer and schema) with
a ``shard`` header field (rank, world size, backend, spawn index, status), its header built by
``header.trace_header`` like the launcher's. Writing is atomic.

Before each collective the rank announces it (``desync_watch.SequenceWriter``, a ``.seq`` file
beside the shard), and it says how its function ended, so the launcher can name ranks that
disagree on their collectives. A :class:`Heartbeat` thread keeps a tiny ``.where`` file up to date (the line the rank is on,
whether it has joined the process group, the collective it waits in) so the launcher can say
where a hung rank is, and turns SIGTERM (the launcher stopping the other ranks after a failure), or a ``.stop`` file
beside the ``.where`` one (the launcher stopping ranks that disagree on a collective, with its
reason), into a shard that ends with a ``Stopped`` error step, even while the rank is blocked inside a
collective. A rank dies with its launcher (``PR_SET_PDEATHSIG``), so no process is orphaned.
This module must not merge shards (``shards`` does), decide launches (``spawn`` does) or import
the runner.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from tracer.capture.api import PLOT_DATA_POINTS
from tracer.capture.ranks.desync_watch import SequenceWriter
from tracer.capture.header import loaded_files, trace_header
from tracer.capture.lecture_module import LECTURE_MODULE, lecture_attribute
from tracer.capture.output_budget import HEAD_CHARS, TAIL_CHARS, OutputBudget
from tracer.capture.recorder import EXTRAS, KEY, LINE, RecordedStep, Recorder, mark_error
from tracer.capture.process_state import lecture_modules
from tracer.capture.traced_process import TracedProcess, TraceOptions
from tracer.capture.trace_writer import trace_json
from tracer.contract.helper_files import SettingsError, trace_patterns
from tracer.contract.files import write_atomic
from tracer.contract.trace_format import ErrorInfo

STOPPED_EXIT = 128 + signal.SIGTERM


@dataclass
class RankConfig:
    """What a rank needs to trace itself like its launcher would (pickled into the child)."""

    lecture: str  # absolute path of the lecture's main file
    project_root: str
    shard_path: str  # where this rank writes its shard; ``.where`` beside it
    seed: int = 0
    inspect_all: bool = False
    max_steps: int = 100_000
    measure_flops: bool = True
    t0: float = 0.0  # wall-clock start of the launch, shared by its ranks
    port: int | None = None  # the free port this launch's env:// rendezvous uses
    parent_pid: int | None = None
    launch: int = 0
    index: int = 0  # the spawn index (the rank until the process group says otherwise)
    # the launcher's output budget (``--max-output-chars``): a rank keeps its stdout and stderr alike
    output_head_chars: int = HEAD_CHARS
    output_tail_chars: int = TAIL_CHARS
    max_plot_points: int = PLOT_DATA_POINTS  # the launcher's --max-plot-points


class RankTarget:
    """Picklable stand-in for a rank function: ``RankTarget(fn, config)(*args)`` traces ``fn(*args)``."""

    def __init__(self, fn: Callable[..., Any], config: RankConfig) -> None:
        self.fn = fn
        self.config = config

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return trace_rank(self.fn, args, kwargs, self.config)

    def __reduce__(self) -> tuple[Any, ...]:
        # A lecture function is found by the lecture's file, not by a module name a rank could import.
        if getattr(self.fn, "__module__", None) == LECTURE_MODULE:
            return _lecture_rank_target, (self.config.lecture, self.fn.__qualname__, self.config)
        return RankTarget, (self.fn, self.config)


def _lecture_rank_target(lecture: str, qualname: str, config: RankConfig) -> RankTarget:
    return RankTarget(lecture_attribute(lecture, qualname), config)


def die_with_parent(parent_pid: int | None) -> None:
    """Ask Linux to SIGKILL this process when its launcher exits (a launcher killed by a timeout
    must not leave ranks blocked in a collective behind)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:
        pass
    if parent_pid is not None and os.getppid() != parent_pid:
        os._exit(STOPPED_EXIT)  # the launcher died before the prctl took effect


class Heartbeat:
    """A daemon thread: refresh the ``.where`` file and turn SIGTERM into a stopped shard."""

    def __init__(
        self,
        where_path: Path,
        location: Callable[[], str | None],
        on_stop: Callable[[], None],
        index: int,
        parent_pid: int | None,
    ) -> None:
        self.where_path = where_path
        self.location = location
        self.on_stop = on_stop
        self.state: dict[str, Any] = {"index": index, "rank": None, "where": None, "joined": False, "waiting_in": None}
        self._written: str | None = None
        self.stop_reason: str | None = None  # why the launcher stopped this rank, when it said
        self._parent_pid = parent_pid
        self._thread = threading.Thread(target=self._run, name="chalktrace-heartbeat", daemon=True)

    def start(self) -> None:
        # SIGTERM is taken by this thread (sigtimedwait), so the main thread may be blocked in C++.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
        self._thread.start()

    def event(self, kind: str, detail: str | None) -> None:
        if kind == "joining":
            self.state["waiting_in"] = "init_process_group"
        elif kind == "joined":
            self.state.update(joined=True, waiting_in=None)
        elif kind == "collective":
            self.state["waiting_in"] = detail
        elif kind == "collective_done":
            self.state["waiting_in"] = None
        self.write()  # a collective may block for good: say where before entering it

    def write(self) -> None:
        self.state["where"] = self.location()
        text = json.dumps(self.state)
        if text != self._written:
            self._written = text
            try:
                tmp = self.where_path.with_name(self.where_path.name + ".tmp")
                tmp.write_text(text, encoding="utf-8")
                os.replace(tmp, self.where_path)
            except OSError:
                pass

    def _run(self) -> None:
        stop_path = self.where_path.with_suffix(".stop")  # the launcher's request, with its reason
        asked = False
        while True:
            if signal.sigtimedwait({signal.SIGTERM}, 0.25) is not None:
                if not asked:  # (asked: the shard is written, or being written by the main thread)
                    self.on_stop()
                os._exit(STOPPED_EXIT)
            if not asked and stop_path.exists():
                # write the shard but stay: a rank that exits now makes torch's spawn SIGTERM the
                # others while they write theirs; the launcher ends every rank once all have written
                asked = True
                try:
                    self.stop_reason = stop_path.read_text(encoding="utf-8").strip() or None
                except OSError:
                    pass
                self.on_stop()
            if self._parent_pid is not None and os.getppid() != self._parent_pid:
                os._exit(STOPPED_EXIT)
            self.write()


def attach_collectives(steps: list[RecordedStep], records: list[dict[str, Any]]) -> None:
    """Put each collective on the step of the line that called it: the first completed step at or
    after the step count when the call started, on the calling line."""
    for record in records:
        index, path, line = record.pop("step"), record.pop("path"), record.pop("line")
        target = next(
            (
                k
                for k in range(index, len(steps))
                if steps[k][KEY][0] == path and steps[k][LINE] == line and not (steps[k][EXTRAS] or {}).get("call")
            ),
            None,
        )
        if target is None:
            continue
        prefix, key, at, extras, memory = steps[target]
        extras = dict(extras or {})
        extras.setdefault("collectives", []).append(record)
        steps[target] = RecordedStep(prefix, key, at, extras, memory)


def stopped_step(recorder: Recorder, message: str) -> RecordedStep | None:
    """A final step on the line a stopped rank was executing, carrying a ``Stopped`` error."""
    top = recorder.innermost()
    if top is None or not top[2]:
        return None
    prefix, key, line = top
    error = {
        "type": "Stopped",
        "message": message,
        "traceback": [{"path": p, "line": ln, "function": fn} for p, ln, fn in prefix]
        + [{"path": key[0], "line": line, "function": key[1]}],
    }
    return RecordedStep(prefix, key, line, {"error": error}, recorder.probe.sample())


class RankTracing:
    """One traced rank's extras around its traced process: the collective log, the heartbeat and the shard.

    A TracedProcess extension, used by spawned ranks (``trace_rank``) and, as :class:`TorchrunRank`, by
    torchrun-style ranks."""

    def __init__(
        self,
        traced: TracedProcess,
        shard_path: Path,
        *,
        index: int,
        t0: float,
        port: int | None,
        parent_pid: int | None,
        launch: int = 0,
    ) -> None:
        from tracer.capture.ranks.collectives import CollectiveLog

        self.traced = traced
        self.recorder = traced.recorder
        self.shard_path = shard_path
        self.index, self.launch = index, launch
        self._lock = threading.Lock()
        self._written = False
        self.heartbeat = Heartbeat(shard_path.with_suffix(".where"), self.recorder.location, self._on_stop, index, parent_pid)
        self.sequence = SequenceWriter(shard_path.with_suffix(".seq"))  # what desync diagnosis compares
        self.log = CollectiveLog(
            self._position,
            t0,
            on_event=self._event,
            port=port,
            modules=list(lecture_modules(str(traced.lecture.parent) + os.sep).values()),
            announce=self.sequence.announce,
        )
        # Every rank, spawned or started by torchrun, has torch.distributed wrapped while it runs.
        traced.add_process_state(self.log.installed())

    def _event(self, kind: str, detail: str | None) -> None:
        if kind == "joined" and self.log.rank is not None:
            self.sequence.joined(self.log.rank, self.log.world_size or 0)
        self.heartbeat.event(kind, detail)

    def announce_end(self, escaped: BaseException | None) -> None:
        """Tell the launcher how the rank's function ended (before the shard: the launcher may be
        waiting on it to name a desync)."""
        if escaped is None or (isinstance(escaped, SystemExit) and escaped.code in (None, 0)):
            self.sequence.end("returned")
            return
        try:
            frames = self.traced.lecture_traceback(escaped.__traceback__)
        except Exception:
            frames = []
        first = (str(escaped).splitlines() or [""])[0]
        last: Any = frames[-1] if frames else {}
        self.sequence.end(
            "raised",
            f"{type(escaped).__name__}: {first}" if first else type(escaped).__name__,
            last.get("path"),
            last.get("line"),
        )

    def _position(self) -> tuple[int, str, int]:
        top = self.recorder.innermost()
        return len(self.recorder.steps), (top[1][0] if top else ""), (top[2] if top else 0)

    def start(self) -> None:
        self.heartbeat.start()

    def stop(self) -> None:
        self.heartbeat.write()

    def abort(self) -> tuple[str, str] | None:
        return None  # a rank's own timeout timer is its launcher's

    def shard_info(self, status: str) -> dict[str, Any]:
        log = self.log
        rank = log.rank if log.rank is not None else _env_int("RANK", self.index)
        self.heartbeat.state["rank"] = rank
        return {
            "rank": rank,
            "spawn_index": self.index,
            "launch": self.launch,
            "world_size": log.world_size or _env_int("WORLD_SIZE", None),
            "backend": log.backend,
            "link": log.link,
            "status": status,
            "joined": log.rank is not None,
        }

    def write(self, status: str, escaped: BaseException | None, steps: list[RecordedStep]) -> None:
        """Spawn mode: write this rank's shard (once)."""
        with self._lock:
            if self._written:
                return
            self._written = True
            traced = self.traced
            error: ErrorInfo | None = None
            traced.finish_output(self._label())
            if escaped is not None:
                error = {
                    "type": type(escaped).__name__,
                    "message": traced.encoder.scrub(str(escaped)),
                    "traceback": traced.lecture_traceback(escaped.__traceback__),
                }
                mark_error(steps, escaped, error, self.recorder.raised_at(escaped))
            elif status == "stopped":
                waiting = self.heartbeat.state.get("waiting_in")
                last = stopped_step(
                    self.recorder,
                    (self.heartbeat.stop_reason or "stopped by the launcher after another rank failed")
                    + (f" (waiting in {waiting})" if waiting else ""),
                )
                if last is not None:
                    steps.append(last)
                    error = last[EXTRAS]["error"] if last[EXTRAS] else None
            attach_collectives(steps, [dict(r) for r in self.log.records])
            modules = lecture_modules(str(traced.lecture.parent) + os.sep).values()
            header = trace_header(
                traced,
                steps,
                status="ok" if status == "ok" else "error",
                files=loaded_files(traced, [getattr(m, "__file__", None) or "" for m in modules]),
                title=traced.lecture.stem,
                error=error,
            )
            header["warnings"] = list(header["warnings"])
            header["shard"] = self.shard_info(status)  # type: ignore[typeddict-item]
            write_atomic(self.shard_path, trace_json(header, steps))

    def _label(self) -> str:
        """``lecture.py: rank R`` for this rank's warnings (the terminal gets every rank's)."""
        rank = self.log.rank if self.log.rank is not None else _env_int("RANK", self.index)
        return f"{self.traced.shown}: rank {rank}"

    def _on_stop(self) -> None:
        self.recorder.halt()
        if self._lock.acquire(blocking=False):
            self._lock.release()
            self.write("stopped", None, list(self.recorder.steps))
        else:
            self._lock.acquire()  # the rank is writing its own shard: let it finish first


class TorchrunRank(RankTracing):
    """This process as one rank of a torchrun launch (``chalktrace run --shard-dir``): the runner traces
    ``main()`` as for any lecture and writes the shard (``shard_path``) in place of the trace."""

    def __init__(self, traced: TracedProcess, shard_dir: Path) -> None:
        index = int(os.environ.get("RANK", "0"))
        super().__init__(
            traced,
            shard_dir / f"rank-{index}.json",
            index=index,
            t0=float(os.environ.get("CHALKTRACE_T0", time.time())),
            port=None,
            parent_pid=None,
        )

    def start(self) -> None:
        die_with_parent(None)  # a rank dies with its torchrun agent
        self.shard_path.parent.mkdir(parents=True, exist_ok=True)
        super().start()

    def finish(self, header: Any, steps: list[RecordedStep], escaped: BaseException | None) -> str | None:
        """Turn the runner's trace header into this rank's shard (the runner writes it). The lock is
        kept: a SIGTERM arriving now must not write a second shard."""
        self._lock.acquire()
        self._written = True
        self.announce_end(escaped)
        attach_collectives(steps, [dict(r) for r in self.log.records])
        info = self.shard_info("error" if escaped is not None else "ok")
        header["shard"] = info
        if escaped is not None and header.get("error"):
            error = header["error"]
            frames = error.get("traceback") or []
            where = f"{frames[-1]['path']}:{frames[-1]['line']}" if frames else "?"
            return f"{where}: rank {info['rank']}: {error['type']}: {error['message']}".splitlines()[0]
        return None


def trace_rank(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], config: RankConfig) -> Any:
    """Run ``fn(*args, **kwargs)`` as one traced rank; write the shard; re-raise what it raised."""
    sys.settrace(None)  # a forked child inherits its parent's tracer
    die_with_parent(config.parent_pid)
    lecture, project_root = Path(config.lecture), Path(config.project_root)
    try:
        helpers = trace_patterns(project_root)
    except SettingsError:
        helpers = ()  # the launcher already read the same settings and reported them
    options = TraceOptions(
        seed=config.seed,
        inspect_all=config.inspect_all,
        max_steps=config.max_steps,
        measure_flops=config.measure_flops,
        trace_helpers=helpers,
        output_budget=OutputBudget(config.output_head_chars, config.output_tail_chars),
        max_plot_points=config.max_plot_points,
        guard_exit=False,
        capture_fds=False,
    )
    traced = TracedProcess(lecture, project_root, options)
    rank = RankTracing(
        traced,
        Path(config.shard_path),
        index=config.index,
        t0=config.t0,
        port=config.port,
        parent_pid=config.parent_pid,
        launch=config.launch,
    )
    traced.add_extension(rank)
    # stdout, stderr and warnings go to the rank's steps, as the launcher's go to its own
    outcome = traced.run(fn, *args, **kwargs)
    escaped = outcome.escaped
    rank.announce_end(escaped)
    quiet_exit = isinstance(escaped, SystemExit) and escaped.code in (None, 0)
    rank.write("ok" if escaped is None or quiet_exit else "error", None if quiet_exit else escaped, list(traced.recorder.steps))
    if escaped is not None:
        raise escaped
    return outcome.value


def _env_int(name: str, default: int | None) -> int | None:
    try:
        return int(os.environ[name])
    except (KeyError, ValueError):
        return default
