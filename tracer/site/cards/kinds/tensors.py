"""Tensor-like values: tensors (with their storage drawing), meta, sparse and nested tensors, and
NumPy arrays.

A tensor's card shows its anatomy (shape, stride, storage), its values as ruled grids with
heatmaps and statistics (``value_grids``); the others show what they hold. Nested in a container,
each is one line of text. Two tensors or arrays are compared field by field, then at their largest
difference in the preview. This module must not render markup (``cards.html.j2`` does).
"""

from __future__ import annotations

import math
from typing import Any, Iterator

from tracer.contract.trace_settings import DEFAULT_PREVIEW_ROWS
from tracer.contract.value_kinds import TENSOR_LABELS
from tracer.site.cards.kinds.scalars import scalar_view
from tracer.site.cards.kinds.short_text import CompareFn, Differences, ShowFn, SummaryFn, ViewFn, cut, whole_difference
from tracer.site.cards.stride_diagram import stride_diagram
from tracer.site.cards.units import format_number, human_bytes, human_count, shape_text
from tracer.site.cards.value_grids import grid_view, stats_view, values_tables, with_grids

LINE_MACRO = "array_line_body"  # a tensor's or array's dtype and shape, where a card is one line
PREVIEW_ELEMENTS = 4  # a tensor's short value: its first elements, in order
# the fields two tensors (or arrays) are compared on before their values
COMPARED_FIELDS = ("dtype", "shape", "stride", "storage_offset", "device", "requires_grad", "grad_fn")


def zero_d_text(value: dict[str, Any]) -> str | None:
    """The one value of a 0-d tensor or array, exactly as recorded (its card is then one line: no
    anatomy, grid or statistics of a single element); None for any other shape."""
    if value.get("shape") != [] or value.get("values") is None:
        return None
    element = value["values"]
    if isinstance(element, list):  # a complex number: [re, im]
        return f"{element[0]}{'+' if not str(element[1]).startswith('-') else ''}{element[1]}j"
    return "True" if element is True else "False" if element is False else str(element)


def tensor_view(
    value: dict[str, Any], *, dims: list[tuple[str, str]] | None = None, shares: list[str] | None = None
) -> dict[str, Any]:
    """Plain data for a tensor anatomy card (a 0-d tensor's: one line, ``zero_d``)."""
    element_size = value["element_size"] or 1
    storage_numel = value["storage_nbytes"] // element_size
    diagram = stride_diagram(
        value["shape"], value["stride"], value["storage_offset"], storage_numel, [name for name, _ in dims] if dims else None
    )
    return {
        "kind": "tensor",
        "zero_d": zero_d_text(value),
        "dtype": value["dtype"],
        "shape": shape_text(value["shape"]),
        "device": value["device"],
        "stride": shape_text(value["stride"]),
        "storage_offset": value["storage_offset"],
        "contiguous": value["contiguous"],
        "element_size": f"{value['element_size']} B",
        "numel": human_count(value["numel"]),
        "nbytes": human_bytes(value["nbytes"]),
        "storage_nbytes": human_bytes(value["storage_nbytes"]),
        "storage_id": value["storage_id"],
        "requires_grad": value["requires_grad"],
        "grad_fn": value.get("grad_fn"),
        "tables": with_grids(
            values_tables(value["values"], value["shape"]),
            value["shape"],
            value.get("heatmap"),
            not value["dtype"].startswith(("float", "bfloat", "complex")),
            value.get("rows", DEFAULT_PREVIEW_ROWS),
        )
        if value["values"] is not None
        else [],
        "truncated": value["truncated"],
        "stats": stats_view(value.get("stats")),
        "dims": dims or [],
        "shares": shares or [],
        "diagram": diagram,
        "diagram_ref": None,  # id of a page-level drawing to <use> instead of drawing it here
        "diagram_html": None,  # its markup, when the renderer has drawn an equal one already (HtmlRenderer.value)
        "index_grid": grid_view(diagram["grid"]) if diagram and diagram["grid"] else None,
        "subclass": value.get("subclass"),
        "quantized": quantized_rows(value.get("quantized")),
        "macro": LINE_MACRO,
        "card": "tensor_card",
    }


def quantized_rows(quantized: dict[str, Any] | None) -> list[tuple[str, str]]:
    """A quantized tensor's mapping from stored integers to numbers, as anatomy rows."""
    if not quantized:
        return []
    rows = [("qscheme", str(quantized.get("qscheme")))]
    if "scale" in quantized:
        rows += [("scale", format_number(quantized["scale"])), ("zero point", str(quantized.get("zero_point")))]
    else:
        rows += [
            ("axis", str(quantized.get("axis"))),
            ("scales", ", ".join(format_number(s) for s in quantized.get("scales", []))),
            ("zero points", ", ".join(str(z) for z in quantized.get("zero_points", []))),
        ]
    return rows


def other_tensor_view(value: dict[str, Any]) -> dict[str, Any]:
    """Plain data for the tensor kinds that have no strided storage of their own: meta (no data),
    sparse (its index and value arrays) and nested (a shape per component)."""
    kind = value["type"]
    view: dict[str, Any] = {
        "kind": kind,
        "dtype": value.get("dtype"),
        "device": value.get("device", "meta"),
        "macro": LINE_MACRO,
        "card": "other_tensor_card",
    }
    if kind == "meta_tensor":
        view.update(
            shape=shape_text(value["shape"]),
            stride=shape_text(value["stride"]),
            numel=human_count(value["numel"]),
            nbytes=human_bytes(value["nbytes"]),
        )
    elif kind == "sparse_tensor":
        view.update(
            shape=shape_text(value["shape"]),
            layout=value.get("layout"),
            nnz=human_count(value["nnz"]),
            nbytes=human_bytes(value.get("nbytes", 0)),
            components=[
                {
                    "name": c.get("name"),
                    "shape": shape_text(c.get("shape", [])),
                    "dtype": c.get("dtype"),
                    "tables": with_grids(values_tables(c.get("values"), c.get("shape", []))),
                    "truncated": c.get("truncated", False),
                }
                for c in value.get("components", [])
            ],
        )
    else:
        view.update(
            shape=None,
            length=value.get("length", 0),
            shapes=[shape_text(s) for s in value.get("shapes", [])],
            truncated=value.get("truncated", False),
        )
    return view


def diagram_key(value: dict[str, Any]) -> tuple[Any, ...] | None:
    """What a tensor's storage drawing depends on (equal keys draw the same SVG), or None."""
    if value.get("type") != "tensor":
        return None
    storage_numel = value["storage_nbytes"] // (value["element_size"] or 1)
    return (tuple(value["shape"]), tuple(value["stride"]), value["storage_offset"], storage_numel)


def ndarray_view(value: dict[str, Any]) -> dict[str, Any]:
    """Plain data for a NumPy array's card: its values as grids, and its statistics."""
    shape = value.get("shape", [])
    return {
        "kind": "ndarray",
        "zero_d": zero_d_text(value),
        "dtype": value.get("dtype"),
        "shape": shape_text(shape),
        "tables": with_grids(
            values_tables(value.get("values"), shape),
            shape,
            value.get("heatmap"),
            str(value.get("dtype", "")).startswith(("int", "uint", "bool")),
            value.get("rows", DEFAULT_PREVIEW_ROWS),
        ),
        "truncated": value.get("truncated", False),
        "stats": stats_view(value.get("stats")),
        "macro": LINE_MACRO,
        "card": "ndarray_card",
    }


def view(value: dict[str, Any], depth: int, value_view: ViewFn) -> dict[str, Any]:
    kind = value["type"]
    if kind == "ndarray":
        return ndarray_view(value)
    if kind == "tensor":
        if depth > 0:
            return scalar_view("tensor", f"tensor({value['dtype']}, shape={shape_text(value['shape'])}, {value['device']})")
        return tensor_view(value)
    if depth > 0:
        shape = shape_text(value["shape"]) if "shape" in value else f"{value.get('length', 0)} components"
        return scalar_view(kind, f"{kind.replace('_', ' ')}({value.get('dtype')}, {shape})")
    return other_tensor_view(value)


def first_elements(values: Any, ndim: int, limit: int) -> tuple[list[Any], bool]:
    """The preview's first ``limit`` elements in row-major order (an element sits ``ndim`` lists
    deep; a complex one is a [re, im] pair there), and whether any were left out."""
    if ndim == 1 and isinstance(values, list):  # a vector: no walk needed
        return values[:limit], len(values) > limit
    out: list[Any] = []
    more = False

    def walk(block: Any, depth: int) -> None:
        nonlocal more
        if len(out) >= limit:
            more = True
        elif depth < ndim and isinstance(block, list):
            for item in block:
                walk(item, depth + 1)
        else:
            out.append(block)

    walk(values, 0)
    return out, more


def tensor_text(value: dict[str, Any]) -> str:
    values, numel = value.get("values"), value.get("numel")
    if values is None:
        return ""
    if numel == 0:
        return "empty"
    if not isinstance(values, list):  # a 0-d tensor: its one element
        return format_number(values)
    elements, more = first_elements(values, len(value.get("shape") or []), PREVIEW_ELEMENTS)
    more = more or (isinstance(numel, int) and numel > len(elements))
    if "…" in elements:  # the preview skips elements here: what comes after is not next in order
        elements, more = elements[: elements.index("…")], True
    texts = [format_number(v) for v in elements]
    return "[" + ", ".join(texts) + (", …" if more else "") + "]"


def summary(value: dict[str, Any], summary_view: SummaryFn) -> dict[str, Any] | None:
    kind = value["type"]
    label = TENSOR_LABELS[kind]
    if value.get("subclass"):
        label = f"{value['subclass']} (tensor subclass)"
    shape = value.get("shape")
    return {
        "kind": label,
        "dtype": value.get("dtype"),
        "shape": shape_text(shape)
        if isinstance(shape, list)
        else (f"{value.get('length', 0)} components" if kind == "nested_tensor" else None),
        "text": cut(tensor_text(value)) if kind in ("tensor", "ndarray") else "",
    }


def diff_text(value: dict[str, Any], show: ShowFn) -> str:
    kind = value["type"]
    if kind in ("tensor", "ndarray"):
        return f"{kind} {value.get('dtype')} {show(value.get('shape'))}"
    return str(kind)


def _flat(values: Any, index: tuple[int, ...] = ()) -> Iterator[tuple[tuple[int, ...], Any]]:
    if isinstance(values, list):  # complex elements ([re, im]) are compared part by part
        for i, v in enumerate(values):
            yield from _flat(v, index + (i,))
    else:
        yield index, values


def largest_difference(old: Any, new: Any) -> tuple[tuple[int, ...], Any, Any, int] | None:
    """(index, old element, new element, how many elements differ) at the largest numeric difference
    between two previews of one shape; a non-numeric difference (``"nan"``) counts as the largest."""
    worst: tuple[float, tuple[int, ...], Any, Any] | None = None
    count = 0
    for (index, a), (_, b) in zip(_flat(old), _flat(new)):
        if a == b:
            continue
        count += 1
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
            gap = abs(float(a) - float(b))
        else:
            gap = math.inf
        if worst is None or gap > worst[0]:
            worst = (gap, index, a, b)
    if worst is None:
        return None
    return worst[1], worst[2], worst[3], count


def _preview_shape(values: Any) -> list[int]:
    shape = []
    while isinstance(values, list):
        shape.append(len(values))
        values = values[0] if values else None
    return shape


def compare(name: str, a: dict[str, Any], b: dict[str, Any], out: Differences, recurse: CompareFn, show: ShowFn) -> None:
    if a["type"] not in ("tensor", "ndarray"):
        whole_difference(name, a, b, out)
        return
    for field in COMPARED_FIELDS:
        if a.get(field) != b.get(field):
            out.append((f"{name} {field}", a.get(field), b.get(field), ""))
    if a.get("values") != b.get("values"):
        if _preview_shape(a.get("values")) == _preview_shape(b.get("values")):
            found = largest_difference(a.get("values"), b.get("values"))
            if found is not None:
                index, x, y, count = found
                where = f"{name}[{', '.join(map(str, index))}]" if index else name
                notes = [f"the largest of {count:,} differences in the preview"] if count > 1 else []
                if a.get("truncated") or b.get("truncated"):
                    notes.append("index within the cut preview")
                out.append((where, x, y, "; ".join(notes)))
        else:
            out.append((f"{name} values", a.get("values"), b.get("values"), ""))
    elif a.get("stats") != b.get("stats"):  # differences beyond the preview
        for stat in ("min", "max", "mean", "std", "nan_count", "inf_count"):
            x, y = (a.get("stats") or {}).get(stat), (b.get("stats") or {}).get(stat)
            if x != y:
                out.append((f"{name} {stat}", x, y, "beyond the preview"))
