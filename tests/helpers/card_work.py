"""Work for ``card_workers.map_chunks`` in the tests: module-level, so a worker process can import it."""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Sequence


class Unpicklable(Exception):
    """An error that cannot travel between processes as itself (its constructor needs two arguments)."""

    def __init__(self, what: str, where: int) -> None:
        super().__init__(f"{what} at {where}")
        self.handle = lambda: where  # a lambda cannot be pickled


def squares(chunk: Sequence[int], offset: int) -> tuple[int, list[int]]:
    """The process that ran the chunk, and each item squared plus ``offset``."""
    return os.getpid(), [item * item + offset for item in chunk]


def fails_at(chunk: Sequence[int], bad: int, unpicklable: bool) -> list[int]:
    """Raises at the items from ``bad`` on, naming the item: the first raised in order names ``bad``.
    Each chunk takes a moment first, so that the first chunks are surely a worker's."""
    time.sleep(0.05)
    for item in chunk:
        if item >= bad:
            if unpicklable:
                raise Unpicklable("cannot render card", item)
            raise ValueError(f"cannot render card {item}")
    return list(chunk)


def dies_in_worker(chunk: Sequence[int], parent: int) -> list[int]:
    """Ends a worker process at once (as a crash or the kernel's OOM killer would); fine in ``parent``."""
    if os.getpid() != parent:
        os._exit(3)
    return list(chunk)


class CountsPickling:
    """A setup argument that counts how often this process pickles it (once per worker started, or once)."""

    pickled = 0

    def __reduce__(self) -> tuple[type, tuple[()]]:
        CountsPickling.pickled += 1
        return CountsPickling, ()


def kept_lists(_argument: CountsPickling) -> tuple[list[list[int]]]:
    """A worker's context: many small lists kept for the whole call, as a renderer's trace is."""
    return ([[k] for k in range(10_000)],)


def set_aside(chunk: Sequence[int], kept: list[list[int]]) -> tuple[int, bool, list[int]]:
    """The process that ran the chunk, whether ``kept`` is out of its collector's passes, the items."""
    return os.getpid(), id(kept) not in {id(thing) for thing in gc.get_objects()}, list(chunk)
