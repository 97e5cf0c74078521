"""Step mode's per-card work spread over worker processes, so a long lecture's build uses the machine's cores.

``map_chunks(work, items, here=..., setup=..., setup_args=...)`` cuts ``items`` into chunks, runs
``work(chunk, *context)`` on each and returns the chunks' results in the order of ``items``. In this
process (few items, or no second CPU free: ``processes_for``) ``context`` is ``here`` and ``work``
sees all the items at once; in a worker it is ``setup(*setup_args)``, made once per worker (``here``
itself when there is no setup): ``setup_args`` are pickled once here for all the workers, and what
``setup`` makes is set aside from the worker's garbage collector (``collector.set_aside``). Workers
are started from a fresh "forkserver" (or "spawn") process, never forked from this one (a
``chalktrace serve`` process has threads), and live for one call; as with any such process, a script
that builds a site through Python keeps its own work under ``if __name__ == "__main__":`` (``mkdocs``
and ``chalktrace`` do). This process works on the chunks no worker has taken yet. A worker's error
is raised here as it was raised there (the first in order, as one process would raise it); a worker
that dies raises ``BrokenProcessPool`` instead of leaving the build waiting.

This module must not know what a card is nor how one is rendered or packed: ``work`` and ``setup``
come from the callers (``viewer_data``, ``packed_data``), which keep the result the same bytes
whether it ran here or in workers (tests/site/pages/test_card_workers.py builds a site both ways).
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.context import BaseContext
from typing import Any, TypeVar

from tracer.contract import collector, paths

Item = TypeVar("Item")
Result = TypeVar("Result")

# Below this many items a call stays in this process: starting workers and sending them the
# trace costs more than they save (bench/bench_long_lecture.py at --iterations 200 .. 2000).
MIN_ITEMS = 1_500
# Small chunks (a fraction of a second's work): when the last ones are being worked on, no process
# waits long for another's, and a worker holds at most two at a time (its own and the next).
CHUNK_ITEMS = 250

_context: tuple[Any, ...] = ()  # in a worker: what ``setup`` made, passed to every chunk's ``work``


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity where the platform says, else all of them)."""
    counted = getattr(os, "process_cpu_count", None)  # Python 3.13+
    if counted is not None:
        return counted() or 1
    if hasattr(os, "sched_getaffinity"):  # Linux
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1  # macOS: no affinity to ask


def forced_count() -> int | None:
    """The number of processes ``CHALKTRACE_CARD_WORKERS`` sets (None when it is not set); a value
    that is not a whole number is a ``ValueError`` that names the variable and its value (the
    plugin checks it as a build starts, so a typo fails the build instead of its step mode)."""
    text = os.environ.get(paths.CARD_WORKERS_ENV, "").strip()
    if not text:
        return None
    if not (text.isascii() and text.isdigit()):
        raise ValueError(
            f"{paths.CARD_WORKERS_ENV}={text!r} is not a number of processes "
            "(1: the build's own process alone; 2 or more: that many, the build's own included)"
        )
    return int(text)


def worker_count(items: int) -> int:
    """How many processes a call with ``items`` items uses, this one included: 0 means this one alone."""
    forced = forced_count()
    if forced is not None:
        return forced if forced > 1 else 0
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    return processes_for(items, usable_cpus(), load)


def processes_for(items: int, cpus: int, load: float) -> int:
    """How many processes ``items`` items get on ``cpus`` CPUs whose last minute's load average is
    ``load`` (this process's own run counts 1 of it): the CPUs other programs leave free, this one's
    included; 0 (this process alone) below MIN_ITEMS or when no second CPU is free. A CPU that another
    program keeps busy only makes the processes share it: each worker then costs its start and its
    transfers and saves nothing (a shared 2-core machine, one core busy: 15% more CPU, no less time)."""
    if items < MIN_ITEMS:
        return 0
    free = min(cpus, round(cpus - max(0.0, load - 1.0)))
    return free if free >= 2 else 0


def _start(setup: Callable[..., tuple[Any, ...]] | None, pickled_args: bytes, here: tuple[Any, ...]) -> None:
    global _context
    if setup is None:
        _context = here
        return
    # What setup makes (a renderer over the whole trace) is kept for the worker's one call: made with
    # the collector paused, then set aside from its passes, which would walk the trace's millions of
    # objects again and again (100,005-step trace: 1.6 s of a worker's start, against 0.5 s).
    with collector.paused():
        _context = setup(*pickle.loads(pickled_args))
    collector.set_aside()


class _Unsent(Exception):
    """A worker's error that cannot travel between processes as itself: its type's name and its words."""

    def raised_here(self) -> Exception:
        name, words = self.args
        return type(name, (Exception,), {})(words)  # says what the worker's error said, as its type's name


def _run(work: Callable[..., Result], chunk: Sequence[Any]) -> Result:
    try:
        return work(chunk, *_context)
    except Exception as exc:
        try:
            pickle.loads(pickle.dumps(exc))
        except Exception:  # noqa: BLE001 (it cannot travel back as itself)
            raise _Unsent(type(exc).__name__, str(exc)) from None
        raise


def _chunks(items: Sequence[Item], processes: int) -> list[Sequence[Item]]:
    size = max(1, min(CHUNK_ITEMS, -(-len(items) // (4 * processes))))
    return [items[start : start + size] for start in range(0, len(items), size)]


def map_chunks(
    work: Callable[..., Result],
    items: Sequence[Item],
    *,
    here: tuple[Any, ...] = (),
    setup: Callable[..., tuple[Any, ...]] | None = None,
    setup_args: tuple[Any, ...] = (),
) -> list[Result]:
    """``work(chunk, *context)`` for consecutive chunks of ``items``, results in order (module docstring).
    ``work`` and ``setup`` must be module-level functions and ``setup_args`` picklable (workers import them)."""
    workers = worker_count(len(items))
    if not workers:
        return [work(items, *here)]
    context: BaseContext
    if "forkserver" in multiprocessing.get_all_start_methods():
        forkserver = multiprocessing.get_context("forkserver")
        # its workers are forked from one fresh process that has imported the callers' modules once
        forkserver.set_forkserver_preload(list(dict.fromkeys([work.__module__, *([setup.__module__] if setup else [])])))
        context = forkserver
    else:
        context = multiprocessing.get_context("spawn")
    chunks = _chunks(items, workers)
    # pickled here once, not once per worker as it starts: a long lecture's trace takes 0.4 s
    pickled_args = pickle.dumps(setup_args, protocol=pickle.HIGHEST_PROTOCOL) if setup is not None else b""
    with ProcessPoolExecutor(
        max_workers=workers - 1, mp_context=context, initializer=_start, initargs=(setup, pickled_args, () if setup else here)
    ) as pool:
        futures = [pool.submit(_run, work, chunk) for chunk in chunks]
        try:
            # This process works too, from the last chunk back, on each that no worker has taken yet;
            # an error is raised at its chunk's turn, so the first in order is the one a serial run raises.
            here_done: dict[int, tuple[Result | None, Exception | None]] = {}
            for k in range(len(chunks) - 1, -1, -1):
                if futures[k].cancel():
                    try:
                        here_done[k] = (work(chunks[k], *here), None)
                    except Exception as exc:  # noqa: BLE001 (raised below, in order)
                        here_done[k] = (None, exc)
            results: list[Result] = []
            for k, future in enumerate(futures):
                if k not in here_done:
                    try:
                        results.append(future.result())
                    except _Unsent as unsent:
                        raise unsent.raised_here() from None
                    continue
                result, error = here_done[k]
                if error is not None:
                    raise error
                results.append(result)  # type: ignore[arg-type]
            return results
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise
