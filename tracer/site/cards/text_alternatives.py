"""Text alternatives for the pictures a page draws: heatmaps, storage (stride) diagrams, the memory chart.

Each function returns one plain sentence for a screen reader (a heatmap's alt, a diagram's label, a
chart's description): what is drawn, its size and range, and the pattern a sighted reader would see
first (a diagonal, a triangle, constant rows; the order elements lie in storage). Patterns are read
from the same numbers the picture is drawn from, so the sentence and the picture agree.
This module must not produce markup (the templates do) nor read or write files.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from tracer.site.cards.interface_strings import Catalogue, load


def _square_pattern(rows: list[list[float]]) -> str:
    """ "diagonal", "lower-triangular" or "upper-triangular" for a square block, else ""."""
    n = len(rows)
    if n < 2 or any(len(r) != n for r in rows):
        return ""
    above = [rows[i][j] for i in range(n) for j in range(i + 1, n)]
    below = [rows[i][j] for i in range(n) for j in range(i)]
    diagonal = [rows[i][i] for i in range(n)]

    def constant(values: list[float]) -> float | None:
        return values[0] if values and all(v == values[0] or (math.isnan(v) and math.isnan(values[0])) for v in values) else None

    fill_above, fill_below = constant(above), constant(below)
    if fill_above is not None and fill_below is not None and fill_above == fill_below and any(v != fill_above for v in diagonal):
        return "diagonal"
    if fill_above is not None and fill_above in (0.0, -math.inf) and fill_below != fill_above:
        return "lower-triangular"
    if fill_below is not None and fill_below in (0.0, -math.inf) and fill_above != fill_below:
        return "upper-triangular"
    return ""


def block_pattern(rows: Sequence[Sequence[float] | None]) -> str:
    """The pattern a 2-D block of numbers shows at a glance, in words ("" when none stands out).

    ``rows`` may hold None for an elided row; a block with gaps is a sample, so only its row and
    column patterns are named, never a diagonal or triangle it may only seem to have."""
    whole = [list(r) for r in rows if r is not None]
    if not whole or not whole[0]:
        return ""
    sampled = len(whole) != len(rows)
    if not sampled:
        shape = _square_pattern(whole)
        if shape:
            return shape
    width = min(len(r) for r in whole)
    if width > 1 and all(all(v == r[0] for v in r[:width]) for r in whole) and len({r[0] for r in whole}) > 1:
        return "constant rows"
    if len(whole) > 1 and all(all(r[c] == whole[0][c] for r in whole) for c in range(width)) and len(set(whole[0][:width])) > 1:
        return "constant columns"
    return ""


def heatmap_text(
    rows: int,
    cols: int,
    low: str,
    high: str,
    scale: str,
    pattern: str,
    sampled: bool,
    specials: Sequence[str] = (),
    pooled: str = "",
) -> str:
    """A heatmap's alt: its size, colour scale, range and pattern (``pooled``: the block size of a map of block means)."""
    parts = [
        f"heatmap of {rows} × {cols} {f'means of {pooled} blocks' if pooled else 'values'}{' (a sample)' if sampled else ''}"
        + (" in colours diverging around 0" if scale == "diverging" else "")
    ]
    if low or high:
        parts.append(f"from {low} to {high}")
    elif specials:
        parts.append("no finite values")
    if pattern:
        parts.append(pattern)
    if specials:
        parts.append("with " + " and ".join(specials) + " cells")
    return ", ".join(parts)


def storage_order(shape: Sequence[int], stride: Sequence[int]) -> str:
    """How a tensor's elements lie in its storage, in words."""
    dims = [(size, step) for size, step in zip(shape, stride) if size > 1]
    if not dims:
        return "a single element"
    if any(step == 0 for _size, step in dims):
        repeated = [k for k, (size, step) in enumerate(zip(shape, stride)) if size > 1 and step == 0]
        return f"broadcast: dimension {', '.join(map(str, repeated))} repeats the same cells (stride 0)"
    expected = 1
    row_major = True
    for size, step in reversed(dims):
        row_major = row_major and step == expected
        expected *= size
    if row_major:
        return "row-major (index order, last index fastest)"
    expected = 1
    column_major = True
    for size, step in dims:
        column_major = column_major and step == expected
        expected *= size
    if column_major and len(dims) > 1:
        return "column-major (first index fastest: a transposed view)"
    if sorted((abs(step) for _size, step in dims), reverse=True) == [abs(step) for _size, step in dims]:
        return "row-major with gaps between elements"
    return "permuted: strides out of order"


def stride_text(shape: Sequence[int], stride: Sequence[int], first_cell: int, last_cell: int, shown: int, numel: int) -> str:
    """A storage diagram's label: which cells are drawn, and the order the elements take in them."""
    count = f"{shown} of {numel} elements" if shown < numel else f"{numel} element{'s' if numel != 1 else ''}"
    return f"{count} in storage cells {first_cell}–{last_cell}, {storage_order(shape, stride)}"


def memory_text(
    label: str, peak: str, peak_step: int, start: str, end: str, steps: int, lines: int, words: Catalogue | None = None
) -> str:
    """The memory chart's description: its range, its peak and where it ends (in ``words``' language)."""
    w = words or load()
    facts = {"label": label, "steps": steps, "lines": lines, "start": start, "peak": peak, "peak_step": peak_step, "end": end}
    return w.text("memory.description_lines", **facts) if lines > 1 else w.text("memory.description", **facts)
