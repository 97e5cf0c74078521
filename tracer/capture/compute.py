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
from typing import Any, Callable, Protocol, TypeGuard

from tracer.capture.peaks import peak_flop_per_s

REPLAY_BUDGET_SECONDS = 0.2  # stop replaying once this much time was spent ...
REPLAY_MAX_REPEATS = 100  # ... or this many replays ran, ...
REPLAY_MIN_REPEATS = 3  # ... but never fewer than this.
LONG_LINE_SECONDS = 1.0  # a line this slow is timed once: replays would add seconds per step
MAX_UNCOUNTED_OPS = 12  # ops a compute card names as run but not counted

# --- the purity rule --------------------------------------------------------------------------
# A replay re-evaluates the right-hand side in the frame's namespaces, so it must not change
# anything the lecture can observe. The rule is syntactic and errs on "not pure":
#  * the statement is ``name = expr``, ``a, b = expr`` or ``name: T = expr`` (plain names only;
#    augmented assignment is in-place for tensors), and expr does not read an assigned name
#    (after the line ran, that name holds the new value, so a replay would see other inputs);
#  * expr contains no lambda, comprehension, walrus, await or yield;
#  * every call in expr is either a method from SAFE_METHODS (side-effect-free tensor methods), or
#    a function reached through a module alias from SAFE_MODULES (``torch.matmul``, ``F.relu``,
#    ``einops.rearrange``) whose dotted path has no segment in UNSAFE_NAMES and no segment ending
#    in ``_`` (torch's in-place convention) and no capitalised segment after the alias (a class:
#    ``nn.Linear(...)`` initialises weights randomly). Bare-name calls (``f(x)``, ``model(x)``) are never
#    pure: the name may be a user function or a module with hooks or dropout;
#  * no call passes ``out=`` (writes into an existing tensor) or ``inplace=``.
#  * and, checked at run time on the line's own namespaces (``names_are_inert``), every name the
#    expression reads is a tensor, a plain number/str/None (or a tuple of them), a dtype/device,
#    or one of the SAFE_MODULES themselves: a user object (``counter.add(1)``, a property) or a
#    numpy array (``np.add(a, b, out)`` writes through a positional ``out``) is never replayed.
SAFE_MODULES = frozenset({"torch", "F", "nn", "functional", "einops", "math"})
_SAFE_MODULE_ROOTS = ("torch", "einops", "math")
UNSAFE_NAMES = frozenset(
    {
        # random number generation (advances the generator; a replay would change later draws)
        "random",
        "rand",
        "randn",
        "randint",
        "randperm",
        "rand_like",
        "randn_like",
        "randint_like",
        "normal",
        "bernoulli",
        "multinomial",
        "poisson",
        "uniform",
        "exponential",
        "geometric",
        "cauchy",
        "log_normal",
        "dropout",
        "dropout1d",
        "dropout2d",
        "dropout3d",
        "alpha_dropout",
        "feature_alpha_dropout",
        "rrelu",
        "gumbel_softmax",
        "manual_seed",
        "seed",
        "shuffle",
        "choice",
        "permutation",
        # global state, I/O, devices and compilation
        "save",
        "load",
        "cuda",
        "distributed",
        "backends",
        "compile",
        "set_default_dtype",
        "set_default_device",
        "set_grad_enabled",
        "set_printoptions",
        "use_deterministic_algorithms",
        "set_float32_matmul_precision",
        "autograd",
        "backward",
        "print",
        "synchronize",
        "empty_cache",
        "init",
    }
)
SAFE_METHODS = frozenset(
    {
        # linear algebra and shape
        "matmul",
        "mm",
        "bmm",
        "mv",
        "dot",
        "outer",
        "t",
        "transpose",
        "permute",
        "reshape",
        "view",
        "view_as",
        "flatten",
        "unflatten",
        "squeeze",
        "unsqueeze",
        "expand",
        "expand_as",
        "repeat",
        "contiguous",
        "chunk",
        "split",
        "narrow",
        "select",
        "index_select",
        "gather",
        "masked_fill",
        "masked_select",
        "where",
        "roll",
        "flip",
        "diagonal",
        "diag",
        "triu",
        "tril",
        "trace",
        # reductions and elementwise math
        "sum",
        "mean",
        "prod",
        "max",
        "min",
        "amax",
        "amin",
        "argmax",
        "argmin",
        "std",
        "var",
        "norm",
        "cumsum",
        "cumprod",
        "softmax",
        "log_softmax",
        "abs",
        "neg",
        "exp",
        "log",
        "log1p",
        "sqrt",
        "rsqrt",
        "sin",
        "cos",
        "tanh",
        "sigmoid",
        "relu",
        "pow",
        "square",
        "clamp",
        "sign",
        "floor",
        "ceil",
        "round",
        "reciprocal",
        "erf",
        "add",
        "sub",
        "mul",
        "div",
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "all",
        "any",
        "topk",
        "sort",
        "argsort",
        "unique",
        "nonzero",
        "bincount",
        # conversions and inspection
        "float",
        "half",
        "bfloat16",
        "double",
        "int",
        "long",
        "bool",
        "to",
        "type",
        "cpu",
        "clone",
        "detach",
        "item",
        "tolist",
        "numpy",
        "size",
        "numel",
        "dim",
        "element_size",
        "stride",
    }
)
_FORBIDDEN_NODES = (
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.NamedExpr,
    ast.Await,
    ast.Yield,
    ast.YieldFrom,
)
_FORBIDDEN_KEYWORDS = frozenset({"out", "inplace", "generator"})


def _target_names(target: ast.expr) -> list[str] | None:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        names: list[str] = []
        for element in target.elts:
            inner = _target_names(element)
            if inner is None:
                return None
            names.extend(inner)
        return names
    return None  # attribute, subscript or starred target: the assignment itself mutates something


def _dotted(node: ast.expr) -> list[str] | None:
    """``torch.nn.functional.relu`` -> ["torch", "nn", "functional", "relu"]; None if not a name chain."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return parts[::-1]


def _pure_call(call: ast.Call) -> bool:
    if any(k.arg in _FORBIDDEN_KEYWORDS for k in call.keywords):
        return False
    func = call.func
    if not isinstance(func, ast.Attribute):
        return False  # bare names may be user functions
    path = _dotted(func)
    if path is not None and path[0] in SAFE_MODULES:
        # Capitalised segments are classes: constructing one (``nn.Linear``) may draw random numbers.
        return not any(part in UNSAFE_NAMES or part.endswith("_") or part[:1].isupper() for part in path[1:])
    return func.attr in SAFE_METHODS


class ExpressionAssignment(Protocol):
    """What a pure expression assignment is: an ``ast.Assign``, or an ``ast.AnnAssign`` with a value."""

    value: ast.expr  # the right-hand side


def is_pure_expression_assignment(statement: ast.stmt | None) -> TypeGuard[ExpressionAssignment]:
    """Whether re-evaluating ``statement``'s right-hand side is safe and sees the same inputs."""
    if isinstance(statement, ast.Assign):
        targets, value = statement.targets, statement.value
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None and statement.simple:
        targets, value = [statement.target], statement.value
    else:
        return False
    assigned: set[str] = set()
    for target in targets:
        names = _target_names(target)
        if names is None:
            return False
        assigned.update(names)
    for node in ast.walk(value):
        if isinstance(node, _FORBIDDEN_NODES):
            return False
        if isinstance(node, ast.Name) and node.id in assigned:
            return False
        if isinstance(node, ast.Call) and not _pure_call(node):
            return False
    return True


_MISSING = object()


def _inert(value: Any) -> bool:
    """Whether reading or calling safe methods of ``value`` cannot run lecture code or change state."""
    import types

    if value is None or type(value) in (int, float, bool, complex, str):
        return True
    if type(value) is tuple:
        return all(_inert(v) for v in value)
    if isinstance(value, types.ModuleType):
        return value.__name__.split(".")[0] in _SAFE_MODULE_ROOTS
    module = type(value).__module__ or ""
    if not module.startswith("torch"):
        return False
    import torch

    if isinstance(value, torch.Tensor):
        # Tensor subclasses defined outside torch may override methods (and run lecture code).
        return type(value).__module__.startswith("torch")
    return isinstance(value, (torch.dtype, torch.device, torch.Size))


def names_are_inert(expression: ast.expr, frame_globals: dict[str, Any], frame_locals: Any) -> bool:
    """Whether every name ``expression`` reads is inert in the frame (see ``_inert``)."""
    import builtins

    for node in ast.walk(expression):
        if isinstance(node, ast.Name):
            value = frame_locals.get(node.id, _MISSING) if hasattr(frame_locals, "get") else _MISSING
            if value is _MISSING:
                value = frame_globals.get(node.id, _MISSING)
            if value is _MISSING:
                value = getattr(builtins, node.id, _MISSING)
            if value is _MISSING or not _inert(value):
                return False
    return True


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
