"""Whether a ``# @flops`` line may be run again to time it: the purity rule, syntactic then at run time.

``is_pure_expression_assignment`` reads the statement; ``names_are_inert`` checks, on the line's own
namespaces, that every name it reads is a tensor, a plain value or a safe module. ``compute.LineMeter``
replays only a line both allow. This module must not run or time anything.
"""

from __future__ import annotations

import ast
from typing import Any, Protocol, TypeGuard


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
