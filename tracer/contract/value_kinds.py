"""Every kind of recorded value, declared once: its name, its fields, and how the site treats it.

A ``Value`` (``trace_format.Value``, made by ``tracer.capture.values``) is a dict whose ``type`` is
one of the kinds below. Each row says which fields the kind requires (the JSON Schema's branch for
it is made from this: ``trace_validation.schema``), what it holds, and three flags the site reads:
``scalar`` (its card is one short text), ``one_line`` (its card is one line already: no summary
line) and ``tensor_label`` (tensor-like: the summary names it so and shows dtype and shape).
``family`` names the site module that draws it (``tracer/site/cards/kinds/FAMILY.py``: card view,
one-line summary, diff text, template macro). This module must not import anything but the
standard library: both sides read it.

In every kind, non-finite floats are the strings ``"nan"``, ``"inf"``, ``"-inf"``. Inside a tensor's
or array's ``values`` (nested lists, a bounded preview), an elided run of elements is the string
``"…"``, complex numbers are ``[re, im]``, and every float is the shortest decimal that reads back as
the same element in its own dtype (float32 ``1000.1`` is ``1000.1``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ValueKind:
    name: str  # the Value's "type"
    family: str  # the site module drawing it: tracer/site/cards/kinds/<family>.py
    fields: str  # what a Value of this kind holds (the format's documentation)
    required: tuple[str, ...] = ()  # fields the schema requires besides "type"
    scalar: bool = False  # the card is one short text (a number, a name, a repr)
    one_line: bool = False  # the card is one line already: the step viewer needs no summary line
    tensor_label: str | None = None  # tensor-like: what the summary line calls it


def _scalar(name: str, fields: str, required: tuple[str, ...] = ()) -> ValueKind:
    """A kind whose card is one short text, on one line."""
    return ValueKind(name, "scalars", fields, required, scalar=True, one_line=True)


_SEQUENCE = "``items`` (Values), ``length`` (full length), ``truncated`` (bool)"

VALUE_KINDS: tuple[ValueKind, ...] = (
    _scalar("int", "``value``", ("value",)),
    _scalar("bool", "``value``", ("value",)),
    _scalar("str", "``value``; may carry ``truncated``", ("value",)),
    _scalar("none", "nothing else"),
    _scalar("float", "``value``: a number or a non-finite string", ("value",)),
    _scalar("complex", "``real``, ``imag`` (floats)"),
    ValueKind("list", "containers", _SEQUENCE, ("items", "length")),
    ValueKind("tuple", "containers", _SEQUENCE, ("items", "length")),
    ValueKind("set", "containers", _SEQUENCE, ("items", "length")),
    ValueKind("frozenset", "containers", _SEQUENCE, ("items", "length")),
    ValueKind(
        "dict", "containers", "``items``: ``[key Value, value Value]`` pairs, ``length``, ``truncated``", ("items", "length")
    ),
    ValueKind("dataclass", "containers", "``class`` and ``fields`` ({name: Value})"),
    _scalar("cycle", "a back-reference to an enclosing container: ``repr``"),
    ValueKind(
        "ndarray",
        "tensors",
        "``dtype``, ``shape``, ``values``, ``truncated``, ``stats``; a 2-D array bigger than its preview also "
        "has ``heatmap`` (``trace_format.Heatmap``)",
        tensor_label="ndarray",
    ),
    _scalar("numpy_scalar", "``dtype``, ``value``"),
    ValueKind("sympy", "library", "``repr``, ``latex``", one_line=True),
    ValueKind("finfo", "library", "``dtype``, ``bits``, ``eps``, ``max``, ``min``, ``smallest_normal``, ``resolution``"),
    ValueKind("iinfo", "library", "``dtype``, ``bits``, ``min``, ``max``"),
    _scalar("dtype", "``value`` (e.g. ``float32``), ``itemsize``, ``is_floating_point``"),
    _scalar("device", "``value``"),
    _scalar("size", "``value`` (list of ints)"),
    ValueKind("module", "library", "``class``, ``num_parameters``, ``parameters`` ([{name, shape, dtype}]), ``repr``"),
    _scalar("function", "``name``; ``path``/``line`` when defined in a lecture file"),
    _scalar("class", "``name``; ``path``/``line`` when defined in a lecture file"),
    ValueKind(
        "tensor",
        "tensors",
        "see ``trace_format.TensorValue``: ``stats`` is a ``Stats``; a 2-D tensor bigger than its preview has "
        "``heatmap``; a quantized tensor has ``quantized`` and its ``values`` are the stored integers; a "
        "tensor subclass has ``subclass`` (its class) and the card of the plain tensor it holds",
        (
            "dtype",
            "shape",
            "stride",
            "storage_offset",
            "contiguous",
            "device",
            "element_size",
            "numel",
            "nbytes",
            "storage_id",
            "storage_nbytes",
            "requires_grad",
            "grad_fn",
            "values",
            "truncated",
        ),
        tensor_label="tensor",
    ),
    ValueKind("object", "objects", "``class`` and ``repr`` (``repr`` null and ``repr_error`` set when ``__repr__`` fails)"),
    ValueKind(
        "missing",
        "objects",
        "a name an ``@inspect`` asked for that did not exist; ``message`` says why",
        ("message",),
        one_line=True,
    ),
    ValueKind(
        "unrepresentable",
        "objects",
        "a value that cannot be shown as itself (an int of thousands of digits, an object whose encoding "
        "failed): ``class``, ``reason``, ``preview`` (short text or null); the run also warns, naming file:line",
    ),
    ValueKind(
        "meta_tensor",
        "tensors",
        "a tensor with no data (device meta): ``dtype``, ``shape``, ``stride``, ``element_size``, ``numel``, "
        "``nbytes`` (what it would take), ``requires_grad``",
        ("dtype", "shape", "stride", "numel", "nbytes"),
        tensor_label="tensor (meta)",
    ),
    ValueKind(
        "sparse_tensor",
        "tensors",
        "``layout`` (``sparse_coo``, ``sparse_csr``, ...), ``dtype``, ``shape``, ``device``, ``nnz``, ``nbytes`` "
        "(of the arrays it stores), ``components`` ([{name, shape, dtype, values, truncated}])",
        ("layout", "dtype", "shape", "nnz", "components"),
        tensor_label="sparse tensor",
    ),
    ValueKind(
        "nested_tensor",
        "tensors",
        "``dtype``, ``device``, ``length``, ``shapes`` (each component's), ``truncated``",
        ("dtype", "length", "shapes"),
        tensor_label="nested tensor",
    ),
    ValueKind(
        "series",
        "series",
        "a pandas Series: ``name`` (text or null), ``dtype``, ``length``, ``index`` and ``values`` (Values, "
        "the first ``container_items`` of each), ``truncated``",
        ("dtype", "length", "index", "values"),
    ),
    ValueKind(
        "view",
        "objects",
        "an object whose class defines ``__lecture_view__``: ``class`` (the object's) and ``value`` (the Value "
        "of what that method returned, encoded with the same bounds)",
        ("class", "value"),
    ),
)

KINDS: dict[str, ValueKind] = {kind.name: kind for kind in VALUE_KINDS}
SCALAR_TYPES: frozenset[str] = frozenset(kind.name for kind in VALUE_KINDS if kind.scalar)
ONE_LINE_TYPES: frozenset[str] = frozenset(kind.name for kind in VALUE_KINDS if kind.one_line)
TENSOR_LABELS: dict[str, str] = {kind.name: kind.tensor_label for kind in VALUE_KINDS if kind.tensor_label}
FAMILIES: tuple[str, ...] = tuple(dict.fromkeys(kind.family for kind in VALUE_KINDS))


def schema_branches() -> list[dict[str, object]]:
    """The JSON Schema branches that require each kind's fields (``trace_validation.schema`` adds them)."""
    return [
        {"if": {"properties": {"type": {"const": kind.name}}}, "then": {"required": list(kind.required)}}
        for kind in VALUE_KINDS
        if kind.required
    ]
