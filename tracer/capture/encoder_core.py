"""What every value encoder shares: its limits, the interface library encoders call back through,
and the small pieces of a record (JSON-safe floats, class names, exception text, previews with "…").

``values.ValueEncoder`` is the encoder; ``torch_values`` and ``numpy_values`` encode their
libraries' objects through the ``Encoding`` interface, so none of them reads another's private
state. This module must not import torch or numpy, decide when to record, or write files.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import re
import sys
import warnings
from typing import Any, Iterator, Protocol

from tracer.capture.lecture_module import LECTURE_MODULE
from tracer.capture.memory import StorageRegistry

ELLIPSIS = "…"
_SURROGATES = re.compile("[\ud800-\udfff]")


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


class Encoding(Protocol):
    """What a library's encoder may use of the encoder that calls it (``values.ValueEncoder``)."""

    limits: Limits
    registry: StorageRegistry

    def encode(self, value: Any) -> dict[str, Any]: ...

    def str_value(self, value: str) -> dict[str, Any]: ...

    def repr_text(self, value: Any) -> str | None: ...


def json_float(x: float) -> float | str:
    if math.isfinite(x):
        return x
    return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")


def dtype_name(dtype: Any) -> str:
    return str(dtype).removeprefix("torch.")


def class_name(value: Any) -> str:
    cls = type(value)
    return (
        cls.__qualname__ if cls.__module__ in ("builtins", "__main__", LECTURE_MODULE) else f"{cls.__module__}.{cls.__qualname__}"
    )


def safe_class_name(value: Any) -> str:
    """The class name, even for classes whose ``__module__``/``__qualname__`` are not plain strings."""
    try:
        name = class_name(value)
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


def to_json_list(values: Any) -> Any:
    if isinstance(values, float):
        return json_float(values)
    if isinstance(values, complex):
        return [json_float(values.real), json_float(values.imag)]
    if isinstance(values, list):
        if values and isinstance(values[0], float) and all(isinstance(v, float) and math.isfinite(v) for v in values):
            return values
        return [to_json_list(v) for v in values]
    return values


def nested(flat: list[Any], shape: list[int]) -> Any:
    """``flat`` (row-major) as nested lists of ``shape``, as ``tolist`` gives them (a 0-d shape: the one item)."""
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return flat
    inner = math.prod(shape[1:])
    return [nested(flat[k * inner : (k + 1) * inner], shape[1:]) for k in range(shape[0])]


def insert_ellipses(values: Any, keep: list[tuple[int, int] | None], dim: int = 0) -> Any:
    if dim >= len(keep) or not isinstance(values, list):
        return values
    # the last kept dimension holds the elements themselves: nothing inside them to cut
    inner = values if dim == len(keep) - 1 else [insert_ellipses(v, keep, dim + 1) for v in values]
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
