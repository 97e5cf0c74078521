"""Object addresses in default reprs, masked: the only hex in a captured text that changes per run.

CPython's default reprs name an object's address after `` at `` inside angle brackets
(``<Foo object at 0x7f3a…>``, ``<function f at 0x…>``, ``<weakref at 0x…; to 'Foo' at 0x…>``,
``<code object f at 0x…, file …>``). Only those are masked; any other hex in a string or in printed
output (``hex()`` of float bits, ``0xdeadbeef``, a bit-layout table) is the lecture's content and
is left as it is. This module must not touch paths or anything else in the text.
"""

from __future__ import annotations

import re

MASK = "0x…"
# " at 0x<hex>" ending where a default repr goes on: ">" closes it, "; " (weakref), ", " (code,
# frame), ": " (cell).
_ADDRESS = re.compile(r"(?<= at )0x[0-9a-fA-F]{4,}(?=[>;,:])")


def mask_addresses(text: str) -> str:
    """``text`` with the addresses of default reprs written ``0x…``; all other text unchanged."""
    if " at 0x" not in text or "<" not in text:
        return text
    return "\n".join(_mask_line(line) if " at 0x" in line else line for line in text.split("\n"))


def _mask_line(line: str) -> str:
    first = line.find("<")
    if first < 0:
        return line
    # Only addresses after the line's first "<": a repr opens with one.
    head, tail = line[:first], line[first:]
    return head + _ADDRESS.sub(MASK, tail)
