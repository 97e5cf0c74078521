"""The numbers of a tensor or array card: exact element values, NaN-aware statistics, pooled heatmaps.

* ``shortest_floats``: each element as the shortest decimal that reads back to the same value *in its
  own dtype* (float32 ``1000.1`` is ``1000.1``, not float64's ``1000.0999755859375`` nor a rounding
  to 8 digits), carried as the float64 nearest that decimal, whose JSON text is that decimal. An
  element that is a whole number below ``WHOLE_FLOAT_BELOW`` (``tracer.contract.float_text``) is
  written whole instead: float8's 288 is ``288``, not the shorter ``3e+02`` that also reads back as
  it (the rounding is the lesson).
* ``tensor_stats`` / ``array_stats``: min, max, mean and std computed in float64 (finite data never
  overflows to inf: past float64's range the values are scaled first), as torch would compute them
  over every value (a NaN makes the mean NaN), plus the same four over the finite values alone
  (``finite``) when NaN or ±Inf are present, with their counts.
* ``tensor_heatmap`` / ``array_heatmap``: the whole of a 2-D tensor as at most ``HEATMAP_CELLS`` x
  ``HEATMAP_CELLS`` cells (one per element up to that size, else block means from torch's adaptive
  average pooling (plain average pooling when the blocks divide evenly: the same bits) or
  numpy's ``add.reduceat``), each cell quantized to one byte, row-major, the bytes
  zlib-compressed in a base64 string (``codes``; see ``CODE_TOP``),
  with the whole tensor's min, max and max |x|. The record's size is bounded by the cell count, never
  by ``numel``.

Callers run these under the encoder's own warnings and numeric-error state. This module must not
decide what is recorded (``values`` does) nor format text for a page.
"""

from __future__ import annotations

import base64
import math
import zlib
from typing import Any

from tracer.contract.float_text import WHOLE_FLOAT_BELOW
from tracer.contract.trace_format import HEATMAP_CODE_NAN, HEATMAP_CODE_NEG_INF, HEATMAP_CODE_POS_INF, HEATMAP_CODE_TOP

HEATMAP_CELLS = 128  # the most cells a heatmap has along either side
# Above this many elements (a 1024 x 1024 tensor) the pooled input is an even sample of rows and
# columns across the whole tensor (marked "sampled"): the heatmap of a 10-billion-element expanded
# view costs about a tenth of a second.
HEATMAP_POOL_ELEMENTS = 1 << 20
# One byte per cell (the trace format's codes): 0..CODE_TOP over [lo, hi], then NaN, +Inf, -Inf.
CODE_TOP, CODE_NAN, CODE_POS_INF, CODE_NEG_INF = HEATMAP_CODE_TOP, HEATMAP_CODE_NAN, HEATMAP_CODE_POS_INF, HEATMAP_CODE_NEG_INF


def _json(x: float) -> float | str:
    if math.isfinite(x):
        return x
    return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")


# -- exact element values ----------------------------------------------------------------------
def shortest_floats(t: Any) -> list[float]:
    """The elements of a small floating tensor ``t`` (flattened), each the float64 of the shortest
    decimal that round-trips in ``t.dtype``. float16/float32 use numpy's shortest repr (Dragon4,
    ``unique``); bfloat16 and the float8 kinds, which numpy lacks, take the fewest significant digits
    whose correctly rounded decimal torch converts back to the same element."""
    import torch

    flat = t.detach().reshape(-1).cpu()
    if flat.dtype == torch.float64:
        return flat.tolist()
    if flat.dtype in (torch.float32, torch.float16):
        return _shortest_numpy(flat.numpy())
    exact = flat.to(torch.float64)
    values = exact.tolist()
    out = list(values)
    pending = [k for k, v in enumerate(values) if math.isfinite(v) and v != 0.0 and not _whole(v)]
    for digits in range(1, 18):
        if not pending:
            break
        candidates = [float(f"{values[k]:.{digits}g}") for k in pending]
        back = torch.tensor(candidates, dtype=torch.float64).to(flat.dtype).to(torch.float64)
        same = (back == exact[pending]).tolist()
        still = []
        for k, candidate, ok in zip(pending, candidates, same):
            if ok:
                out[k] = candidate
            else:
                still.append(k)
        pending = still
    return out


def _whole(value: float) -> bool:
    """A whole number below WHOLE_FLOAT_BELOW (never NaN or ±Inf)."""
    return value.is_integer() and abs(value) < WHOLE_FLOAT_BELOW


def _shortest_numpy(flat: Any) -> list[float]:
    """``shortest_floats`` for a flat numpy float16 or float32 array. A numpy scalar's ``str`` is its
    shortest round-tripping decimal (Dragon4, in C: twice as fast as ``format_float_scientific``)
    unless a lecture asked for numpy 1.13's printing, which rounds scalars to 8 digits."""
    import numpy as np

    wide = flat.astype(np.float64).tolist()
    if np.get_printoptions().get("legacy"):
        return [v if _whole(v) else float(np.format_float_scientific(x, unique=True, trim="-")) for v, x in zip(wide, flat)]
    return [v if _whole(v) else float(str(x)) for v, x in zip(wide, flat)]


def shortest_array_floats(a: Any) -> list[float]:
    """``shortest_floats`` for a small numpy float array (float16, float32; float64 as is)."""
    import numpy as np

    flat = np.ravel(a)
    if flat.dtype == np.float64 or flat.dtype.itemsize > 8:
        return [float(x) for x in flat]
    return _shortest_numpy(flat)


# -- statistics --------------------------------------------------------------------------------
def _four(values: Any, np_mode: bool) -> dict[str, Any]:
    """min, max, mean, std (sample std, as torch's) of a float64 vector, scaled when the sums would
    overflow float64 although every value is finite."""
    n = values.size if np_mode else values.numel()
    if n == 0:
        return {"min": None, "max": None, "mean": None, "std": None}
    if np_mode:
        lo, hi = float(values.min()), float(values.max())
        mean = float(values.mean())
        std = float(values.std(ddof=1)) if n > 1 else 0.0
    else:
        import torch

        lo_t, hi_t = torch.aminmax(values)
        lo, hi = float(lo_t), float(hi_t)
        if n > 1:
            std_t, mean_t = torch.std_mean(values)
            std, mean = float(std_t), float(mean_t)
        else:
            std, mean = 0.0, float(values.reshape(()))
    if math.isfinite(lo) and math.isfinite(hi) and not (math.isfinite(mean) and math.isfinite(std)):
        scale = max(abs(lo), abs(hi))
        scaled = _four(values / scale, np_mode)
        mean, std = scaled["mean"] * scale, scaled["std"] * scale
    return {"min": _json(lo), "max": _json(hi), "mean": _json(mean), "std": _json(std)}


def tensor_stats(sample: Any) -> dict[str, Any]:
    """The ``stats`` record of a floating tensor (already sampled to a bounded size)."""
    import torch

    x = sample.detach().reshape(-1).to(torch.float64)
    four = _four(x, False)
    if not isinstance(four["min"], str) and not isinstance(four["max"], str):
        # finite ends (or none: no elements): no NaN, which would be both ends, and no ±Inf
        return {**four, "nan_count": 0, "inf_count": 0}
    finite = torch.isfinite(x)
    nan_count, inf_count = int(torch.isnan(x).sum()), int(torch.isinf(x).sum())
    kept = x[finite]
    return {**four, "nan_count": nan_count, "inf_count": inf_count, "finite": {**_four(kept, False), "count": int(kept.numel())}}


def array_stats(sample: Any) -> dict[str, Any]:
    """``tensor_stats`` for a float64 numpy vector (numpy alone: a numpy lecture never imports torch)."""
    import numpy as np

    finite = np.isfinite(sample)
    if bool(finite.all()):
        return {**_four(sample, True), "nan_count": 0, "inf_count": 0}
    kept = sample[finite]
    return {
        **_four(sample, True),
        "nan_count": int(np.isnan(sample).sum()),
        "inf_count": int(np.isinf(sample).sum()),
        "finite": {**_four(kept, True), "count": int(kept.size)},
    }


# -- heatmaps ----------------------------------------------------------------------------------
def _codes(cells: Any, lo: float, hi: float) -> str:
    """The cells (a float64 numpy vector) as one byte each, zlib-compressed, base64."""
    import numpy as np

    span = hi - lo
    finite = np.isfinite(cells)
    whole = bool(finite.all())
    kept = cells if whole else np.where(finite, cells, lo)
    scaled = np.zeros_like(kept) if span <= 0 else (kept - lo) / span * CODE_TOP
    codes = np.rint(scaled, out=scaled).clip(0, CODE_TOP).astype(np.uint8)
    if not whole:
        codes[np.isnan(cells)] = CODE_NAN
        codes[np.isposinf(cells)] = CODE_POS_INF
        codes[np.isneginf(cells)] = CODE_NEG_INF
    return base64.b64encode(zlib.compress(codes.tobytes(), 6)).decode("ascii")


def _record(
    values: Any, rows: int, cols: int, block: list[int] | None, lo: float | None, hi: float | None, sampled: bool
) -> dict[str, Any]:
    """``values``: the cells, row-major, a numpy vector (or a list) of any real dtype."""
    import numpy as np

    cells = np.asarray(values, dtype=np.float64)
    finite = cells[np.isfinite(cells)]
    cell_lo, cell_hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)
    record: dict[str, Any] = {
        "rows": rows,
        "cols": cols,
        "block": block,
        "codes": _codes(cells, cell_lo, cell_hi),
        "cell_min": _json(cell_lo),
        "cell_max": _json(cell_hi),
        "min": None if lo is None else _json(lo),
        "max": None if hi is None else _json(hi),
        "max_abs": None if lo is None or hi is None else _json(max(abs(lo), abs(hi))),
    }
    if sampled:
        record["sampled"] = True
    return record


def _pooled_size(n: int) -> tuple[int, int]:
    """(cells, elements per cell, at most) along one side of ``n`` elements."""
    cells = min(n, HEATMAP_CELLS)
    return cells, math.ceil(n / cells)


def tensor_heatmap(t: Any) -> dict[str, Any] | None:
    """The heatmap record of a 2-D real tensor (see the module docstring), or None."""
    import torch

    if t.dim() != 2 or t.numel() == 0 or t.is_complex():
        return None
    with torch.no_grad():
        x = t.detach()
        sampled = False
        if x.numel() > HEATMAP_POOL_ELEMENTS:  # an even sample along the longer side(s), still whole-tensor
            step = math.ceil(math.sqrt(x.numel() / HEATMAP_POOL_ELEMENTS))
            x = x[::step, ::step]
            sampled = True
        # float32 is enough for block means of at most 32 x 32 elements (float64 stays float64)
        x = x.to(torch.float64 if x.dtype == torch.float64 else torch.float32)
        lo, hi = _finite_range(x)
        rows, cols = x.shape
        (out_r, block_r), (out_c, block_c) = _pooled_size(rows), _pooled_size(cols)
        if out_r == rows and out_c == cols:
            cells = x.cpu().numpy().reshape(-1)
            block = None
        else:
            pooled = _block_means(x, out_r, out_c)
            cells = pooled.cpu().numpy().reshape(-1)
            block = [block_r, block_c]
    return _record(cells, out_r, out_c, block, lo, hi, sampled)


def _block_means(x: Any, out_r: int, out_c: int) -> Any:
    """``x`` (2-D) pooled to ``out_r`` x ``out_c`` block means. When the blocks divide ``x`` evenly,
    plain average pooling gives the same bits as adaptive pooling in half the time."""
    import torch.nn.functional as F

    rows, cols = x.shape
    if rows % out_r == 0 and cols % out_c == 0:
        return F.avg_pool2d(x[None, None], (rows // out_r, cols // out_c))[0, 0]
    return F.adaptive_avg_pool2d(x[None, None], (out_r, out_c))[0, 0]


def _finite_range(x: Any) -> tuple[float | None, float | None]:
    """(min, max) of the finite elements of a float tensor, (None, None) when there are none. One
    pass when every element is finite (the usual case: NaN and ±Inf show in aminmax's ends)."""
    import torch

    lo_t, hi_t = torch.aminmax(x)
    lo, hi = float(lo_t), float(hi_t)
    if math.isfinite(lo) and math.isfinite(hi):
        return lo, hi
    kept = x[torch.isfinite(x)]
    if not kept.numel():
        return None, None
    lo_t, hi_t = torch.aminmax(kept)
    return float(lo_t), float(hi_t)


def array_heatmap(a: Any) -> dict[str, Any] | None:
    """``tensor_heatmap`` for a 2-D real numpy array: block means from ``np.add.reduceat``."""
    import numpy as np

    if a.ndim != 2 or a.size == 0 or a.dtype.kind not in "biuf":
        return None
    x = a
    sampled = False
    if x.size > HEATMAP_POOL_ELEMENTS:
        step = math.ceil(math.sqrt(x.size / HEATMAP_POOL_ELEMENTS))
        x = x[::step, ::step]
        sampled = True
    x = np.asarray(x, dtype=np.float64)
    finite = np.isfinite(x)
    kept = x if bool(finite.all()) else x[finite]
    lo, hi = (float(kept.min()), float(kept.max())) if kept.size else (None, None)
    rows, cols = x.shape
    (out_r, block_r), (out_c, block_c) = _pooled_size(rows), _pooled_size(cols)
    if out_r == rows and out_c == cols:
        return _record(x.reshape(-1), rows, cols, None, lo, hi, sampled)
    # contiguous bins, cell i starting at floor(i*n/k) (reduceat sums from each start to the next)
    starts_r = (np.arange(out_r) * rows) // out_r
    starts_c = (np.arange(out_c) * cols) // out_c
    sums = np.add.reduceat(np.add.reduceat(x, starts_r, axis=0), starts_c, axis=1)
    counts = np.outer(np.diff(np.append(starts_r, rows)), np.diff(np.append(starts_c, cols)))
    return _record((sums / counts).reshape(-1), out_r, out_c, [block_r, block_c], lo, hi, sampled)
