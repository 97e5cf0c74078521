"""How a trace writes a float element: the shortest decimal that reads back as the same element in
its own dtype (float32 ``-2.1152194``), and a whole number below ``WHOLE_FLOAT_BELOW`` whole (float8's
288 is ``288``, not the shorter ``3e+02`` that reads back as it). ``tracer.capture.shortest_floats`` writes
them so; version 1 traces wrote float32 and float16 elements as the float64 they convert to
(``-2.1152193546295166``), and ``shorten_values`` gives such a trace's tensors and arrays this form,
in place, so an old trace reads like a new one.

Pure Python (``struct`` rounds to float32 and float16 as the hardware does): the site needs neither
torch nor numpy. Other dtypes (bfloat16, float8) are left as recorded. This module must not read,
write or validate traces (``trace_format`` does).
"""

from __future__ import annotations

import math
import struct
from typing import Any

WHOLE_FLOAT_BELOW = 1e16
_FORMATS = {"float32": "<f", "float16": "<e"}
_STATS = ("min", "max", "mean", "std")


def shortest(value: Any, fmt: str) -> Any:
    """``value`` (an element of the dtype ``fmt`` packs) as the shortest decimal that packs the same."""
    if type(value) is not float or not math.isfinite(value) or (value.is_integer() and abs(value) < WHOLE_FLOAT_BELOW):
        return value
    try:
        packed = struct.pack(fmt, value)
        for digits in range(1, 18):
            candidate = float(f"{value:.{digits}g}")
            if struct.pack(fmt, candidate) == packed:
                return candidate
    except (OverflowError, struct.error):  # not an element of that dtype after all: left as it is
        pass
    return value


def _nested(values: Any, fmt: str) -> Any:
    if isinstance(values, list):
        return [_nested(v, fmt) for v in values]
    return shortest(values, fmt)


def _record(record: dict[str, Any]) -> None:
    dtype = record.get("dtype")
    fmt = _FORMATS.get(dtype) if isinstance(dtype, str) else None
    if fmt is None or record.get("type") not in ("tensor", "ndarray"):
        return  # (not yet validated: anything else is left for the schema to name)
    if "values" in record:
        record["values"] = _nested(record["values"], fmt)
    stats = record.get("stats")
    finite = stats.get("finite") if isinstance(stats, dict) else None
    for part in (stats, finite):
        if isinstance(part, dict):
            for key in _STATS:
                if key in part:
                    part[key] = shortest(part[key], fmt)


def shorten_values(node: Any) -> None:
    """Every float32/float16 tensor or array record under ``node`` (a trace, a step, a value), in place."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if "dtype" in item:
                _record(item)
            stack.extend(v for v in item.values() if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            stack.extend(v for v in item if isinstance(v, (dict, list)))
