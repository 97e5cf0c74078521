"""The numbers of a tensor or array card: exact element values, NaN-aware statistics, pooled heatmaps.

* ``shortest_floats``: each element as the shortest decimal that reads back to the same value *in its
  own dtype* (float32 ``1000.1`` is ``1000.1``, not float64's ``1000.0999755859375`` nor a rounding
  to 8 digits), carried as the float64 nearest that decimal, whose JSON text is that decimal. An
  element that is a whole number below ``WHOLE_FLOAT_BELOW`` (``tracer.contract.float_text``) is
  written whole instead: float8's 288 is ``288``, not the shorter ``3e+02`` that also reads back as
  it (the rounding is the lesson).
* ``tensor_stats`` / ``array_stats``: min, max, mean and std over every element, computed in float64
  a chunk at a time and merged (finite data never overflows to inf: past float64's range the values
  are scaled first), as torch would compute them over every value (a NaN makes the mean NaN), plus
  the same four over the finite values alone (``finite``) when NaN or ±Inf are present, with their
  exact counts.
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
import dataclasses
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


# -- integers ----------------------------------------------------------------------------------
def decimal_digits(n: int) -> int:
    """How many decimal digits ``n`` has, without ``str()`` (which refuses past 4,300 digits and is
    quadratic): from its bit length, corrected by one comparison each way."""
    n = abs(n)
    if n < 10:
        return 1
    digits = int(n.bit_length() * 0.30102999566398120) + 1  # log10(2): exact or one too many
    if n < 10 ** (digits - 1):
        digits -= 1
    elif n >= 10**digits:
        digits += 1
    return digits


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
# Statistics are taken over every element in chunks of this many (each chunk widened to float64 on
# its own device), so the extra memory is one chunk, not a float64 copy of the tensor.
STATS_CHUNK_ELEMENTS = 1 << 20
# Past 2**500 the sum of squares could overflow float64: such a chunk is divided by a power of two
# first (exact), and its moments carried with that scale.
_SCALE_FROM = 2.0**500


@dataclasses.dataclass
class _Moments:
    """One chunk's (or several chunks' merged) finite values: count, ends, mean and sum of squared
    deviations (both divided by ``scale``), and the counts of NaN, +Inf and -Inf beside them."""

    count: int = 0
    lo: float = math.inf
    hi: float = -math.inf
    mean: float = 0.0
    m2: float = 0.0
    scale: float = 1.0
    nan: int = 0
    pos_inf: int = 0
    neg_inf: int = 0

    def merge(self, other: _Moments) -> None:
        """Chan et al.'s pairwise update: the moments of both chunks together."""
        self.nan, self.pos_inf, self.neg_inf = self.nan + other.nan, self.pos_inf + other.pos_inf, self.neg_inf + other.neg_inf
        if other.count == 0:
            return
        if self.count == 0:
            self.count, self.lo, self.hi, self.mean, self.m2, self.scale = (
                other.count, other.lo, other.hi, other.mean, other.m2, other.scale
            )  # fmt: skip
            return
        scale = max(self.scale, other.scale)
        a_mean, a_m2 = self.mean * (self.scale / scale), self.m2 * (self.scale / scale) ** 2
        b_mean, b_m2 = other.mean * (other.scale / scale), other.m2 * (other.scale / scale) ** 2
        count = self.count + other.count
        delta = b_mean - a_mean
        self.mean = a_mean + delta * other.count / count
        self.m2 = a_m2 + b_m2 + delta * delta * self.count * other.count / count
        self.count, self.scale = count, scale
        self.lo, self.hi = min(self.lo, other.lo), max(self.hi, other.hi)

    def record(self) -> dict[str, Any]:
        """The ``stats`` record: the four of every value as torch computes them (NaN when any is
        NaN; ±Inf ends and mean, NaN std, when ±Inf are present), and when NaN or ±Inf are present,
        the four of the finite values alone (``None`` each when there are none) with their count."""
        if self.count:
            std = math.sqrt(self.m2 / (self.count - 1)) * self.scale if self.count > 1 else 0.0
            finite: dict[str, Any] = {"min": _json(self.lo), "max": _json(self.hi), "mean": _json(self.mean * self.scale)}
            finite["std"] = _json(std)
        else:
            finite = {"min": None, "max": None, "mean": None, "std": None}
        counts = {"nan_count": self.nan, "inf_count": self.pos_inf + self.neg_inf}
        if not (self.nan or self.pos_inf or self.neg_inf):
            return {**finite, **counts}
        if self.nan:
            four: dict[str, Any] = {"min": "nan", "max": "nan", "mean": "nan", "std": "nan"}
        else:
            four = {
                "min": "-inf" if self.neg_inf else finite["min"],
                "max": "inf" if self.pos_inf else finite["max"],
                "mean": "nan" if self.pos_inf and self.neg_inf else ("inf" if self.pos_inf else "-inf"),
                "std": "nan",
            }
        return {**four, **counts, "finite": {**finite, "count": self.count}}


def _finite_moments(count: int, lo: float, hi: float, values: Any, np_mode: bool) -> _Moments:
    """The moments of a float64 vector whose values are all finite (``lo``/``hi`` its ends)."""
    top = max(abs(lo), abs(hi))
    scale = 2.0 ** (math.frexp(top)[1] - 1) if top > _SCALE_FROM else 1.0  # values / scale within ±2
    scaled = values / scale if scale != 1.0 else values
    if np_mode:
        mean, variance = float(scaled.mean()), float(scaled.var())
    else:
        import torch

        variance_t, mean_t = torch.var_mean(scaled, correction=0)
        mean, variance = float(mean_t), float(variance_t)
    return _Moments(count, lo, hi, mean, variance * count, scale)


def _chunk_moments(chunk: Any, np_mode: bool) -> _Moments:
    """The moments of one flat chunk (any floating dtype), widened to float64."""
    if np_mode:
        import numpy as np

        x = np.asarray(chunk, dtype=np.float64)
        if x.size == 0:
            return _Moments()
        lo, hi = float(x.min()), float(x.max())
        if math.isfinite(lo) and math.isfinite(hi):
            return _finite_moments(int(x.size), lo, hi, x, True)
        finite = np.isfinite(x)
        kept = x[finite]
        specials = _Moments(nan=int(np.isnan(x).sum()), pos_inf=int(np.isposinf(x).sum()), neg_inf=int(np.isneginf(x).sum()))
        if kept.size:
            specials.merge(_finite_moments(int(kept.size), float(kept.min()), float(kept.max()), kept, True))
        return specials
    import torch

    x = chunk.to(torch.float64)
    if x.numel() == 0:
        return _Moments()
    lo_t, hi_t = torch.aminmax(x)
    lo, hi = float(lo_t), float(hi_t)
    if math.isfinite(lo) and math.isfinite(hi):
        return _finite_moments(int(x.numel()), lo, hi, x, False)
    kept = x[torch.isfinite(x)]
    specials = _Moments(nan=int(torch.isnan(x).sum()), pos_inf=int(torch.isposinf(x).sum()), neg_inf=int(torch.isneginf(x).sum()))
    if kept.numel():
        lo_t, hi_t = torch.aminmax(kept)
        specials.merge(_finite_moments(int(kept.numel()), float(lo_t), float(hi_t), kept, False))
    return specials


def tensor_stats(t: Any) -> dict[str, Any]:
    """The ``stats`` record of a floating tensor, over every element (a chunk at a time)."""
    import torch

    with torch.no_grad():
        flat = t.detach().reshape(-1)
        total = _Moments()
        for start in range(0, flat.numel(), STATS_CHUNK_ELEMENTS):
            total.merge(_chunk_moments(flat[start : start + STATS_CHUNK_ELEMENTS], False))
    return total.record()


def array_stats(a: Any) -> dict[str, Any]:
    """``tensor_stats`` for a numpy float array (numpy alone: a numpy lecture never imports torch)."""
    import numpy as np

    flat = np.ravel(a)
    total = _Moments()
    for start in range(0, flat.size, STATS_CHUNK_ELEMENTS):
        total.merge(_chunk_moments(flat[start : start + STATS_CHUNK_ELEMENTS], True))
    return total.record()


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
