"""Human-readable numbers for the site: bytes, FLOPs, FLOP/s, seconds, counts, tensor elements.

Every function takes a plain number and returns a short string ("4.0 KiB", "2.15 GFLOP",
"45.1 GFLOP/s", "450 GB/s", "1.20 ms", "40,000,000,000", "1e-12"). This module must not know about traces or HTML: it only formats.
"""

from __future__ import annotations

import math
from typing import Any

GROUP_FROM = 10_000  # from here on numbers get thousands separators (1024 and 2020 stay as written)
SCIENTIFIC_FROM = 1e15  # at or above this magnitude: scientific notation
SCIENTIFIC_BELOW = 1e-4  # below this magnitude (except 0): scientific notation

_BINARY_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")
_DECIMAL_PREFIXES = ("", "K", "M", "G", "T", "P", "E")


def human_bytes(nbytes: int | float) -> str:
    """Bytes in binary units: 512 -> "512 B", 4096 -> "4.0 KiB", 3 * 2**30 -> "3.0 GiB"."""
    value = float(nbytes)
    for unit in _BINARY_UNITS:
        if abs(value) < 1024 or unit == _BINARY_UNITS[-1]:
            return f"{int(value)} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def _decimal(value: float, unit: str) -> str:
    # Three significant digits reads well for FLOP counts and rates (2.15 G, 45.1 G, 312 G).
    if value == 0:
        return f"0 {unit}"
    exponent = min(int(math.floor(math.log10(abs(value)) / 3)), len(_DECIMAL_PREFIXES) - 1)
    exponent = max(exponent, 0)
    scaled = value / 1000**exponent
    if exponent == 0 and float(value).is_integer():
        return f"{int(value)} {unit}"
    digits = 2 if abs(scaled) < 10 else 1 if abs(scaled) < 100 else 0
    return f"{scaled:.{digits}f} {_DECIMAL_PREFIXES[exponent]}{unit}"


def human_flops(flops: int | float) -> str:
    """A FLOP count: 2147483648 -> "2.15 GFLOP"."""
    return _decimal(float(flops), "FLOP")


def human_flop_per_s(flop_per_s: float | None) -> str:
    """A FLOP rate: 4.51e10 -> "45.1 GFLOP/s"; None -> "n/a"."""
    return "n/a" if flop_per_s is None else _decimal(float(flop_per_s), "FLOP/s")


def human_bytes_per_s(bytes_per_s: float | None) -> str:
    """A bandwidth in decimal units, as link speeds are given: 4.5e11 -> "450 GB/s"; None -> "n/a"."""
    return "n/a" if bytes_per_s is None else _decimal(float(bytes_per_s), "B/s")


def human_seconds(seconds: float | None) -> str:
    """A duration: 0.0012 -> "1.20 ms", 3.5 -> "3.50 s"."""
    if seconds is None:
        return "n/a"
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if abs(seconds) >= scale:
            return f"{seconds / scale:.3g} {unit}" if seconds / scale < 100 else f"{seconds / scale:.0f} {unit}"
    return f"{seconds * 1e9:.3g} ns"


def human_count(count: int) -> str:
    """A large integer with thin grouping: 1234567 -> "1,234,567"."""
    return f"{count:,}"


def format_number(value: Any) -> str:
    """One tensor/array element as text: floats with 4 significant digits (their exact repr when that
    is no longer), ints as is (grouped).

    Elements come from the trace's value previews, so they may be the strings "nan", "inf",
    "-inf", the elision marker "…", or ``[re, im]`` pairs for complex numbers.
    """
    if isinstance(value, float):  # first: a card's elements are mostly floats
        return rounded_float(value, None)
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int):
        return readable_number(value)
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, (int, float)) for v in value):
        real, imag = value
        sign = "-" if imag < 0 else "+"
        return f"{format_number(float(real))}{sign}{format_number(abs(float(imag)))}j"
    return str(value)


def rounded_float(value: float, exact: str | None) -> str:
    """``format_number`` of a float, given its ``exact_cell`` text when the caller has it already
    (a grid needs both for every element)."""
    if value.is_integer() and abs(value) < 1e6:
        return f"{value:,.1f}" if abs(value) >= GROUP_FROM else f"{value:.1f}"
    rounded = _short_exponent(f"{value:.4g}")
    if exact is None:
        exact = _short_exponent(repr(value))
    return exact if len(exact) <= len(rounded) else rounded  # 5e-324, not 4.941e-324


def _short_exponent(text: str) -> str:
    # Python pads exponents to two digits ("1e-05"); one is enough to read ("1e-5"). A card formats
    # thousands of numbers: string methods, not a pattern, and nothing at all for most.
    if "e" not in text:
        return text
    head, _e, exponent = text.rpartition("e")
    if len(exponent) == 3 and exponent[0] in "+-" and exponent[1] == "0" and exponent[2] in "0123456789":
        return f"{head}e{exponent[0]}{exponent[2]}"
    return text


def readable_number(value: int | float, significant: int | None = None) -> str:
    """A scalar for reading, exact unless ``significant`` is given: thousands separators from
    ``GROUP_FROM`` on, and a float is the shortest decimal that reads back as it (Python's repr).

    ``40000000000.0`` -> "40,000,000,000", ``1234.5`` -> "1,234.5", ``1e-12`` -> "1e-12",
    ``2**62`` -> "4,611,686,018,427,387,904", ``2.0**53 + 1`` -> "9,007,199,254,740,992",
    ``5e-324`` -> "5e-324", ``0.1`` -> "0.1". With ``significant`` (containers use 6) floats are
    rounded to that many digits, scientific below ``SCIENTIFIC_BELOW`` and from ``SCIENTIFIC_FROM``;
    ``exact_number`` gives the value as Python writes it.
    """
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int):
        return f"{value:,}" if abs(value) >= GROUP_FROM else str(value)
    if not math.isfinite(value):
        return repr(value)
    magnitude = abs(value)
    text = repr(value)
    if significant is None:
        if "e" in text:  # Python writes it in scientific notation (from 1e16, and below 1e-4)
            return _short_exponent(text)
        if value.is_integer() and magnitude >= GROUP_FROM:
            return f"{int(value):,}"
        return f"{value:,}" if magnitude >= GROUP_FROM else text
    if magnitude and (magnitude >= SCIENTIFIC_FROM or magnitude < SCIENTIFIC_BELOW):
        return _short_exponent(f"{value:.{significant}g}")
    if value.is_integer() and magnitude >= GROUP_FROM:
        return f"{int(value):,}"
    return f"{value:,.{significant}g}" if magnitude >= GROUP_FROM else f"{value:.{significant}g}"


def exact_cell(value: Any) -> str:
    """One tensor/array element exactly (the preview's float is already the shortest decimal for
    its dtype), in the forms ``format_number`` takes: ints grouped, floats as repr, "nan", pairs."""
    if isinstance(value, float):  # first: a card's elements are mostly floats
        return _short_exponent(repr(value))
    if isinstance(value, bool) or isinstance(value, int):
        return readable_number(value)
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, (int, float)) for v in value):
        real, imag = value
        sign = "-" if imag < 0 or (imag == 0 and math.copysign(1, imag) < 0) else "+"
        return f"{exact_cell(float(real))}{sign}{exact_cell(abs(float(imag)))}j"
    return str(value)


def exact_number(value: int | float) -> str:
    """The value exactly as Python's repr writes it (shown on hover and in raw mode)."""
    return repr(value)


def shape_text(shape: list[int] | tuple[int, ...]) -> str:
    """A shape as Python writes the tuple: ``(3, 2)``, a 1-D shape ``(3,)``, a 0-d one ``()``."""
    return "(" + ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"
