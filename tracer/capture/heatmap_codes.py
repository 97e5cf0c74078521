"""Whole-tensor heatmaps (``tensor_heatmap``, ``array_heatmap``) as the trace stores them.

The whole of a 2-D tensor as at most ``HEATMAP_CELLS`` x ``HEATMAP_CELLS`` cells (one per element up
to that size, else block means from torch's adaptive average pooling (plain average pooling when
the blocks divide evenly: the same bits) or numpy's ``add.reduceat``), each cell quantized to one
byte, row-major, the bytes zlib-compressed in a base64 string (``codes``; see ``CODE_TOP``), with the
whole tensor's min, max and max |x|. The record's size is bounded by the cell count, never by
``numel``.

A tensor's cells and range are computed on its own device (``heatmap_part``) and read back with the
rest of its card in one copy (``device_readout``); ``heatmap_record`` finishes them on the host.

Callers run these under the encoder's own warnings and numeric-error state. This module must not
decide what is recorded (``values`` does) nor format text for a page.
"""

from __future__ import annotations

import base64
import dataclasses
import math
import zlib
from typing import Any

from tracer.capture.device_readout import DeviceReadout
from tracer.capture.encoder_core import json_float
from tracer.contract.trace_format import HEATMAP_CODE_NAN, HEATMAP_CODE_NEG_INF, HEATMAP_CODE_POS_INF, HEATMAP_CODE_TOP

HEATMAP_CELLS = 128  # the most cells a heatmap has along either side
# Above this many elements (a 1024 x 1024 tensor) the pooled input is an even sample of rows and
# columns across the whole tensor (marked "sampled"): the heatmap of a 10-billion-element expanded
# view costs about a tenth of a second.
HEATMAP_POOL_ELEMENTS = 1 << 20
# One byte per cell (the trace format's codes): 0..CODE_TOP over [lo, hi], then NaN, +Inf, -Inf.
CODE_TOP, CODE_NAN, CODE_POS_INF, CODE_NEG_INF = HEATMAP_CODE_TOP, HEATMAP_CODE_NAN, HEATMAP_CODE_POS_INF, HEATMAP_CODE_NEG_INF


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
        "cell_min": json_float(cell_lo),
        "cell_max": json_float(cell_hi),
        "min": None if lo is None else json_float(lo),
        "max": None if hi is None else json_float(hi),
        "max_abs": None if lo is None or hi is None else json_float(max(abs(lo), abs(hi))),
    }
    if sampled:
        record["sampled"] = True
    return record


def _pooled_size(n: int) -> tuple[int, int]:
    """(cells, elements per cell, at most) along one side of ``n`` elements."""
    cells = min(n, HEATMAP_CELLS)
    return cells, math.ceil(n / cells)


@dataclasses.dataclass
class HeatmapPlan:
    """A heatmap's device half (``heatmap_part``): the pooled input ``x``, its shape in cells and
    the readout handles of its cells and of its (min, max) (None: the caller has them)."""

    x: Any
    rows: int
    cols: int
    block: list[int] | None
    sampled: bool
    cells: int
    ends: int | None


def heatmap_part(t: Any, readout: DeviceReadout, ends: bool = True) -> HeatmapPlan | None:
    """Queue on ``readout`` what the heatmap of a 2-D real tensor needs (its cells and, unless
    ``ends`` is False, its min and max, computed on the tensor's own device), or None when it has
    none. ``heatmap_record`` finishes it."""
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
        ends_handle = readout.add(torch.stack(torch.aminmax(x))) if ends else None
        rows, cols = x.shape
        (out_r, block_r), (out_c, block_c) = _pooled_size(rows), _pooled_size(cols)
        if out_r == rows and out_c == cols:
            cells, block = x, None
        else:
            cells, block = _block_means(x, out_r, out_c), [block_r, block_c]
        return HeatmapPlan(x, out_r, out_c, block, sampled, readout.add(cells), ends_handle)


def heatmap_record(plan: HeatmapPlan, host: list[Any], ends: tuple[float, float] | None = None) -> dict[str, Any]:
    """The heatmap record from ``plan`` and the readout's host tensors (``ends``: the min and max of
    every element when the plan did not take them). When the ends are not both finite (NaN or ±Inf
    present), the finite range is taken again on the device (``_finite_range``)."""
    lo: float | None
    hi: float | None
    if plan.ends is not None:
        lo, hi = (float(v) for v in host[plan.ends].tolist())
    else:
        assert ends is not None, "a heatmap planned without its ends is given them"
        lo, hi = ends
    if not (math.isfinite(lo) and math.isfinite(hi)):
        lo, hi = _finite_range(plan.x)
    cells = host[plan.cells].numpy().reshape(-1)
    return _record(cells, plan.rows, plan.cols, plan.block, lo, hi, plan.sampled)


def tensor_heatmap(t: Any) -> dict[str, Any] | None:
    """The heatmap record of a 2-D real tensor (see the module docstring), or None."""
    readout = DeviceReadout()
    plan = heatmap_part(t, readout)
    return None if plan is None else heatmap_record(plan, readout.fetch())


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
