"""Turn live Python objects into JSON-safe ``Value`` records (see ``contract/value_kinds.py`` for the encodings).

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

import dataclasses
import inspect
import sys
import types
from typing import Any, Callable

from tracer.capture.encoder_core import (
    ELLIPSIS,
    Encoding,
    Limits,
    class_name,
    describe_exception,
    isolated,
    json_float,
    replace_surrogates,
    safe_class_name,
)
from tracer.capture.memory import StorageRegistry
from tracer.capture.shortest_floats import decimal_digits
from tracer.capture.numpy_values import encode_numpy
from tracer.capture.torch_values import encode_tensor, encode_torch
from tracer.contract.addresses import mask_addresses

# The method a class defines to choose what its objects show as: it returns any value, which is
# encoded (with the same bounds) in the object's place.
VIEW_METHOD = "__lecture_view__"
# edtrace's way for a class to choose its view: an ``asdict()`` method returning a dict (used when the
# class has no VIEW_METHOD and is not a dataclass, whose fields are shown anyway).
EDTRACE_VIEW_METHOD = "asdict"
# Ints beyond this many decimal digits are shown by size: str() refuses past 4,300 digits, and a
# page has no use for a thousand-digit number anyway.
INT_DIGITS = 1000
_INT_BOUND = 10**INT_DIGITS


def encode_sympy(encoder: Encoding, value: Any) -> dict[str, Any]:
    """A SymPy expression: its repr and its LaTeX (drawn as MathML by the site)."""
    try:
        import sympy

        latex = sympy.latex(value)
    except Exception:
        latex = None
    return {"type": "sympy", "class": class_name(value), "repr": encoder.repr_text(value), "latex": latex}


def encode_pandas(encoder: Encoding, value: Any) -> dict[str, Any] | None:
    """A pandas Series: its first index labels and values, each a Value; None for other pandas objects."""
    if type(value).__name__ != "Series" or not hasattr(value, "iloc"):
        return None
    cap = encoder.limits.container_items
    head = value.iloc[:cap]
    return {
        "type": "series",
        "name": None if value.name is None else encoder.str_value(str(value.name))["value"],
        "dtype": str(value.dtype),
        "length": len(value),
        "index": [encoder.encode(label) for label in head.index.tolist()],
        "values": [encoder.encode(item) for item in head.tolist()],
        "truncated": len(value) > cap,
    }


# The encoder table: an object whose class's module starts with a prefix goes to that library's
# encoder first (the first prefix that matches); None from it means a class the encoder does not
# know, which is then encoded as any object is.
LIBRARY_ENCODERS: tuple[tuple[str, Callable[[Encoding, Any], dict[str, Any] | None]], ...] = (
    ("torch", encode_torch),
    ("numpy", encode_numpy),
    ("sympy", encode_sympy),
    ("pandas", encode_pandas),
)


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
            return self.str_value(value)
        module = type(value).__module__ or ""
        for prefix, library_encoder in LIBRARY_ENCODERS:
            if module.startswith(prefix):
                encoded = library_encoder(self, value)
                if encoded is not None:
                    return encoded
                break
        if not module.startswith("torch") and (torch := sys.modules.get("torch")) is not None and isinstance(value, torch.Tensor):
            return encode_tensor(self, value)  # a tensor subclass defined outside torch (the lecture's own)
        if not isinstance(value, type):
            if inspect.getattr_static(type(value), VIEW_METHOD, None) is not None:
                return self._lecture_view(value, depth, seen, VIEW_METHOD)
            edtrace_view = inspect.getattr_static(type(value), EDTRACE_VIEW_METHOD, None)
            if isinstance(edtrace_view, types.FunctionType) and not dataclasses.is_dataclass(value):
                return self._lecture_view(value, depth, seen, EDTRACE_VIEW_METHOD)
        if isinstance(value, (list, tuple, set, frozenset, dict)) or (
            dataclasses.is_dataclass(value) and not isinstance(value, type)
        ):
            if id(value) in seen:
                return {"type": "cycle", "repr": f"<cycle: {class_name(value)}>"}
            if depth >= self.limits.depth:
                return {"type": "object", "class": class_name(value), "repr": self.repr_text(value)}
            seen = seen | {id(value)}
            if isinstance(value, dict):
                return self._dict(value, depth, seen)
            if isinstance(value, (list, tuple, set, frozenset)):
                return self._sequence(value, depth, seen)
            return {
                "type": "dataclass",
                "class": class_name(value),
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

    def _lecture_view(self, value: Any, depth: int, seen: set[int], method: str) -> dict[str, Any]:
        """An object whose class defines ``__lecture_view__`` (or edtrace's ``asdict``): what that
        returns, encoded in its place (the same bounds as any value), with the object's class. A view
        that returns the object itself, or raises, falls back to the object's ordinary card."""
        if id(value) in seen or depth >= self.limits.depth:
            return self._object(value)
        try:
            shown = getattr(value, method)()
        except Exception as exc:
            self.problems.append(f"{safe_class_name(value)}: {method}() raised {describe_exception(exc)}")
            return self._object(value)
        if shown is value:
            return self._object(value)
        return {"type": "view", "class": class_name(value), "value": self._encode(shown, depth + 1, seen | {id(value)})}

    def str_value(self, value: str) -> dict[str, Any]:
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

    def repr_text(self, value: Any) -> str | None:
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
            "class": class_name(value),
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
