"""Compute accounting for a ``# @flops`` line: FLOPs, seconds, achieved FLOP/s and MFU.

The recorder makes one ``LineMeter`` per execution of an annotated line, calls ``start()`` just
before the line runs and ``stop()`` just after, and stores the returned ``Compute`` record on the
line's step. FLOPs come from torch's ``FlopCounterMode`` (which sees forward and backward aten ops,
also inside functions the line calls); a tiny dispatch mode beside it notes the dtype and device
of the FLOP-carrying ops. Time is per execution of the line: a line that is a pure expression
assignment (``is_pure_expression_assignment``) whose names are all tensors, numbers or torch
modules at run time (``names_are_inert``) is re-evaluated a few times with the counter off
and the median is reported (``timing: "replay"``); any other line is timed once, as traced
(``timing: "single"``), because running it again could repeat its side effects. This module must
not write the trace or decide which lines are measured: it only measures the line it is given.
"""

from __future__ import annotations

import ast
import functools
import statistics
import sys
import time
from typing import Any, Callable

from tracer.capture.peaks import peak_flop_per_s
from tracer.capture.replay_safety import is_pure_expression_assignment, names_are_inert

REPLAY_BUDGET_SECONDS = 0.2  # stop replaying once this much time was spent ...
REPLAY_MAX_REPEATS = 100  # ... or this many replays ran, ...
REPLAY_MIN_REPEATS = 3  # ... but never fewer than this.
LONG_LINE_SECONDS = 1.0  # a line this slow is timed once: replays would add seconds per step
MAX_UNCOUNTED_OPS = 12  # ops a compute card names as run but not counted


# --- measuring --------------------------------------------------------------------------------
@functools.cache
def _op_probe_class() -> Any:
    """A TorchDispatchMode that credits each FLOP-counted op's FLOPs to its (dtype, device).

    Built on first use (and kept by the cache: one class per process) so that importing this
    module does not import torch.
    """
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils.flop_counter import flop_registry

    class OpProbe(TorchDispatchMode):
        def __init__(self) -> None:
            super().__init__()
            self.flops_by_kind: dict[tuple[str, str], int] = {}
            # ops that computed something PyTorch's counter does not count (views and metadata aside),
            # in the order they first ran: the card says the line's FLOPs leave them out
            self.uncounted: dict[str, None] = {}

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            out = func(*args, **kwargs)
            count = flop_registry.get(func._overloadpacket)
            if count is None:
                if not func.is_view and func._overloadpacket not in _metadata_ops():
                    self.uncounted.setdefault(str(func._overloadpacket), None)
            else:
                tensors = [a for a in args if isinstance(a, torch.Tensor)]
                if tensors:
                    # The first operand with a matrix shape (addmm's bias comes first).
                    operand = next((t for t in tensors if t.dim() >= 2), tensors[0])
                    key = (str(operand.dtype).removeprefix("torch."), operand.device.type)
                    flops = int(count(*args, **kwargs, out_val=out))
                    self.flops_by_kind[key] = self.flops_by_kind.get(key, 0) + flops
            return out

    return OpProbe


@functools.cache
def _metadata_ops() -> frozenset[Any]:
    """Ops that move or describe data without arithmetic (not worth naming as "not counted")."""
    import torch

    aten = torch.ops.aten
    return frozenset(
        {
            aten.detach,
            aten._to_copy,
            aten.clone,
            aten.copy_,
            aten.empty_like,
            aten.lift_fresh,
            aten.zeros_like,
            aten.ones_like,
            aten.new_empty,
            aten.new_zeros,
            aten.empty,
            aten.zeros,
            aten.ones,
            aten.full,
            aten._local_scalar_dense,
            aten.contiguous,
            aten._unsafe_view,
        }
    )


@functools.cache
def _warm_up() -> None:
    """Pay, once per process (the cache remembers it) and before any timer runs, for the first op
    under the dispatch modes.

    That first op imports a large part of torch's tracing machinery (about two seconds here),
    which would otherwise be billed to the first ``@flops`` line of a lecture.
    """
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    with FlopCounterMode(display=False), _op_probe_class()():
        torch.ones(2, 2) @ torch.ones(2, 2)


def _cuda_synchronize() -> None:
    torch = sys.modules.get("torch")  # a lecture without torch has no GPU work to wait for
    if torch is not None and torch.cuda.is_initialized():  # only then can the line have queued GPU work
        torch.cuda.synchronize()


class LineMeter:
    """Measures one execution of one ``# @flops`` line; see the module docstring."""

    def __init__(
        self,
        statement: ast.stmt | None,
        *,
        timer: Callable[[], float] = time.perf_counter,
        device_name: str | None = None,
        synchronize: Callable[[], None] | None = None,
    ) -> None:
        self.statement = statement
        self.timer = timer
        self.device_name = device_name  # overrides the device the ops ran on (tests fake an H100)
        self.synchronize = synchronize or _cuda_synchronize
        self._counter: Any = None
        self._probe: Any = None
        self._started = 0.0

    def start(self) -> None:
        if sys.modules.get("torch") is not None:
            from torch.utils.flop_counter import FlopCounterMode

            _warm_up()
            self._counter = FlopCounterMode(display=False)
            self._probe = _op_probe_class()()
            self._counter.__enter__()
            self._probe.__enter__()
        # else: PyTorch's counter would count none of this lecture's work (it never imports torch), and
        # importing torch here would cost a torch-free install its lecture; the line is only timed.
        self.synchronize()
        self._started = self.timer()

    def stop(self, frame_globals: dict[str, Any], frame_locals: Any) -> dict[str, Any]:
        self.synchronize()
        seconds = self.timer() - self._started
        counted = self._counter is not None
        counts: dict[Any, int] = {}
        kinds: dict[Any, int] = {}
        uncounted: list[str] = []
        if counted:
            # Dispatch modes form a stack: leave them in the reverse order of entering.
            self._probe.__exit__(None, None, None)
            self._counter.__exit__(None, None, None)
            counts = self._counter.get_flop_counts().get("Global", {})
            kinds = self._probe.flops_by_kind
            uncounted = list(self._probe.uncounted)[:MAX_UNCOUNTED_OPS]
            self._counter = self._probe = None
        by_op = {str(op): int(n) for op, n in counts.items() if n}
        flops = sum(by_op.values())
        dtype, device_type = max(kinds, key=kinds.__getitem__) if kinds else (None, None)

        timing, repeats = "single", 1
        if (
            seconds < LONG_LINE_SECONDS
            and is_pure_expression_assignment(self.statement)
            and names_are_inert(self.statement.value, frame_globals, frame_locals)
        ):
            replayed = self._replay(frame_globals, frame_locals)
            if replayed is not None:
                seconds, repeats = replayed
                timing = "replay"

        device_name = self.device_name
        if device_name is None and device_type == "cuda":
            import torch

            device_name = torch.cuda.get_device_name()
        if flops:
            peak, peak_note = peak_flop_per_s(device_name, dtype)
        elif not counted:
            peak, peak_note = (
                None,
                "no FLOPs counted: PyTorch's counter counts PyTorch ops, and this lecture does not import torch",
            )
        else:
            peak, peak_note = (
                None,
                "no FLOPs counted: PyTorch's counter counts matrix products and convolutions, not elementwise ops",
            )
        flop_per_s = flops / seconds if seconds > 0 else None
        mfu = flop_per_s / peak if flop_per_s is not None and peak else None
        if peak is not None and mfu is None:
            peak_note = "the line took no measurable time"
        return {
            "flops": flops,
            "seconds": seconds,
            "flop_per_s": flop_per_s,
            "by_op": by_op,
            "peak_flop_per_s": peak,
            "mfu": mfu,
            "dtype": dtype,
            "device_name": device_name,
            "timing": timing,
            "repeats": repeats,
            "peak_note": peak_note,
            **({"uncounted_ops": uncounted} if counted else {}),
        }

    def cancel(self) -> None:
        """Leave the counting modes without a record (the recorder stopped mid-line)."""
        if self._counter is not None:
            self._probe.__exit__(None, None, None)
            self._counter.__exit__(None, None, None)
            self._counter = self._probe = None

    def _replay(self, frame_globals: dict[str, Any], frame_locals: Any) -> tuple[float, int] | None:
        """Median seconds of re-evaluating the right-hand side, and how many runs; None if it failed."""
        statement = self.statement
        assert isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None
        expression = ast.Expression(body=statement.value)
        try:
            code = compile(expression, "<@flops replay>", "eval")
        except (SyntaxError, ValueError):
            return None
        durations: list[float] = []
        spent = 0.0
        try:
            while len(durations) < REPLAY_MIN_REPEATS or (spent < REPLAY_BUDGET_SECONDS and len(durations) < REPLAY_MAX_REPEATS):
                self.synchronize()
                began = self.timer()
                eval(code, frame_globals, frame_locals)  # result dropped at once: one extra output alive
                self.synchronize()
                duration = self.timer() - began
                durations.append(duration)
                spent += duration
        except Exception:
            return None  # the line's own run succeeded; keep its single timing
        return statistics.median(durations), len(durations)
