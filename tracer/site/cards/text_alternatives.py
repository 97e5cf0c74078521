"""Text alternatives for the pictures a page draws: heatmaps, storage (stride) diagrams, the memory chart.

Each function returns one plain sentence for a screen reader (a heatmap's alt, a diagram's label, a
chart's description): what is drawn, its size and range, and the pattern a sighted reader would see
first (a diagonal, a triangle, constant rows; the order elements lie in storage). Patterns are read
from the same numbers the picture is drawn from, so the sentence and the picture agree.
The drawings keep the facts (``alt``: these functions' arguments) and the templates ask for the
sentence in the course's language (``heatmap_alt``/``storage_alt`` of ``templates.template_env``), so a
drawing shared between steps or pages stays the same whatever the language.
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


def _pattern_words(pattern: str, w: Catalogue) -> str:
    """``block_pattern``'s name of a pattern in ``w``'s language."""
    words = {
        "diagonal": w.text("alt.pattern.diagonal"),
        "lower-triangular": w.text("alt.pattern.lower_triangular"),
        "upper-triangular": w.text("alt.pattern.upper_triangular"),
        "constant rows": w.text("alt.pattern.constant_rows"),
        "constant columns": w.text("alt.pattern.constant_columns"),
    }
    return words.get(pattern, pattern)


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
    words: Catalogue | None = None,
) -> str:
    """A heatmap's alt: its size, colour scale, range and pattern (``pooled``: the block size of a
    map of block means), in ``words``' language (English by default)."""
    w = words or load()
    cells = w.text("alt.heatmap.block_means", block=pooled) if pooled else w.text("alt.heatmap.values")
    parts = [
        w.text(
            "alt.heatmap.title",
            rows=rows,
            cols=cols,
            cells=cells,
            sample=w.text("alt.heatmap.sample") if sampled else "",
            scale=w.text("alt.heatmap.diverging") if scale == "diverging" else "",
        )
    ]
    if low or high:
        parts.append(w.text("alt.heatmap.range", low=low, high=high))
    elif specials:
        parts.append(w.text("alt.heatmap.no_finite"))
    if pattern:
        parts.append(_pattern_words(pattern, w))
    if specials:
        parts.append(w.text("alt.heatmap.special_cells", names=w.text("alt.and").join(specials)))
    return w.text("alt.separator").join(parts)


def storage_order(shape: Sequence[int], stride: Sequence[int], words: Catalogue | None = None) -> str:
    """How a tensor's elements lie in its storage, in words (``words``' language, English by default)."""
    w = words or load()
    dims = [(size, step) for size, step in zip(shape, stride) if size > 1]
    if not dims:
        return w.text("alt.order.single")
    if any(step == 0 for _size, step in dims):
        repeated = [k for k, (size, step) in enumerate(zip(shape, stride)) if size > 1 and step == 0]
        return w.text("alt.order.broadcast", dims=w.text("alt.list_separator").join(map(str, repeated)))
    expected = 1
    row_major = True
    for size, step in reversed(dims):
        row_major = row_major and step == expected
        expected *= size
    if row_major:
        return w.text("alt.order.row_major")
    expected = 1
    column_major = True
    for size, step in dims:
        column_major = column_major and step == expected
        expected *= size
    if column_major and len(dims) > 1:
        return w.text("alt.order.column_major")
    if sorted((abs(step) for _size, step in dims), reverse=True) == [abs(step) for _size, step in dims]:
        return w.text("alt.order.row_major_gaps")
    return w.text("alt.order.permuted")


def stride_text(
    shape: Sequence[int],
    stride: Sequence[int],
    first_cell: int,
    last_cell: int,
    shown: int,
    numel: int,
    words: Catalogue | None = None,
) -> str:
    """A storage diagram's label: which cells are drawn, and the order the elements take in them
    (in ``words``' language, English by default)."""
    w = words or load()
    order = storage_order(shape, stride, w)
    if shown < numel:
        return w.text("alt.storage.some", shown=shown, numel=numel, first=first_cell, last=last_cell, order=order)
    return w.text("alt.storage.all", count=numel, first=first_cell, last=last_cell, order=order)


def memory_text(
    label: str, peak: str, peak_step: int, start: str, end: str, steps: int, lines: int, words: Catalogue | None = None
) -> str:
    """The memory chart's description: its range, its peak and where it ends (in ``words``' language)."""
    w = words or load()
    facts = {"label": label, "steps": steps, "lines": lines, "start": start, "peak": peak, "peak_step": peak_step, "end": end}
    return w.text("memory.description_lines", **facts) if lines > 1 else w.text("memory.description", **facts)
