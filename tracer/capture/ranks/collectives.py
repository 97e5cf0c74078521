"""Record the torch.distributed collectives a traced rank calls: op, sizes, modelled bytes, wall time.

``CollectiveLog.installed()`` (a context manager the rank's traced process enters around its run)
replaces the collective functions of ``torch.distributed`` (and any lecture-module global bound to
one of them) with thin wrappers for as long as a rank is traced, and puts the originals back. Each call appends one record: the op, the tensor's dtype,
shape and ``nbytes`` (the per-rank payload), the bytes this rank sends and receives under the
algorithm the backend uses (``traffic``), its wall time, and where the lecture called it (the step
it belongs to). Records are attached to steps by the rank worker; this module must not write files
or touch the recorder's hot path (wrappers only run when a lecture calls a collective).

The byte model (``n`` ranks in the group, ``S`` the per-rank tensor's bytes; what one rank moves):

========================  ===========================  ================================================
op                        algorithm                    sent / received by each rank
========================  ===========================  ================================================
all_reduce                ring (reduce-scatter +        2(n-1)/n·S each way
                          all-gather)
broadcast (gloo)          one-to-all                   root sends (n-1)·S; every other rank receives S
broadcast (nccl)          ring chain (pipelined)        every rank but the last in the chain sends S;
                                                       every rank but the root receives S
all_gather(_into_tensor)  ring                         (n-1)·S each way (S: one rank's input)
reduce_scatter(_tensor)   ring                         (n-1)·S each way (S: one rank's output shard)
reduce                    direct to root               non-root ranks send S; the root receives (n-1)·S
gather / scatter          direct                       like reduce / the reverse
all_to_all(_single)       pairwise                     (n-1)/n of its input sent, of its output received
send / recv               point to point               S sent / S received
barrier                   no payload                   0
========================  ===========================  ================================================

Bandwidth, as nccl-tests defines it (its ``doc/PERFORMANCE.md``): ``algbw = S / t`` with ``S`` the
size of the whole operation (below) and ``t`` its time, and ``busbw = algbw · factor``, the factor
making the figure comparable with the link's peak whatever the number of ranks (what each rank's
busiest link carries, by the algorithm above):

========================================  =====================  =============
op                                        S                      factor
========================================  =====================  =============
all_reduce                                the tensor (S above)   2(n-1)/n
reduce_scatter(_tensor)                   n · one output shard   (n-1)/n
all_gather(_into_tensor)                  n · one input          (n-1)/n
all_to_all(_single)                       a rank's whole input   (n-1)/n
gather / scatter                          n · one rank's part    (n-1)/n
broadcast, reduce                         the tensor             1
send / recv                               the tensor             1
barrier, async calls (isend, async_op)    no figure (nothing to time: the call returns at once)
========================================  =====================  =============

``t`` is a rank's *transfer* time: its wall time in the call minus the time it waited for the last
rank to enter (nccl-tests starts every rank together, so its ``t`` has no such wait). Entry times are
``time.time()``: on one machine every process reads the same kernel clock (``CLOCK_REALTIME``, µs
resolution), which the launcher and its ranks share; the launch's start ``t0`` is taken by the
launcher and handed to its ranks. (``time.monotonic()`` is system-wide on Linux too, but not
across the nodes of a torchrun job; there ``time.time()`` is as good as the nodes' NTP.) The wait
and transfer split, algbw, busbw and the share of the link's peak (``link_peaks``) are added when the
ranks' records are merged (``bandwidth``), since they need every rank's entry time.
"""

from __future__ import annotations

import contextlib
import sys
import time
from typing import Any, Callable, Iterator

# op name -> (kind of call signature, default algorithm name)
OPS = (
    "all_reduce",
    "broadcast",
    "all_gather",
    "all_gather_into_tensor",
    "all_gather_single",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "reduce_scatter_single",
    "reduce",
    "gather",
    "scatter",
    "all_to_all",
    "all_to_all_single",
    "send",
    "recv",
    "isend",
    "irecv",
    "barrier",
)
LIFECYCLE = ("init_process_group", "destroy_process_group")


def traffic(
    op: str, nbytes: int, n: int, rank: int, *, root: int | None = None, backend: str | None = None, out_nbytes: int | None = None
) -> tuple[int, int, str]:
    """(bytes sent, bytes received, algorithm) for one rank under the model in the module docstring."""
    if n <= 1 and op not in ("send", "recv", "isend", "irecv"):
        return 0, 0, "single rank (no communication)"
    if op == "all_reduce":
        moved = 2 * (n - 1) * nbytes // n
        return moved, moved, "ring"
    if op == "broadcast":
        root = root or 0
        if backend == "nccl":
            last = (root - 1) % n
            return (0 if rank == last else nbytes), (0 if rank == root else nbytes), "ring chain"
        return ((n - 1) * nbytes, 0, "one-to-all") if rank == root else (0, nbytes, "one-to-all")
    if op in (
        "all_gather",
        "all_gather_into_tensor",
        "all_gather_single",
        "reduce_scatter",
        "reduce_scatter_tensor",
        "reduce_scatter_single",
    ):
        moved = (n - 1) * nbytes
        return moved, moved, "ring"
    if op in ("reduce", "gather"):
        root = root or 0
        return (0, (n - 1) * nbytes, "direct") if rank == root else (nbytes, 0, "direct")
    if op == "scatter":
        root = root or 0
        return ((n - 1) * nbytes, 0, "direct") if rank == root else (0, nbytes, "direct")
    if op in ("all_to_all", "all_to_all_single"):
        received = out_nbytes if out_nbytes is not None else nbytes
        return (n - 1) * nbytes // n, (n - 1) * received // n, "pairwise"
    if op in ("send", "isend"):
        return nbytes, 0, "point to point"
    if op in ("recv", "irecv"):
        return 0, nbytes, "point to point"
    return 0, 0, "no payload"


GATHER_LIKE = (
    "all_gather",
    "all_gather_into_tensor",
    "all_gather_single",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "reduce_scatter_single",
    "gather",
    "scatter",
)
NO_BANDWIDTH = ("barrier", "isend", "irecv")


def bus_factor(op: str, n: int) -> float | None:
    """nccl-tests' busbw/algbw factor for ``op`` on ``n`` ranks (table in the module docstring)."""
    if op in NO_BANDWIDTH or op not in OPS:
        return None
    if op == "all_reduce":
        return 2 * (n - 1) / n
    if op in GATHER_LIKE or op in ("all_to_all", "all_to_all_single"):
        return (n - 1) / n
    return 1.0  # broadcast, reduce, send, recv


def operation_nbytes(op: str, nbytes: int, n: int) -> int:
    """nccl-tests' ``S`` for one call, from the record's per-rank ``nbytes``."""
    return n * nbytes if op in GATHER_LIKE else nbytes


def bandwidth(op: str, nbytes: int, n: int, seconds: float) -> tuple[float, float] | None:
    """``(algbw, busbw)`` in bytes/s for a call that moved its data in ``seconds``; None when there
    is no figure (no payload, an async call, no measurable time)."""
    factor = bus_factor(op, n)
    if factor is None or seconds <= 0 or nbytes <= 0:
        return None
    algbw = operation_nbytes(op, nbytes, n) / seconds
    return algbw, algbw * factor


def add_bandwidth(streams: list[dict[str, Any]], peak_bytes_per_s: float | None = None) -> None:
    """Add ``wait_seconds``, ``transfer_seconds``, ``algbw``, ``busbw`` (and, with a known link peak,
    ``peak`` and ``peak_share``) to the collective records of one launch's rank streams, in place.

    The last rank to enter a collective sets when the transfer can start, so a rank's wait is the last entry time minus its own (at most its time in the call), and
    the rest is transfer. A rank that returned before the last one entered (a gloo broadcast's root, a
    buffered send) has no transfer time of its own and gets no figure. Point-to-point calls pair only
    with their peer; async calls get nothing."""
    # group-wide calls pair by their number among a rank's group-wide calls (a send or recv that only
    # some ranks make shifts ``seq``); point-to-point calls pair with their peer's opposite call
    by_number: dict[int, list[dict[str, Any]]] = {}
    p2p: dict[int, list[tuple[int, dict[str, Any]]]] = {}
    for stream in streams:
        number = 0
        for step in stream.get("steps", ()):
            for record in step.get("collectives", ()):
                if record["op"] in ("send", "recv", "isend", "irecv"):
                    p2p.setdefault(record["seq"], []).append((stream["rank"], record))
                else:
                    number += 1
                    by_number.setdefault(number, []).append(record)
    calls: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    for records in by_number.values():
        calls.extend((record, [r for r in records if r["op"] == record["op"]]) for record in records)
    for pairs in p2p.values():
        for _rank, record in pairs:
            other = "recv" if record["op"] == "send" else "send"
            calls.append((record, [record] + [r for k, r in pairs if k == record.get("peer") and r["op"] == other]))
    for record, peers in calls:
        if record.get("async_op"):
            continue
        last_entry = max(r["start_seconds"] for r in peers)
        wait = min(record["seconds"], max(0.0, last_entry - record["start_seconds"]))
        transfer = record["seconds"] - wait
        record["wait_seconds"] = round(wait, 6)
        record["transfer_seconds"] = round(transfer, 6)
        figures = bandwidth(record["op"], record["nbytes"], record["group_size"], transfer)
        if figures is None:
            continue
        record["algbw"], record["busbw"] = round(figures[0], 1), round(figures[1], 1)
        if peak_bytes_per_s:
            record["peak"] = peak_bytes_per_s
            record["peak_share"] = round(figures[1] / peak_bytes_per_s, 6)


def _link(backend: str) -> dict[str, Any] | None:
    """This rank's ``link_peaks`` row as a record, or None where the link is unknown (or loopback)."""
    import os

    from tracer.capture.link_peaks import link_for

    device_name = None
    if backend == "nccl":
        import torch

        device_name = torch.cuda.get_device_name() if torch.cuda.is_available() else None
    local, world = os.environ.get("LOCAL_WORLD_SIZE"), os.environ.get("WORLD_SIZE")
    link = link_for(backend, device_name=device_name, one_machine=local is None or local == world)
    return {"label": link.label, "bytes_per_s": link.bytes_per_s} if link else None


def _tensor_bytes(value: Any) -> int:
    try:
        return int(value.numel()) * int(value.element_size())
    except Exception:
        return 0


def _describe(op: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The payload tensor (the one whose size S the model uses), root/peer and the reduce op."""

    def arg(index: int, name: str) -> Any:
        return kwargs[name] if name in kwargs else (args[index] if len(args) > index else None)

    tensor, out_nbytes, root = None, None, None
    if op in ("all_reduce", "broadcast", "reduce", "send", "recv", "isend", "irecv"):
        tensor = arg(0, "tensor")
    elif op == "all_gather":
        tensor = arg(1, "tensor")
    elif op in ("all_gather_into_tensor", "all_gather_single"):
        tensor = arg(1, "input_tensor") if "input_tensor" in kwargs or len(args) > 1 else arg(1, "input")
    elif op in ("reduce_scatter", "reduce_scatter_tensor", "reduce_scatter_single"):
        tensor = arg(0, "output")
    elif op in ("gather", "scatter"):
        tensor = arg(0, "tensor")
    elif op == "all_to_all_single":
        tensor, out = arg(1, "input"), arg(0, "output")
        out_nbytes = _tensor_bytes(out)
    elif op == "all_to_all":
        inputs, outputs = arg(1, "input_tensor_list") or [], arg(0, "output_tensor_list") or []
        record: dict[str, Any] = {"nbytes": sum(map(_tensor_bytes, inputs)), "dtype": None, "shape": None}
        record["out_nbytes"] = sum(map(_tensor_bytes, outputs))
        return record
    if op == "broadcast":
        root = arg(1, "src")
    elif op in ("reduce", "gather"):
        root = arg(1 if op == "reduce" else 2, "dst")
    elif op == "scatter":
        root = arg(2, "src")
    elif op in ("send", "isend"):
        root = arg(1, "dst")
    elif op in ("recv", "irecv"):
        root = arg(1, "src")
    record = {
        "nbytes": _tensor_bytes(tensor) if tensor is not None else 0,
        "dtype": str(tensor.dtype).replace("torch.", "") if tensor is not None else None,
        "shape": list(tensor.shape) if tensor is not None else None,
    }
    if out_nbytes is not None:
        record["out_nbytes"] = out_nbytes
    if root is not None:
        record["root" if op not in ("send", "recv", "isend", "irecv") else "peer"] = int(root)
    reduce_op = kwargs.get("op")
    if reduce_op is None and op in ("all_reduce", "reduce_scatter", "reduce_scatter_tensor", "reduce_scatter_single"):
        reduce_op = (
            args[2 if op.startswith("reduce_scatter") else 1]
            if len(args) > (2 if op.startswith("reduce_scatter") else 1)
            else None
        )
    if op in ("all_reduce", "reduce", "reduce_scatter", "reduce_scatter_tensor", "reduce_scatter_single"):
        record["reduce_op"] = str(reduce_op).split(".")[-1].upper() if reduce_op is not None else "SUM"
    return record


class CollectiveLog:
    """Wraps torch.distributed while one rank is traced; ``records`` holds one dict per call.

    ``position()`` says where the lecture is (``(step index, path, line)``) when a collective starts;
    ``on_event(kind, detail)`` is told about joins and collectives (the worker's heartbeat uses it to
    say where a hung rank waits). ``t0`` is the wall-clock start of the launch, shared by its ranks,
    so ``start_seconds`` of different ranks line up on one timeline.
    """

    def __init__(
        self,
        position: Callable[[], tuple[int, str, int]],
        t0: float,
        on_event: Callable[[str, str | None], None] | None = None,
        port: int | None = None,
        modules: list[Any] | None = None,
        announce: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.records: list[dict[str, Any]] = []
        self.rank: int | None = None
        self.world_size: int | None = None
        self.backend: str | None = None
        self.link: dict[str, Any] | None = None  # the link_peaks row the collectives cross, when known
        self._position = position
        self._t0 = t0
        self._on_event = on_event or (lambda kind, detail: None)
        self._port = port
        self._modules = modules or []
        self._saved: list[tuple[Any, str, Any]] = []
        self._seq = 0
        self._number = 0  # collectives over the whole group so far (desync.py compares these)
        self._announce = announce  # told each call's sequence entry before it enters the backend

    # -- installing ---------------------------------------------------------------------------
    def install(self) -> None:
        import torch.distributed as dist

        originals = {}
        for name in OPS + LIFECYCLE:
            original = getattr(dist, name, None)
            if original is None:
                continue
            wrapper = self._lifecycle(name, original) if name in LIFECYCLE else self._wrap(name, original)
            originals[id(original)] = wrapper
            self._saved.append((dist, name, original))
            setattr(dist, name, wrapper)
        # `from torch.distributed import all_reduce` in a lecture binds the original at import time.
        for module in self._modules:
            namespace = getattr(module, "__dict__", {})
            for attr, value in list(namespace.items()):
                replacement = originals.get(id(value))
                if replacement is not None:
                    self._saved.append((module, attr, value))
                    setattr(module, attr, replacement)

    def uninstall(self) -> None:
        for owner, name, original in reversed(self._saved):
            setattr(owner, name, original)
        self._saved.clear()

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        """The wrappers in place while the block runs (the traced process enters it around its run)."""
        self.install()
        try:
            yield
        finally:
            self.uninstall()

    # -- wrappers ---------------------------------------------------------------------------------
    def _lifecycle(self, name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        log = self

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if name == "init_process_group":
                args, kwargs = log._rendezvous(args, dict(kwargs))
                log._on_event("joining", None)
                result = original(*args, **kwargs)
                import torch.distributed as dist

                log.rank, log.world_size = dist.get_rank(), dist.get_world_size()
                log.backend = str(dist.get_backend())
                log.link = _link(log.backend)
                log._on_event("joined", None)
                return result
            return original(*args, **kwargs)

        wrapper.__wrapped__ = original  # type: ignore[attr-defined]
        wrapper.__name__ = name
        return wrapper

    def _rendezvous(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """Give env:// and tcp://localhost rendezvous this launch's free port, so that two traced
        lectures (or two launches) running at once never meet on the same port."""
        import os
        import re

        if self._port is None:
            return args, kwargs
        method = kwargs.get("init_method", args[1] if len(args) > 1 else None)
        if method in (None, "env://") and "store" not in kwargs:
            os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
            if os.environ["MASTER_ADDR"] in ("127.0.0.1", "localhost"):
                os.environ["MASTER_PORT"] = str(self._port)
        elif isinstance(method, str):
            fixed = re.sub(r"^tcp://(127\.0\.0\.1|localhost):\d+", rf"tcp://\1:{self._port}", method)
            if fixed != method:
                if "init_method" in kwargs:
                    kwargs["init_method"] = fixed
                else:
                    args = (args[0], fixed, *args[2:])
        return args, kwargs

    def _wrap(self, op: str, original: Callable[..., Any]) -> Callable[..., Any]:
        log = self

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            step, path, line = log._position()
            try:
                call = log._describe_call(op, args, kwargs, path, line)
            except Exception:  # describing must never break the lecture
                call = None
            log._on_event("collective", op)
            # the entry time, as late as possible: other ranks' waits are measured against it
            started = time.time()
            clock = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                seconds = time.perf_counter() - clock
                log._on_event("collective_done", op)
                try:
                    if call is not None:
                        log._record(call, step, path, line, started, seconds, kwargs)
                except Exception as exc:  # recording must never break the lecture
                    print(f"chalktrace: warning: could not record {op}: {type(exc).__name__}: {exc}", file=sys.stderr)

        wrapper.__wrapped__ = original  # type: ignore[attr-defined]
        wrapper.__name__ = op
        return wrapper

    def _describe_call(self, op: str, args: tuple[Any, ...], kwargs: dict[str, Any], path: str, line: int) -> dict[str, Any]:
        """The call's record before it runs (sizes, bytes, group) and its sequence entry, announced."""
        import torch.distributed as dist

        group = kwargs.get("group")
        initialized = dist.is_initialized()
        n = dist.get_world_size(group) if initialized else 1
        rank = dist.get_rank(group) if initialized else 0
        backend = str(dist.get_backend(group)) if initialized else None
        record = _describe(op, args, kwargs)
        sent, received, algorithm = traffic(
            op, record["nbytes"], n, rank, root=record.get("root"), backend=backend, out_nbytes=record.pop("out_nbytes", None)
        )
        record.update(
            op=op, seq=self._seq, group_size=n, sent_nbytes=sent, received_nbytes=received, algorithm=algorithm, backend=backend
        )
        self._seq += 1
        whole_group = group is None or group is getattr(dist.GroupMember, "WORLD", None)
        number = None
        if whole_group and op not in ("send", "recv", "isend", "irecv"):
            self._number += 1
            number = self._number
        if self._announce is not None:
            entry = {
                "n": number,
                "seq": record["seq"],
                "op": op,
                "dtype": record["dtype"],
                "shape": record["shape"],
                "nbytes": record["nbytes"],
                "path": path,
                "line": line,
                "start_seconds": round(time.time() - self._t0, 6),
            }
            if "root" in record:
                entry["root"] = record["root"]
            self._announce(entry)
        return record

    def _record(
        self, record: dict[str, Any], step: int, path: str, line: int, started: float, seconds: float, kwargs: dict[str, Any]
    ) -> None:
        record = dict(record)
        record.update(
            seconds=round(seconds, 6),
            start_seconds=round(started - self._t0, 6),
            async_op=bool(kwargs.get("async_op")) or record["op"] in ("isend", "irecv"),
            step=step,
            path=path,
            line=line,
        )
        self.records.append(record)
