"""NaN-aware statistics of a tensor or array (``tensor_stats``, ``array_stats``).

Min, max, mean and std over every element, computed in float64 a chunk at a time and merged (finite
data never overflows to inf: past float64's range the values are scaled first), as torch would
compute them over every value (a NaN makes the mean NaN; a short array's sums are exactly rounded, in
Python: ``LIST_STATS_ELEMENTS``), plus the same four over the finite values
alone (``finite``) when NaN or ±Inf are present, with their exact counts.

A tensor's figures are computed on its own device (``chunk_rows``: one small float64 row per chunk,
no value read back) and finished on the host from those rows (``stats_from_rows``), so its card is
read back in one copy (``device_readout``); ``tensor_stats`` does both for one tensor.

Callers run these under the encoder's own warnings and numeric-error state. This module must not
decide what is recorded (``values`` does) nor format text for a page.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from tracer.capture.encoder_core import json_float

# Statistics are taken over every element in chunks of this many (each chunk widened to float64 on
# its own device), so the extra memory is one chunk, not a float64 copy of the tensor.
STATS_CHUNK_ELEMENTS = 1 << 20
# Past 2**500 the sum of squares could overflow float64: such a chunk is divided by a power of two
# first (exact), and its moments carried with that scale.
_SCALE_FROM = 2.0**500
# An array of at most this many elements (more than a preview shows whole) is summed in Python: for so
# few, ``math.fsum`` is exact and takes less time than numpy's reductions take to start.
LIST_STATS_ELEMENTS = 512


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
            finite: dict[str, Any] = {
                "min": json_float(self.lo),
                "max": json_float(self.hi),
                "mean": json_float(self.mean * self.scale),
            }
            finite["std"] = json_float(std)
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
        return _Moments(count, lo, hi, mean, variance * count, scale)
    mean_t, m2_t = _mean_m2(scaled if scale != 1.0 else values.clone())
    return _Moments(count, lo, hi, float(mean_t), float(m2_t), scale)


def _mean_m2(x: Any) -> tuple[Any, Any]:
    """The mean and the sum of squared deviations of a flat float64 tensor that is the caller's own
    (the deviations are written over it), as 0-d tensors on its device: two passes of pairwise
    sums (what numpy's ``var`` does), not torch's one-pass ``var_mean``, which takes twenty times as
    long on a CPU."""
    mean = x.mean()
    x.sub_(mean)
    return mean, x.mul_(x).sum()


def _list_moments(values: list[float]) -> _Moments | None:
    """The moments of a short list of floats, each sum exactly rounded (``math.fsum``), or None when one
    is NaN, ±Inf or past ``_SCALE_FROM`` (``_chunk_moments`` then takes them)."""
    if not values:
        return _Moments()
    if not all(map(math.isfinite, values)):
        return None
    lo, hi = min(values), max(values)
    if max(-lo, hi) > _SCALE_FROM:
        return None
    mean = math.fsum(values) / len(values)
    return _Moments(len(values), lo, hi, mean, math.fsum([(v - mean) * (v - mean) for v in values]))


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


def chunk_rows(flat: Any) -> Any:
    """Device half of ``tensor_stats``: a float64 (chunks, 4) tensor on ``flat``'s device, each chunk's
    min, max, mean and sum of squared deviations, taken as if its elements were finite and modest
    (``stats_from_rows`` checks that on the host). No value leaves the device here."""
    import torch

    if 0 < flat.numel() <= STATS_CHUNK_ELEMENTS:  # one chunk (the common case): its row, as a (1, 4) view
        return _chunk_row(flat).unsqueeze(0)
    rows = []
    for start in range(0, max(flat.numel(), 1), STATS_CHUNK_ELEMENTS):
        chunk = flat[start : start + STATS_CHUNK_ELEMENTS]
        if chunk.numel() == 0:
            rows.append(torch.zeros(4, dtype=torch.float64, device=chunk.device))
            continue
        rows.append(_chunk_row(chunk))
    return torch.stack(rows)


def _chunk_row(chunk: Any) -> Any:
    """One non-empty chunk's float64 row: min, max, mean, sum of squared deviations."""
    import torch

    x = chunk.to(torch.float64, copy=True)  # widened exactly; ours to overwrite
    # a float32 chunk's ends from its own (narrower) elements; stack promotes them to float64, exactly
    ends = torch.aminmax(chunk if chunk.dtype == torch.float32 else x)
    return torch.stack([*ends, *_mean_m2(x)])


def stats_from_rows(flat: Any, rows: list[list[float]]) -> dict[str, Any]:
    """Host half of ``tensor_stats``: the ``stats`` record from ``chunk_rows(flat)`` read back as
    lists. A chunk holding NaN or ±Inf, or values past ``_SCALE_FROM``, is taken again by
    ``_chunk_moments`` (more reads from the device; such chunks are rare); every other chunk's
    figures are those ``_chunk_moments`` gives, computed the same way."""
    total = _Moments()
    numel = flat.numel()
    for index, (lo, hi, mean, m2) in enumerate(rows):
        start = index * STATS_CHUNK_ELEMENTS
        count = min(STATS_CHUNK_ELEMENTS, numel - start)
        if count <= 0:
            continue
        if math.isfinite(lo) and math.isfinite(hi) and max(abs(lo), abs(hi)) <= _SCALE_FROM:
            total.merge(_Moments(count, lo, hi, mean, m2))
        else:
            total.merge(_chunk_moments(flat[start : start + STATS_CHUNK_ELEMENTS], False))
    return total.record()


def tensor_stats(t: Any) -> dict[str, Any]:
    """The ``stats`` record of a floating tensor, over every element (a chunk at a time)."""
    import torch

    with torch.no_grad():
        flat = t.detach().reshape(-1)
        return stats_from_rows(flat, chunk_rows(flat).tolist())


def array_stats(a: Any) -> dict[str, Any]:
    """``tensor_stats`` for a numpy float array (numpy alone: a numpy lecture never imports torch). A
    small one's finite values are summed in Python (``_list_moments``), exactly rounded, in less time
    than numpy takes to start its reductions."""
    import numpy as np

    flat = np.ravel(a)
    if flat.size <= LIST_STATS_ELEMENTS:
        moments = _list_moments(flat.tolist())
        if moments is not None:
            return moments.record()
    total = _Moments()
    for start in range(0, flat.size, STATS_CHUNK_ELEMENTS):
        total.merge(_chunk_moments(flat[start : start + STATS_CHUNK_ELEMENTS], True))
    return total.record()
