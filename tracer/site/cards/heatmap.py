"""Heatmaps of 2-D tensor previews, drawn at build time as small PNG images (no JavaScript needed).

``heatmap(block)`` takes one 2-D block of a value preview (rows of numbers, with the string "…" for
an elided row or column, exactly as the capture side records it) and returns what the card shows:
the PNG bytes and its file name (a content hash, so equal heatmaps share one file), the colour scale
(``"diverging"``, centred on 0, when any value is negative; ``"sequential"`` otherwise), the legend's
min and max, whether the block is a sample of a bigger tensor (an elided run), which real index
each drawn row and column stands for, whether NaN/±Inf cells are present, and the facts its text
alternative words (``alt``, ``text_alternatives.heatmap_text``'s arguments). Each cell is a square
of ``cell_px`` pixels; NaN and ±Inf get their own marks; elided runs are a transparent gap. The
palettes are this module's own colour stops (blue–orange diverging and a yellow–teal–indigo
sequential ramp, both readable with the common colour-vision deficiencies); site.css draws the
legend bars from the same stops (``tests/site/cards/test_heatmap.py`` checks they agree).
The work is bounded by the preview (at most the recorded elements), never by the tensor's ``numel``.
This module must not produce markup (templates/cards.html.j2 does) nor read or write files.
"""

from __future__ import annotations

import base64
import hashlib
import math
import struct
import zlib
from typing import Any

from tracer.contract.trace_format import HEATMAP_CODE_NAN as CODE_NAN, HEATMAP_CODE_NEG_INF as CODE_NEG_INF
from tracer.contract.trace_format import HEATMAP_CODE_POS_INF as CODE_POS_INF, HEATMAP_CODE_TOP as CODE_TOP
from tracer.site.cards.units import format_number
from tracer.site.cards.text_alternatives import block_pattern

ELLIPSIS = "…"
DIVERGING_STOPS = (
    (-1.0, (33, 102, 172)),
    (-0.5, (122, 166, 207)),
    (0.0, (247, 245, 240)),
    (0.5, (240, 163, 94)),
    (1.0, (179, 79, 8)),
)
SEQUENTIAL_STOPS = ((0.0, (252, 246, 200)), (0.35, (130, 205, 170)), (0.7, (42, 130, 160)), (1.0, (40, 38, 100)))
NAN_RGB = (150, 150, 150)  # grey with a dark diagonal
INF_RGB = (0, 0, 0)  # black with a white "+" (+Inf) or "-" (-Inf)
MARK_RGB = (255, 255, 255)
TARGET_PX = 256  # a heatmap's longer side, about (a 64 x 64 attention map: 4 px cells)
MIN_CELL_PX, MAX_CELL_PX = 4, 16


def _number(cell: Any) -> float | None:
    """A cell as a float (bools as 0/1, "nan"/"inf"/"-inf" strings as such); None if not a number."""
    if isinstance(cell, bool):
        return float(cell)
    if isinstance(cell, (int, float)):
        return float(cell)
    if cell in ("nan", "inf", "-inf"):
        return float(cell)
    return None


def _runs(indices: list[int | None]) -> str:
    """Real indices of drawn rows/columns as ranges, ``0-9,,54-63`` (an empty item is a gap)."""
    parts: list[str] = []
    run: list[int] = []

    def flush() -> None:
        if run:
            parts.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
            run.clear()

    for index in indices:
        if index is None:
            flush()
            parts.append("")
        elif run and index != run[-1] + 1:
            flush()
            run.append(index)
        else:
            run.append(index)
    flush()
    return ",".join(parts)


def colour(t: float, stops: tuple[tuple[float, tuple[int, int, int]], ...]) -> tuple[int, int, int]:
    """The colour at ``t`` (clamped to the stops' range), linear between neighbouring stops."""
    t = min(max(t, stops[0][0]), stops[-1][0])
    for t0, t1, c0, steps in _segments(stops):
        if t <= t1:
            f = 0.0 if t1 == t0 else (t - t0) / (t1 - t0)
            return (round(c0[0] + steps[0] * f), round(c0[1] + steps[1] * f), round(c0[2] + steps[2] * f))
    return stops[-1][1]


def _segments(
    stops: tuple[tuple[float, tuple[int, int, int]], ...],
) -> tuple[tuple[float, float, tuple[int, int, int], tuple[int, int, int]], ...]:
    """Each pair of neighbouring stops as (t0, t1, colour at t0, colour change to t1), worked out
    once per palette (kept by identity: hashing the stops would cost what it saves): a heatmap
    looks up one colour per cell, and a long lecture draws thousands of them."""
    known = _SEGMENTS.get(id(stops))
    if known is None or known[0] is not stops:
        segments = tuple(
            (t0, t1, c0, (c1[0] - c0[0], c1[1] - c0[1], c1[2] - c0[2])) for (t0, c0), (t1, c1) in zip(stops, stops[1:])
        )
        known = _SEGMENTS[id(stops)] = (stops, segments)
    return known[1]


_SEGMENTS: dict[int, tuple[Any, Any]] = {}  # id(stops) -> (stops, _segments(stops))

# Hex digits of a heatmap's SHA-1 in its file name. Every card names its map, so the name is short;
# but all of a site's maps share one folder, and two different maps under one name would show one of
# them on both cards. 48 bits make that about 2 in 100,000 for a site of 100,000 different maps (32
# bits would make it 1 in 90 for the 9,800 of one 100,005-step lecture).
NAME_HEX_DIGITS = 12


def file_name(png: bytes) -> str:
    """A heatmap's file name: its content's hash, so equal maps share one file."""
    return hashlib.sha1(png).hexdigest()[:NAME_HEX_DIGITS] + ".png"


def heatmap(block: Any, shape: tuple[int, int] | None = None) -> dict[str, Any] | None:
    """The heatmap of one 2-D preview block (see the module docstring), or None when there is nothing
    to draw: not a 2-D block of real numbers (complex values are pairs), or every value the same."""
    if not isinstance(block, list) or not block:
        return None
    rows: list[list[float] | None] = []  # None: an elided row
    integral = True  # an integer (or bool) tensor: its legend shows integers
    for row in block:
        if row == ELLIPSIS:
            rows.append(None)
            continue
        if not isinstance(row, list):
            return None
        if row and all(type(cell) is float for cell in row):  # a float tensor's row: its cells as they are
            rows.append(list(row))
            integral = False
            continue
        cells: list[float] = []
        for cell in row:
            if cell == ELLIPSIS:
                cells.append(_GAP)
                continue
            number = _number(cell)
            if number is None:
                return None
            integral = integral and not isinstance(cell, (float, str))
            cells.append(number)
        rows.append(cells)
    width = max((len(r) for r in rows if r is not None), default=0)
    if width == 0:
        return None
    drawn = [v for r in rows if r is not None for v in r if v is not _GAP]
    finite = [v for v in drawn if math.isfinite(v)]
    special = {
        "nan" if math.isnan(v) else "+inf" if v > 0 else "-inf"
        for v in (drawn if len(finite) < len(drawn) else ())
        if not math.isfinite(v)
    }
    lo, hi = (min(finite), max(finite)) if finite else (0.0, 0.0)
    if lo == hi and not special:
        return None  # a constant block: a flat colour says nothing the grid does not
    diverging = lo < 0
    limit = max(abs(lo), abs(hi)) or 1.0
    cell_px = max(MIN_CELL_PX, min(MAX_CELL_PX, TARGET_PX // max(len(rows), width)))
    png = _png(
        rows,
        width,
        cell_px,
        lambda v: (
            colour(v / limit, DIVERGING_STOPS)
            if diverging
            else colour((v - lo) / (hi - lo) if hi > lo else 0.5, SEQUENTIAL_STOPS)
        ),
    )
    sampled = any(r is None for r in rows) or any(v is _GAP for r in rows if r is not None for v in r)
    view: dict[str, Any] = {
        "name": file_name(png),
        "png": png,
        "width": width * cell_px,
        "height": len(rows) * cell_px,
        "cell_px": cell_px,
        "scale": "diverging" if diverging else "sequential",
        "min": (format_number(int(lo)) if integral else format_number(lo)) if finite else "",
        "max": (format_number(int(hi)) if integral else format_number(hi)) if finite else "",
        "sampled": sampled,
        "nan": "nan" in special,
        "inf": "+inf" in special or "-inf" in special,
        "row_index": "",
        "col_index": "",
        "whole": False,
        "block": None,
        "max_abs": None,
        "no_finite": not finite,
    }
    low, high = view["min"], view["max"]
    view["alt"] = {  # heatmap_text's arguments: the template words them in the course's language
        "rows": shape[0] if shape else len(rows),
        "cols": shape[1] if shape else width,
        "low": low,
        "high": high,
        "scale": view["scale"],
        "pattern": "" if sampled else block_pattern(rows),
        "sampled": sampled,
        "specials": [name for name, present in (("NaN", view["nan"]), ("±Inf", view["inf"])) if present],
    }
    if sampled and shape is not None:
        view["row_index"] = _runs(_positions([r is None for r in rows], shape[0]))
        gaps = next((r for r in rows if r is not None and _GAP in r), rows[0] or [])
        view["col_index"] = _runs(_positions([v is _GAP for v in gaps] + [False] * (width - len(gaps)), shape[1]))
    return view


def _decoded(record: dict[str, Any]) -> list[list[float]] | None:
    """The cells of a capture-side heatmap record (``trace_format.Heatmap``) as rows of floats:
    each code back on [cell_min, cell_max] (to 1/252 of that range), NaN and ±Inf as such."""
    try:
        raw = zlib.decompress(base64.b64decode(record["codes"]))
        rows, cols = int(record["rows"]), int(record["cols"])
        lo, hi = float(record["cell_min"]), float(record["cell_max"])
    except (KeyError, TypeError, ValueError, zlib.error):
        return None
    if len(raw) != rows * cols or not (0 < rows <= 128 and 0 < cols <= 128):
        return None
    special = {CODE_NAN: math.nan, CODE_POS_INF: math.inf, CODE_NEG_INF: -math.inf}
    # a byte has 256 values: each worked out once, not once per cell (a map has up to 16,384)
    levels = [special[code] if code in special else lo + (hi - lo) * code / CODE_TOP for code in range(256)]
    values = [levels[code] for code in raw]
    return [values[r * cols : (r + 1) * cols] for r in range(rows)]


def whole_heatmap(record: dict[str, Any], integral: bool = False) -> dict[str, Any] | None:
    """The heatmap of a whole 2-D tensor from the capture side's record (``tracer.capture.heatmap_codes``):
    one cell per element, or block means; the legend's min and max are the whole tensor's, and a
    pooled map says its block size and the whole tensor's max |x| (a mean hides a spike). None when
    the record cannot be read or every value is the same."""
    rows = _decoded(record)
    if rows is None:
        return None
    lo, hi = _number(record.get("min")), _number(record.get("max"))
    finite = lo is not None and hi is not None and math.isfinite(lo) and math.isfinite(hi)
    special = any(not math.isfinite(v) for row in rows for v in row)
    has_nan = special and any(math.isnan(v) for row in rows for v in row)
    has_inf = special and any(math.isinf(v) for row in rows for v in row)
    if not finite and not special:
        return None
    lo, hi = (lo, hi) if finite else (0.0, 0.0)
    assert lo is not None and hi is not None
    if lo == hi and not special:
        return None
    diverging = lo < 0
    limit = max(abs(lo), abs(hi)) or 1.0
    cols = len(rows[0])
    cell_px = max(1, min(MAX_CELL_PX, TARGET_PX // max(len(rows), cols)))
    cells: list[list[float] | None] = list(rows)
    png = _png(
        cells,
        cols,
        cell_px,
        lambda v: (
            colour(v / limit, DIVERGING_STOPS)
            if diverging
            else colour((v - lo) / (hi - lo) if hi > lo else 0.5, SEQUENTIAL_STOPS)
        ),
    )
    block = record.get("block")
    text = (lambda v: format_number(int(v))) if integral else format_number
    pooled = f"{block[0]}×{block[1]}" if isinstance(block, list) and len(block) == 2 else ""
    specials = [
        name
        for name, present in (
            ("NaN", has_nan),
            ("±Inf", has_inf),
        )
        if present
    ]
    return {
        "alt": {  # heatmap_text's arguments: the template words them in the course's language
            "rows": len(rows),
            "cols": cols,
            "low": text(lo) if finite else "",
            "high": text(hi) if finite else "",
            "scale": "diverging" if diverging else "sequential",
            "pattern": "" if pooled or record.get("sampled") else block_pattern(rows),
            "sampled": bool(record.get("sampled")),
            "specials": specials,
            "pooled": pooled,
        },
        "name": file_name(png),
        "png": png,
        "width": cols * cell_px,
        "height": len(rows) * cell_px,
        "cell_px": cell_px,
        "scale": "diverging" if diverging else "sequential",
        "min": text(lo) if finite else "",
        "max": text(hi) if finite else "",
        "sampled": bool(record.get("sampled")),
        "nan": has_nan,
        "inf": has_inf,
        "row_index": "",
        "col_index": "",
        "whole": True,
        "block": f"{block[0]}×{block[1]}" if isinstance(block, list) and len(block) == 2 else None,
        "max_abs": format_number(_number(record.get("max_abs")) or 0.0) if block and finite else None,
        "no_finite": not finite,
    }


class _Gap(float):
    """The elided-run marker inside a row (a distinct object, compared with ``is``)."""


_GAP = _Gap("nan")


def _positions(is_gap: list[bool], size: int) -> list[int | None]:
    """Drawn position -> real index: before the gap counts from 0, after it from the end."""
    out: list[int | None] = []
    if True not in is_gap:
        return list(range(len(is_gap)))
    cut = is_gap.index(True)
    after = len(is_gap) - cut - 1
    for k, gap in enumerate(is_gap):
        out.append(None if gap else k if k < cut else size - after + (k - cut - 1))
    return out


def _cell_rows(rgb: tuple[int, int, int], value: float, cell_px: int) -> list[bytes]:
    """The ``cell_px`` pixel rows (RGBA) of one cell, with a mark for NaN and ±Inf when big enough."""
    base = bytes((*rgb, 255))
    plain = base * cell_px
    if math.isfinite(value) or cell_px < 5:
        return [plain] * cell_px
    mark = bytes((*MARK_RGB, 255)) if not math.isnan(value) else bytes((40, 40, 40, 255))
    mid = cell_px // 2
    rows = []
    for y in range(cell_px):
        pixels = [base] * cell_px
        if math.isnan(value):
            pixels[y] = mark  # a diagonal
        elif y == mid:
            pixels = [base] + [mark] * (cell_px - 2) + [base]  # the bar of "+" and "-"
        elif value > 0 and 0 < y < cell_px - 1:
            pixels[mid] = mark  # the upright of "+"
        rows.append(b"".join(pixels))
    return rows


def _unmarked_row(row: list[float], clear: bytes, cell_px: int, paint: Any, painted: dict[float, bytes]) -> list[bytes] | None:
    """One pixel row of each cell of ``row`` (``painted`` remembers each value's), or None when a
    cell is NaN or ±Inf: its mark makes the cell's pixel rows differ."""
    pieces = []
    for value in row:
        if value is _GAP:
            pieces.append(clear)
            continue
        piece = painted.get(value)
        if piece is None:
            if not math.isfinite(value):
                return None
            piece = painted[value] = bytes((*paint(value), 255)) * cell_px
        pieces.append(piece)
    return pieces


def _png(rows: list[list[float] | None], width: int, cell_px: int, paint: Any) -> bytes:
    """RGBA PNG: each cell a ``cell_px`` square; gaps (elided runs) transparent."""
    clear = bytes(4 * cell_px)
    raw = bytearray()
    # value -> one pixel row of its cell: each value painted once (a whole tensor's map has at most
    # 253 levels over up to 16,384 cells); equal values, 0.0 and -0.0 too, are painted alike
    painted: dict[float, bytes] = {}
    for row in rows:
        if row is None:
            line = b"\x00" + clear * width
            raw += line * cell_px
            continue
        pieces = _unmarked_row(row, clear, cell_px, paint, painted)
        if pieces is not None:
            # no mark: every pixel row of the cells is the same, built once and repeated
            raw += (b"\x00" + b"".join(pieces) + clear * (width - len(row))) * cell_px
            continue
        cells: list[list[bytes]] = []
        for value in row:
            if value is _GAP:
                cells.append([clear] * cell_px)
            elif math.isnan(value):
                cells.append(_cell_rows(NAN_RGB, value, cell_px))
            elif math.isinf(value):
                cells.append(_cell_rows(INF_RGB, value, cell_px))
            else:
                cells.append(_cell_rows(paint(value), value, cell_px))
        cells.extend([[clear] * cell_px] * (width - len(row)))
        for y in range(cell_px):
            raw += b"\x00" + b"".join(cell[y] for cell in cells)
    return _png_bytes(width * cell_px, len(rows) * cell_px, bytes(raw))


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def _png_bytes(width_px: int, height_px: int, raw: bytes) -> bytes:
    header = struct.pack(">IIBBBBB", width_px, height_px, 8, 6, 0, 0, 0)  # 8-bit RGBA, no interlace
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(raw, 9)) + _chunk(b"IEND", b"")
