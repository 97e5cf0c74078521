"""NumPy objects as Values: arrays (a bounded preview, statistics, a heatmap of a big matrix),
scalars, dtypes and finfo.

Only the kept entries of an array are copied, whatever its strides. Called by
``values.ValueEncoder`` through ``encoder_core.Encoding``; this module must not decide when to
record nor write files.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any

from tracer.capture.encoder_core import Encoding, insert_ellipses, json_float, safe_class_name, to_json_list
from tracer.capture.element_stats import array_stats
from tracer.capture.heatmap_codes import array_heatmap
from tracer.capture.shortest_floats import shortest_array_floats


def encode_numpy(enc: Encoding, value: Any) -> dict[str, Any] | None:
    import numpy as np

    if isinstance(value, np.ndarray):
        limit = enc.limits.tensor_elements
        values = _ndarray_preview(enc, value)
        out = {
            "type": "ndarray",
            "dtype": str(value.dtype),
            "shape": [int(d) for d in value.shape],
            "values": values,
            "truncated": value.size > limit,
        }
        if value.dtype.kind == "f" and value.size and value.dtype.itemsize <= 8:
            # Every element up to stats_elements; past it an even sample, never a copy of the whole.
            step = 1 if value.size <= enc.limits.stats_elements else math.ceil(value.size / enc.limits.stats_sample)
            sample = value if step == 1 else np.asarray(value.flat[::step])
            out["stats"] = own_precision_stats(sample)
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


def own_precision_stats(a: Any) -> dict[str, Any]:
    """The ``stats`` record of a numpy float array (every element), written in the array's own precision
    where it fits, as a tensor's are: min and max are elements, and a float32 mean is not shown with
    digits that the summation order decides."""
    import numpy as np

    stats = array_stats(a)
    if a.dtype.itemsize < 8:
        largest = float(np.finfo(a.dtype).max)
        for part in (stats, stats.get("finite") or {}):
            keys = [k for k in ("min", "max", "mean", "std") if isinstance(part.get(k), float) and abs(part[k]) <= largest]
            if keys:
                part.update(zip(keys, shortest_array_floats(np.array([part[k] for k in keys], dtype=a.dtype))))
    return stats


def _ndarray_preview(enc: Encoding, value: Any) -> Any:
    """Nested lists of the leading and trailing entries of each dimension (like tensors), "…" where cut.

    Works on any strides (negative included) and any dtype: only the kept entries are copied.
    """
    import numpy as np

    budget = enc.limits.tensor_elements
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
        listed = np.vectorize(partial(_entry_text, enc), otypes=[object])(part).tolist() if part.size else part.tolist()
    values = to_json_list(listed)
    return insert_ellipses(values, keep) if keep else values


def _entry_text(enc: Encoding, entry: Any) -> Any:
    if entry is None or type(entry) in (bool, float):
        return entry
    if type(entry) is int:
        encoded = enc.encode(entry)
        return encoded.get("value", encoded.get("preview"))
    if isinstance(entry, str):
        return enc.str_value(entry)["value"]
    text = enc.repr_text(entry)
    return text if text is not None else f"<{safe_class_name(entry)}>"
