"""Exact element values: each float element as the shortest decimal that reads back to the same
value *in its own dtype* (``shortest_floats`` for tensors, ``shortest_array_floats`` for arrays).

Float32 ``1000.1`` is ``1000.1``, not float64's ``1000.0999755859375`` nor a rounding to 8 digits;
it is carried as the float64 nearest that decimal, whose JSON text is that decimal. bfloat16 and
float8, which numpy lacks, are worked out digit count by digit count, each bit pattern once per
process (``_SHORTEST``: at most 65,536 values a dtype). An element that is a whole number below
``WHOLE_FLOAT_BELOW`` (``tracer.contract.float_text``) is written whole instead: float8's 288 is
``288``, not the shorter ``3e+02`` that also reads back as it (the rounding is the lesson).
``decimal_digits`` counts an int's digits without printing it.

Callers run these under the encoder's own warnings and numeric-error state. This module must not
decide what is recorded (``values`` does) nor format text for a page.
"""

from __future__ import annotations

import math
from typing import Any

from tracer.contract.float_text import WHOLE_FLOAT_BELOW


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
    if flat.dtype.itemsize > 2:
        return _shortest_by_digits(flat)
    # bfloat16 and float8 have at most 65,536 values each: each one's decimal is worked out once
    # per process (a preview of 400 takes milliseconds), and an element seen before is looked up.
    known = _SHORTEST.setdefault(flat.dtype, {})
    bits = flat.contiguous().view(torch.int16 if flat.dtype.itemsize == 2 else torch.int8).tolist()
    unseen: dict[int, int] = {}  # a pattern not worked out yet -> its first element
    for k, pattern in enumerate(bits):
        if pattern not in known:
            unseen.setdefault(pattern, k)
    if unseen:
        known.update(zip(unseen, _shortest_by_digits(flat[list(unseen.values())])))
    return [known[pattern] for pattern in bits]


# Per torch dtype (bfloat16, the float8 kinds): each bit pattern's shortest decimal, once worked out.
_SHORTEST: dict[Any, dict[int, float]] = {}


def _shortest_by_digits(flat: Any) -> list[float]:
    """``shortest_floats`` for a flat CPU tensor of a dtype numpy lacks: the fewest significant digits
    whose correctly rounded decimal torch converts back to the same element."""
    import torch

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


def shortest_rounded(values: list[float], dtype: Any) -> list[float]:
    """``shortest_floats`` of ``values`` (Python floats) each rounded to the torch ``dtype`` first. A
    float32 goes through numpy alone (its rounding from float64 is torch's, to nearest even): a
    tensor's statistics take this path on every card, and a torch tensor of four costs more than
    the digits."""
    import torch

    if dtype == torch.float32:
        import numpy as np

        return _shortest_numpy(np.array(values, dtype=np.float32))
    return shortest_floats(torch.tensor(values, dtype=dtype))


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
