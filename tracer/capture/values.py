"""Turn live Python objects into JSON-safe ``Value`` records (see ``trace_format`` for the encodings).

This is where tensors become JSON: dtype, shape, strides, storage identity, a bounded preview of
the values and summary statistics. Every entry point here must never raise and never produce
something ``json.dumps`` rejects or that is not valid UTF-8: unknown objects fall back to their
(scrubbed) repr; anything that cannot be shown (a failing ``__repr__``, an int too long to print, a
str with lone surrogates) becomes an ``unrepresentable`` placeholder (class and reason) or is
repaired, and each such case is queued in ``problems`` for the recorder to warn about with file:line. Large tensors are previewed, never copied whole (CUDA tensors copy
only the preview to the host). This module must not decide *when* to record (the recorder does)
and must not write files.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import inspect
import math
import re
import sys
import types
import warnings
from typing import Any, Callable, Iterator

from tracer.capture.lecture_module import LECTURE_MODULE
from tracer.capture.memory import StorageRegistry
from tracer.contract.addresses import mask_addresses
from tracer.capture.numeric import (
    array_heatmap,
    array_stats,
    decimal_digits,
    shortest_array_floats,
    shortest_floats,
    tensor_heatmap,
    tensor_stats,
)

ELLIPSIS = "…"
_SURROGATES = re.compile("[\ud800-\udfff]")
# The method a class defines to choose what its objects show as: it returns any value, which is
# encoded (with the same bounds) in the object's place.
VIEW_METHOD = "__lecture_view__"
# Ints beyond this many decimal digits are shown by size: str() refuses past 4,300 digits, and a
# page has no use for a thousand-digit number anyway.
INT_DIGITS = 1000
_INT_BOUND = 10**INT_DIGITS


@dataclasses.dataclass
class Limits:
    tensor_elements: int = 400  # preview budget per tensor
    # Statistics are exact (every element, in float64 chunks) up to this many elements; past it they
    # come from an even sample of about stats_sample elements, and the record says so and its size.
    stats_elements: int = 1 << 22  # a 2048 x 2048 matrix
    stats_sample: int = 1 << 16
    container_items: int = 50
    depth: int = 4
    str_chars: int = 2000
    repr_chars: int = 500


class ValueEncoder:
    """Encodes values for one trace: shares the storage registry and the path scrubber."""

    def __init__(
        self,
        registry: StorageRegistry | None = None,
        limits: Limits | None = None,
        scrub: Callable[[str], str] | None = None,
        relpath: Callable[[str], str | None] | None = None,
        aborts: tuple[type[BaseException], ...] = (),
    ) -> None:
        self.registry = registry or StorageRegistry()
        # BaseExceptions that are the trace's own way of stopping (they pass through encoding); any
        # other exception raised while encoding (SystemExit from a __repr__ too) becomes a placeholder.
        self.aborts = aborts
        self.limits = limits or Limits()
        self._scrub_paths = scrub or (lambda s: s)
        self._relpath = relpath or (lambda p: None)
        self.problems: list[str] = []  # values that could not be shown as they are; the recorder warns

    # -- entry point ---------------------------------------------------------------------------
    def encode(self, value: Any) -> dict[str, Any]:
        kind = type(value)
        if kind is int:  # scalars first: the most common inspected values
            if -_INT_BOUND < value < _INT_BOUND:
                return {"type": "int", "value": value}
            return self._big_int(value)
        if kind is bool:
            return {"type": "bool", "value": value}
        if kind is float:
            return {"type": "float", "value": json_float(value)}
        try:
            with isolated():
                return self._encode(value, 0, set())
        except BaseException as exc:  # a value must never break the trace (nor end the lecture)
            if isinstance(exc, self.aborts):
                raise
            return self.placeholder(value, f"cannot encode: {describe_exception(exc)}")

    def placeholder(self, value: Any, reason: str, preview: str | None = None) -> dict[str, Any]:
        """The record for a value that cannot be shown as itself: its class and why (also warned)."""
        cls = safe_class_name(value)
        reason = self.scrub(reason)
        self.problems.append(f"{cls}: {reason}")
        return {"type": "unrepresentable", "class": cls, "reason": reason, "preview": preview}

    def scrub(self, text: str) -> str:
        """Remove this machine's absolute paths and the addresses in default reprs from text shown in a trace.

        Lone surrogates (not encodable as UTF-8) become U+FFFD, so every text written is valid UTF-8.
        """
        text = mask_addresses(self._scrub_paths(text))
        if not text.isascii():
            text, count = replace_surrogates(text)
            if count:
                self.problems.append(f"str: {count} lone surrogate(s) (not valid UTF-8) shown as U+FFFD")
        return text

    def _big_int(self, value: int) -> dict[str, Any]:
        digits = decimal_digits(value)
        return self.placeholder(
            value, f"int with {digits:,} digits (more than {INT_DIGITS:,})", preview=f"≈{'-' if value < 0 else ''}1e{digits - 1}"
        )

    # -- dispatch ------------------------------------------------------------------------------
    def _encode(self, value: Any, depth: int, seen: set[int]) -> dict[str, Any]:
        kind = type(value)
        if kind is int:
            return self.encode(value)
        if kind is float:
            return {"type": "float", "value": json_float(value)}
        if value is None:
            return {"type": "none"}
        if value is True or value is False:
            return {"type": "bool", "value": value}
        if isinstance(value, float):
            return {"type": "float", "value": json_float(value)}
        if isinstance(value, complex):
            return {"type": "complex", "real": json_float(value.real), "imag": json_float(value.imag)}
        if isinstance(value, str):
            return self._str(value)
        module = type(value).__module__ or ""
        if module.startswith("torch"):
            encoded = self._torch(value)
            if encoded is not None:
                return encoded
        elif (torch := sys.modules.get("torch")) is not None and isinstance(value, torch.Tensor):
            return self.tensor(value)  # a tensor subclass defined outside torch (the lecture's own)
        if module.startswith("numpy"):
            encoded = self._numpy(value)
            if encoded is not None:
                return encoded
        if module.startswith("sympy"):
            return self._sympy(value)
        view = inspect.getattr_static(type(value), VIEW_METHOD, None)
        if view is not None and not isinstance(value, type):
            return self._lecture_view(value, depth, seen)
        if isinstance(value, (list, tuple, set, frozenset, dict)) or (
            dataclasses.is_dataclass(value) and not isinstance(value, type)
        ):
            if id(value) in seen:
                return {"type": "cycle", "repr": f"<cycle: {_class_name(value)}>"}
            if depth >= self.limits.depth:
                return {"type": "object", "class": _class_name(value), "repr": self._repr(value)}
            seen = seen | {id(value)}
            if isinstance(value, dict):
                return self._dict(value, depth, seen)
            if isinstance(value, (list, tuple, set, frozenset)):
                return self._sequence(value, depth, seen)
            return {
                "type": "dataclass",
                "class": _class_name(value),
                "fields": {
                    f.name: self._encode(getattr(value, f.name, None), depth + 1, seen)
                    for f in dataclasses.fields(value)[: self.limits.container_items]
                },
            }
        if isinstance(value, int):  # int subclasses (IntEnum, ...)
            return self.encode(int(value))
        if callable(value) and hasattr(value, "__code__") or isinstance(value, type):
            return self._callable(value)
        return self._object(value)

    def _lecture_view(self, value: Any, depth: int, seen: set[int]) -> dict[str, Any]:
        """An object whose class defines ``__lecture_view__``: what that returns, encoded in its place
        (the same bounds as any value), with the object's class. A view that returns the object
        itself, or raises, falls back to the object's ordinary card."""
        if id(value) in seen or depth >= self.limits.depth:
            return self._object(value)
        try:
            shown = getattr(value, VIEW_METHOD)()
        except Exception as exc:
            self.problems.append(f"{safe_class_name(value)}: {VIEW_METHOD}() raised {describe_exception(exc)}")
            return self._object(value)
        if shown is value:
            return self._object(value)
        return {"type": "view", "class": _class_name(value), "value": self._encode(shown, depth + 1, seen | {id(value)})}

    def _str(self, value: str) -> dict[str, Any]:
        limit = self.limits.str_chars
        text = self.scrub(value)
        if len(text) > limit:
            return {"type": "str", "value": text[:limit], "truncated": True, "length": len(value)}
        return {"type": "str", "value": text}

    def _sequence(self, value: Any, depth: int, seen: set[int]) -> dict[str, Any]:
        items = list(value) if not isinstance(value, (set, frozenset)) else _sorted_if_possible(value)
        cap = self.limits.container_items
        return {
            "type": type(value).__name__ if type(value) in (list, tuple, set, frozenset) else _seq_kind(value),
            "items": [self._encode(v, depth + 1, seen) for v in items[:cap]],
            "length": len(items),
            "truncated": len(items) > cap,
        }

    def _dict(self, value: dict[Any, Any], depth: int, seen: set[int]) -> dict[str, Any]:
        cap = self.limits.container_items
        pairs = list(value.items())
        return {
            "type": "dict",
            "items": [[self._encode(k, depth + 1, seen), self._encode(v, depth + 1, seen)] for k, v in pairs[:cap]],
            "length": len(pairs),
            "truncated": len(pairs) > cap,
        }

    def _repr(self, value: Any) -> str | None:
        try:
            text = repr(value)
            if not isinstance(text, str):
                return None
        except Exception:
            return None
        text = self.scrub(text)
        limit = self.limits.repr_chars
        return text if len(text) <= limit else text[: limit - 1] + ELLIPSIS

    def _object(self, value: Any) -> dict[str, Any]:
        try:
            text = repr(value)
            if not isinstance(text, str):
                raise TypeError(f"__repr__ returned {type(text).__name__}")
        except Exception as exc:
            self.problems.append(f"{safe_class_name(value)}: repr() raised {describe_exception(exc)}")
            return {
                "type": "object",
                "class": safe_class_name(value),
                "repr": None,
                "repr_error": self.scrub(describe_exception(exc)),
            }
        text = self.scrub(text)
        limit = self.limits.repr_chars
        return {
            "type": "object",
            "class": _class_name(value),
            "repr": text if len(text) <= limit else text[: limit - 1] + ELLIPSIS,
        }

    def _callable(self, value: Any) -> dict[str, Any]:
        kind = "class" if isinstance(value, type) else "function"
        out: dict[str, Any] = {"type": kind, "name": getattr(value, "__qualname__", getattr(value, "__name__", "?"))}
        code = getattr(value, "__code__", None)
        if code is not None:
            path = self._relpath(code.co_filename)
            if path is not None:
                out.update(path=path, line=code.co_firstlineno)
        return out

    # -- numeric libraries ---------------------------------------------------------------------
    def _torch(self, value: Any) -> dict[str, Any] | None:
        import torch

        if isinstance(value, torch.Tensor):
            return self.tensor(value)
        if isinstance(value, torch.dtype):
            return {
                "type": "dtype",
                "value": dtype_name(value),
                "itemsize": value.itemsize,
                "is_floating_point": value.is_floating_point,
            }
        if isinstance(value, torch.device):
            return {"type": "device", "value": str(value)}
        if isinstance(value, torch.Size):
            return {"type": "size", "value": [int(d) for d in value]}
        if isinstance(value, torch.finfo):
            return {
                "type": "finfo",
                "dtype": dtype_name(value.dtype),
                "bits": value.bits,
                "eps": json_float(value.eps),
                "max": json_float(value.max),
                "min": json_float(value.min),
                "smallest_normal": json_float(value.smallest_normal),
                "resolution": json_float(value.resolution),
            }
        if isinstance(value, torch.iinfo):
            return {
                "type": "iinfo",
                "dtype": dtype_name(value.dtype),
                "bits": value.bits,
                "min": int(value.min),
                "max": int(value.max),
            }
        if isinstance(value, torch.nn.Module):
            return self._module(value)
        return None

    def _module(self, module: Any) -> dict[str, Any]:
        params = list(module.named_parameters())
        cap = self.limits.container_items
        return {
            "type": "module",
            "class": _class_name(module),
            "num_parameters": int(sum(p.numel() for _, p in params)),
            "parameters": [
                {"name": n, "shape": [int(d) for d in p.shape], "dtype": dtype_name(p.dtype)} for n, p in params[:cap]
            ],
            "parameters_truncated": len(params) > cap,
            "repr": self._repr(module),
        }

    def tensor(self, t: Any) -> dict[str, Any]:
        import torch

        if type(t) is not torch.Tensor and not isinstance(t, torch.nn.Parameter):
            # a subclass: its class name, and the card of the plain tensor it holds
            subclass = _class_name(t)
            record = self.tensor(t.as_subclass(torch.Tensor))
            return {**record, "subclass": subclass} if record.get("type") == "tensor" else record
        if t.is_meta:
            return self._meta_tensor(t)
        if t.is_nested:
            return self._nested_tensor(t)
        if t.layout != torch.strided:
            return self._sparse_tensor(t)
        storage_id, storage_nbytes = self.registry.storage_id(t)
        numel = t.numel()
        quantized = _quantization(t) if t.is_quantized else None
        preview, truncated = self._preview(t.int_repr() if t.is_quantized else t)
        record = {
            "type": "tensor",
            "dtype": dtype_name(t.dtype),
            "shape": [int(d) for d in t.shape],
            "stride": [int(s) for s in t.stride()],
            "storage_offset": int(t.storage_offset()),
            "contiguous": bool(t.is_contiguous()),
            "device": str(t.device),
            "element_size": int(t.element_size()),
            "numel": int(numel),
            "nbytes": int(numel * t.element_size()),
            "storage_id": storage_id,
            "storage_nbytes": storage_nbytes,
            "requires_grad": bool(t.requires_grad),
            "grad_fn": type(t.grad_fn).__name__ if t.grad_fn is not None else None,
            "values": preview,
            "truncated": truncated,
            "stats": self._stats(t) if (t.is_floating_point() and numel > 0) else None,
        }
        if truncated and t.dim() == 2 and not t.is_quantized and not t.is_complex():
            # the preview shows corners: the heatmap shows the whole tensor
            with torch.no_grad():
                record["heatmap"] = tensor_heatmap(t)
        if quantized is not None:
            record["quantized"] = quantized  # "values" are the stored integers
        return record

    def _meta_tensor(self, t: Any) -> dict[str, Any]:
        """A tensor with no data (device "meta"): what it would hold and take, never a value."""
        numel = t.numel()
        return {
            "type": "meta_tensor",
            "dtype": dtype_name(t.dtype),
            "shape": [int(d) for d in t.shape],
            "stride": [int(s) for s in t.stride()],
            "element_size": int(t.element_size()),
            "numel": int(numel),
            "nbytes": int(numel * t.element_size()),
            "requires_grad": bool(t.requires_grad),
        }

    def _nested_tensor(self, t: Any) -> dict[str, Any]:
        """A nested tensor: the shape of each component (the first ``container_items``)."""
        components = t.unbind()
        cap = self.limits.container_items
        return {
            "type": "nested_tensor",
            "dtype": dtype_name(t.dtype),
            "device": str(t.device),
            "length": len(components),
            "shapes": [[int(d) for d in c.shape] for c in components[:cap]],
            "truncated": len(components) > cap,
            "requires_grad": bool(t.requires_grad),
        }

    def _sparse_tensor(self, t: Any) -> dict[str, Any]:
        """A sparse tensor (COO, CSR, CSC, BSR, BSC): layout, nnz, and a preview of each index and
        value array it stores."""
        layout = str(t.layout).removeprefix("torch.")
        if layout == "sparse_coo":
            t = t.coalesce()
            parts = [("indices", t.indices()), ("values", t.values())]
        elif layout in ("sparse_csr", "sparse_bsr"):
            parts = [("crow_indices", t.crow_indices()), ("col_indices", t.col_indices()), ("values", t.values())]
        else:
            parts = [("ccol_indices", t.ccol_indices()), ("row_indices", t.row_indices()), ("values", t.values())]
        components = []
        for name, part in parts:
            part = part.int_repr() if part.is_quantized else part
            preview, truncated = self._preview(part)
            components.append(
                {
                    "name": name,
                    "shape": [int(d) for d in part.shape],
                    "dtype": dtype_name(part.dtype),
                    "values": preview,
                    "truncated": truncated,
                }
            )
        nbytes = sum(int(part.numel() * part.element_size()) for _name, part in parts)
        return {
            "type": "sparse_tensor",
            "layout": layout,
            "dtype": dtype_name(t.dtype),
            "shape": [int(d) for d in t.shape],
            "device": str(t.device),
            "nnz": int(t._nnz()),
            "nbytes": nbytes,
            "components": components,
        }

    def _preview(self, t: Any) -> tuple[Any, bool]:
        """Nested lists of the leading and trailing entries of each dimension, "…" where cut."""
        import torch

        with torch.no_grad():
            t = t.detach()
            if t.dim() == 0:
                return _to_json_list(_host_values(t)), False
            budget = self.limits.tensor_elements
            truncated = t.numel() > budget
            keep: list[tuple[int, int] | None] = []  # per dim: (head, tail) kept, None = all
            if truncated:
                edge = max(1, int(budget ** (1.0 / t.dim()) / 2))
                for size in t.shape:
                    keep.append((edge, edge) if size > 2 * edge else None)
                for dim, k in enumerate(keep):
                    if k is not None:
                        size = t.shape[dim]
                        index = torch.cat([torch.arange(k[0]), torch.arange(size - k[1], size)]).to(t.device)
                        t = t.index_select(dim, index)
            values = _to_json_list(_host_values(t))
            if truncated:
                values = _insert_ellipses(values, keep)
            return values, truncated

    def _stats(self, t: Any) -> dict[str, Any]:
        import torch

        with torch.no_grad():
            sample = t.detach()
            sampled = False
            if sample.numel() > self.limits.stats_elements:
                while sample.numel() > self.limits.stats_sample:
                    dim = max(range(sample.dim()), key=lambda d: sample.shape[d])
                    step = max(2, math.ceil(sample.numel() / self.limits.stats_sample))
                    sample = sample.narrow(dim, 0, sample.shape[dim])[(slice(None),) * dim + (slice(None, None, step),)]
                    sampled = True
            stats = tensor_stats(sample)
            if sample.dtype != torch.float64:
                # Computed in float64, written in the tensor's own precision (where it fits): min and
                # max are elements, and a mean is not shown with digits that the summation order
                # decides (a transposed view's mean is its original's).
                largest = torch.finfo(sample.dtype).max
                for part in (stats, stats.get("finite") or {}):
                    keys = [
                        k for k in ("min", "max", "mean", "std") if isinstance(part.get(k), float) and abs(part[k]) <= largest
                    ]
                    if keys:
                        rounded = shortest_floats(torch.tensor([part[k] for k in keys], dtype=sample.dtype))
                        part.update(zip(keys, rounded))
            if sampled:
                stats["sampled"] = True
                stats["sample_count"] = int(sample.numel())
            return stats

    def _numpy(self, value: Any) -> dict[str, Any] | None:
        import numpy as np

        if isinstance(value, np.ndarray):
            limit = self.limits.tensor_elements
            values = self._ndarray_preview(value)
            out = {
                "type": "ndarray",
                "dtype": str(value.dtype),
                "shape": [int(d) for d in value.shape],
                "values": values,
                "truncated": value.size > limit,
            }
            if value.dtype.kind == "f" and value.size and value.dtype.itemsize <= 8:
                # Every element up to stats_elements; past it an even sample, never a copy of the whole.
                step = 1 if value.size <= self.limits.stats_elements else math.ceil(value.size / self.limits.stats_sample)
                sample = value if step == 1 else np.asarray(value.flat[::step])
                out["stats"] = array_stats(sample)
                if value.dtype.itemsize < 8:  # written in the array's own precision, as for tensors
                    largest = float(np.finfo(value.dtype).max)
                    for part in (out["stats"], out["stats"].get("finite") or {}):
                        keys = [
                            k for k in ("min", "max", "mean", "std") if isinstance(part.get(k), float) and abs(part[k]) <= largest
                        ]
                        if keys:
                            rounded = shortest_array_floats(np.array([part[k] for k in keys], dtype=value.dtype))
                            part.update(zip(keys, rounded))
                if step > 1:
                    out["stats"]["sampled"] = True
                    out["stats"]["sample_count"] = int(sample.size)
            if value.size > limit and value.ndim == 2:
                out["heatmap"] = array_heatmap(value)
            return out
        if isinstance(value, np.generic):
            item = value.item()
            if isinstance(item, float):  # float16/float32: the shortest decimal in its own dtype
                item = json_float(shortest_array_floats(np.asarray(value))[0] if value.dtype.itemsize < 8 else item)
            elif isinstance(item, complex):
                item = [json_float(item.real), json_float(item.imag)]
            elif not isinstance(item, (int, bool, str)):
                item = str(item)
            return {"type": "numpy_scalar", "dtype": str(value.dtype), "value": item}
        if isinstance(value, np.dtype):
            return {"type": "dtype", "value": str(value), "itemsize": value.itemsize, "is_floating_point": value.kind == "f"}
        if isinstance(value, np.finfo):
            return {
                "type": "finfo",
                "dtype": str(value.dtype),
                "bits": value.bits,
                "eps": json_float(float(value.eps)),
                "max": json_float(float(value.max)),
                "min": json_float(float(value.min)),
                "smallest_normal": json_float(float(value.smallest_normal)),
                "resolution": json_float(float(value.resolution)),
            }
        return None

    def _ndarray_preview(self, value: Any) -> Any:
        """Nested lists of the leading and trailing entries of each dimension (like tensors), "…" where cut.

        Works on any strides (negative included) and any dtype: only the kept entries are copied.
        """
        import numpy as np

        budget = self.limits.tensor_elements
        keep: list[tuple[int, int] | None] = []
        part = value
        if value.ndim and value.size > budget:
            edge = max(1, int(budget ** (1.0 / value.ndim) / 2))
            for dim, size in enumerate(value.shape):
                if size > 2 * edge:
                    keep.append((edge, edge))
                    part = np.take(part, np.r_[0:edge, size - edge : size], axis=dim)
                else:
                    keep.append(None)
        kind = part.dtype.kind
        if kind == "c":
            listed = np.stack([part.real, part.imag], axis=-1).tolist()
        elif kind == "f" and part.dtype.itemsize < 8:
            # float16/float32: each element's shortest decimal in its own dtype, not float64's digits
            listed = np.reshape(np.array(shortest_array_floats(part), dtype=np.float64), part.shape).tolist()
        elif kind in "biuf":
            listed = part.tolist()
        else:  # objects, strings, dates: each entry as (bounded) text
            listed = np.vectorize(self._entry_text, otypes=[object])(part).tolist() if part.size else part.tolist()
        values = _to_json_list(listed)
        return _insert_ellipses(values, keep) if keep else values

    def _entry_text(self, entry: Any) -> Any:
        if entry is None or type(entry) in (bool, float):
            return entry
        if type(entry) is int:
            encoded = self.encode(entry)
            return encoded.get("value", encoded.get("preview"))
        if isinstance(entry, str):
            return self._str(entry)["value"]
        text = self._repr(entry)
        return text if text is not None else f"<{safe_class_name(entry)}>"

    def _sympy(self, value: Any) -> dict[str, Any]:
        try:
            import sympy

            latex = sympy.latex(value)
        except Exception:
            latex = None
        return {"type": "sympy", "class": _class_name(value), "repr": self._repr(value), "latex": latex}


# -- helpers -----------------------------------------------------------------------------------
def _quantization(t: Any) -> dict[str, Any]:
    """How a quantized tensor maps its stored integers to numbers: scheme, scale(s), zero point(s)."""
    import torch

    scheme = str(t.qscheme()).removeprefix("torch.")
    if t.qscheme() in (torch.per_tensor_affine, torch.per_tensor_symmetric):
        return {"qscheme": scheme, "scale": json_float(float(t.q_scale())), "zero_point": int(t.q_zero_point())}
    scales = t.q_per_channel_scales()[:16].tolist()
    return {
        "qscheme": scheme,
        "axis": int(t.q_per_channel_axis()),
        "scales": [json_float(s) for s in scales],
        "zero_points": [int(z) for z in t.q_per_channel_zero_points()[:16].tolist()],
    }


def json_float(x: float) -> float | str:
    if math.isfinite(x):
        return x
    return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")


def dtype_name(dtype: Any) -> str:
    return str(dtype).removeprefix("torch.")


def _class_name(value: Any) -> str:
    cls = type(value)
    return (
        cls.__qualname__ if cls.__module__ in ("builtins", "__main__", LECTURE_MODULE) else f"{cls.__module__}.{cls.__qualname__}"
    )


def safe_class_name(value: Any) -> str:
    """The class name, even for classes whose ``__module__``/``__qualname__`` are not plain strings."""
    try:
        name = _class_name(value)
        return name if isinstance(name, str) else type(value).__name__
    except Exception:
        return type(value).__name__


def describe_exception(exc: BaseException) -> str:
    """``Type: message`` for an exception whose ``__str__`` may itself raise."""
    try:
        message = str(exc)
    except Exception:
        message = "(its message cannot be shown)"
    text = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return text if len(text) <= 300 else text[:299] + ELLIPSIS


def replace_surrogates(text: str) -> tuple[str, int]:
    """``text`` with each lone surrogate replaced by U+FFFD, and how many there were."""
    if text.isascii():  # the common case, and far cheaper than encoding a whole trace
        return text, 0
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATES.subn("\ufffd", text)
    return text, 0


def _seq_kind(value: Any) -> str:
    for kind in (tuple, list, frozenset, set):
        if isinstance(value, kind):
            return kind.__name__
    return "list"


def _sorted_if_possible(values: Any) -> list[Any]:
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=repr)


def _host_values(t: Any) -> Any:
    """A Python nested list of ``t``'s values (complex as [re, im]); ``t`` is already small. Floats
    are each the shortest decimal that round-trips in ``t``'s own dtype (``numeric.shortest_floats``)."""
    import torch

    t = t.cpu()
    if t.is_complex():
        return torch.view_as_real(t.resolve_conj()).tolist()
    if t.dtype.is_floating_point:
        if t.dtype == torch.float64:
            return t.tolist()
        return torch.tensor(shortest_floats(t), dtype=torch.float64).reshape(t.shape).tolist()
    if t.dtype in (torch.uint16, torch.uint32, torch.uint64):
        return t.to(torch.int64).tolist()
    return t.tolist()


def _to_json_list(values: Any) -> Any:
    if isinstance(values, float):
        return json_float(values)
    if isinstance(values, complex):
        return [json_float(values.real), json_float(values.imag)]
    if isinstance(values, list):
        if values and isinstance(values[0], float) and all(isinstance(v, float) and math.isfinite(v) for v in values):
            return values
        return [_to_json_list(v) for v in values]
    return values


def _insert_ellipses(values: Any, keep: list[tuple[int, int] | None], dim: int = 0) -> Any:
    if dim >= len(keep) or not isinstance(values, list):
        return values
    inner = [_insert_ellipses(v, keep, dim + 1) for v in values]
    k = keep[dim]
    if k is None:
        return inner
    return inner[: k[0]] + [ELLIPSIS] + inner[k[0] :]


@contextlib.contextmanager
def isolated() -> Iterator[None]:
    """The encoder's own warnings filter and numeric error state: whatever the lecture set (even
    ``warnings.simplefilter("error")`` or ``np.seterr(all="raise")``), encoding neither raises nor
    prints a warning into the lecture's stderr, and the lecture's settings are back afterwards."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        numpy = sys.modules.get("numpy")
        if numpy is None:
            yield
            return
        with numpy.errstate(all="ignore"):
            yield


class StaticAttributeError(AttributeError):
    """A dotted ``@inspect`` that would have to run the lecture's own code (a property, a
    ``__getattr__``) to read the attribute: it is not run, and the card says so."""


_C_DESCRIPTORS = (types.GetSetDescriptorType, types.MemberDescriptorType)


def _instance_dict(obj: Any) -> dict[str, Any] | None:
    """The object's own ``__dict__``, read past any ``__getattribute__`` the lecture defined."""
    try:
        found = object.__getattribute__(obj, "__dict__")
    except AttributeError:
        return None
    return found if isinstance(found, dict) else None


def static_attribute(obj: Any, attr: str) -> Any:
    """``getattr(obj, attr)`` without running code the lecture wrote: an instance's own ``__dict__``,
    a class attribute, a bound method, or a descriptor implemented in C (``tensor.shape``,
    ``tensor.T``: no lecture code runs). A Python ``property`` or other Python-level descriptor, and
    an attribute only ``__getattr__`` provides, raise ``StaticAttributeError`` (an ``nn.Module``'s
    parameters, buffers and submodules are read from its own tables)."""
    try:
        found = inspect.getattr_static(obj, attr)
    except AttributeError:
        tables = _instance_dict(obj)
        for table in ("_parameters", "_buffers", "_modules"):  # torch.nn.Module keeps these out of __dict__
            entries = tables.get(table) if isinstance(tables, dict) else None
            if isinstance(entries, dict) and attr in entries:
                return entries[attr]
        if isinstance(tables, dict) and "_parameters" in tables:
            raise  # an nn.Module without it: its __getattr__ would say no too
        if inspect.getattr_static(type(obj), "__getattr__", None) is not None:
            raise StaticAttributeError(
                f"{safe_class_name(obj)}.{attr} could only come from __getattr__, which "
                "chalktrace does not run (it is the lecture's code)"
            ) from None
        raise
    instance_dict = _instance_dict(obj)
    if isinstance(instance_dict, dict) and attr in instance_dict:
        return instance_dict[attr]
    if isinstance(
        found,
        (
            types.FunctionType,
            classmethod,
            staticmethod,
            types.BuiltinFunctionType,
            types.MethodDescriptorType,
            types.WrapperDescriptorType,
        ),
    ) or isinstance(obj, types.ModuleType):
        return getattr(obj, attr)  # a method object: binding it runs no lecture code
    if isinstance(found, _C_DESCRIPTORS) or not hasattr(type(found), "__get__"):
        return getattr(obj, attr) if isinstance(found, _C_DESCRIPTORS) else found
    kind = "property" if isinstance(found, property) else f"{type(found).__name__} descriptor"
    raise StaticAttributeError(
        f"{safe_class_name(obj)}.{attr} is a {kind}: reading it runs the lecture's code, "
        "which chalktrace does not run again; bind it to a name and inspect that"
    )


def lookup(name: str, f_locals: dict[str, Any], f_globals: dict[str, Any]) -> Any:
    """Resolve a (dotted) name in a frame; raises NameError/AttributeError when it does not exist.
    Attributes are read with ``static_attribute``: inspecting never runs a property again."""
    head, *rest = name.split(".")
    if head in f_locals:
        obj = f_locals[head]
    elif head in f_globals:
        obj = f_globals[head]
    elif hasattr(sys.modules["builtins"], head):
        obj = getattr(sys.modules["builtins"], head)
    else:
        close = difflib.get_close_matches(head, [*f_locals, *f_globals], n=1)
        hint = f". Did you mean: {close[0]!r}?" if close else ""  # as Python's own NameError suggests
        raise NameError(f"name {head!r} is not defined{hint}")
    for attr in rest:
        obj = static_attribute(obj, attr)
    return obj
