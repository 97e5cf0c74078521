"""Geometry of the stride diagram: where each element of a tensor lives in its storage.

Given a tensor's shape, stride, storage offset and storage size (in elements), compute plain data
for the template to draw: a strip of storage cells (wrapped into rows) in which the cells holding
the tensor's elements carry the element's position in row-major index order (0, 1, 2, ...), the
index formula with this tensor's strides (``offset = 0 + i·1 + j·3``), and for small 1-D/2-D
tensors a logical grid giving each element's storage cell. This module must not produce markup:
the SVG is drawn by ``site/templates/cards.html.j2`` from the numbers computed here.

A diagram is drawn with a handful of SVG elements whatever its size (a long lecture shows hundreds):
the cells as a few paths (runs of plain and of highlighted cells, and their inner walls) and, per row of cells, one ``<text>``
of labels and one of storage indices whose characters are placed one by one (``x`` lists), rather
than a group of four elements per cell.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from typing import Any


INDEX_LETTERS = "ijklmnpqrs"
CELLS_PER_ROW = 16
CELL_WIDTH = 34
CELL_HEIGHT = 26
ROW_GAP = 18  # room under each row of cells for the storage index
LABEL_ADVANCE = 6.6  # width of one character of the 11px monospace cell labels
INDEX_ADVANCE = 5.4  # and of the 9px storage indices
MAX_ELEMENTS = 256  # elements placed on the strip; larger tensors show their first ones
MAX_CELLS = 96  # storage cells drawn; a longer span is cut with a marker


def storage_index(index: tuple[int, ...], stride: list[int], storage_offset: int) -> int:
    """The storage cell of the element at ``index``: offset + sum(index[d] * stride[d])."""
    return storage_offset + sum(i * s for i, s in zip(index, stride))


def index_formula(stride: list[int], storage_offset: int, dim_names: list[str] | None = None) -> str:
    """``offset = 0 + i·1 + j·3`` for stride (1, 3); dims of size-independent stride 0 are kept."""
    letters = [INDEX_LETTERS[d] if d < len(INDEX_LETTERS) else f"i{d}" for d in range(len(stride))]
    terms = [str(storage_offset)] + [f"{letter}·{s}" for letter, s in zip(letters, stride)]
    formula = "offset = " + " + ".join(terms)
    if dim_names and len(dim_names) == len(stride):
        formula += "   (" + ", ".join(f"{letter}: {name}" for letter, name in zip(letters, dim_names)) + ")"
    return formula


def first_indices(shape: list[int], limit: int) -> Iterator[tuple[int, ...]]:
    """The first ``limit`` index tuples of ``shape`` in row-major order. Work and memory grow with
    ``limit`` and the rank only (``itertools.product`` would first copy every dimension's range: a
    100-million-element dimension is gigabytes)."""
    if limit <= 0 or any(n <= 0 for n in shape):
        return
    index = [0] * len(shape)
    for _ in range(limit):
        yield tuple(index)
        for d in range(len(shape) - 1, -1, -1):  # the odometer: the last dimension turns fastest
            index[d] += 1
            if index[d] < shape[d]:
                break
            index[d] = 0
        else:
            return  # every element given


def element_placements(
    shape: list[int], stride: list[int], storage_offset: int, limit: int = MAX_ELEMENTS
) -> list[tuple[int, tuple[int, ...], int]]:
    """(row-major position, index tuple, storage cell) for the first ``limit`` elements."""
    return [
        (position, index, storage_index(index, stride, storage_offset))
        for position, index in enumerate(first_indices(shape, limit))
    ]


def _label(positions: list[int]) -> str:
    # Broadcast views (stride 0) put several elements on one cell; keep the label short.
    if len(positions) <= 2:
        return ",".join(str(p) for p in positions)
    return f"{positions[0]},…"


def stride_diagram(
    shape: list[int], stride: list[int], storage_offset: int, storage_numel: int, dim_names: list[str] | None = None
) -> dict[str, Any] | None:
    """Plain data for the diagram of one tensor, or None when it has no elements to show.

    ``cells`` are the drawn storage cells in storage order, each ``{"index", "label", "highlighted",
    "x", "y"}``; ``width``/``height`` size the SVG. The drawn window is the whole storage when it is
    short, else the span the shown elements occupy, cut at MAX_CELLS (``cut_before``/``cut_after``).
    The result is shared between calls with the same layout (a loop's tensors keep theirs from step
    to step): read it, never change it.
    """
    names = tuple(dim_names) if dim_names is not None else None
    return _diagram(tuple(shape), tuple(stride), storage_offset, storage_numel, names)


@functools.lru_cache(maxsize=4096)
def _diagram(
    shape_key: tuple[int, ...],
    stride_key: tuple[int, ...],
    storage_offset: int,
    storage_numel: int,
    names: tuple[str, ...] | None,
) -> dict[str, Any] | None:
    shape, stride = list(shape_key), list(stride_key)
    dim_names = list(names) if names is not None else None
    numel = math.prod(shape)
    if numel == 0 or len(stride) != len(shape):
        return None
    placements = element_placements(shape, stride, storage_offset)
    positions_by_cell: dict[int, list[int]] = {}
    for position, _index, cell in placements:
        positions_by_cell.setdefault(cell, []).append(position)
    lo, hi = min(positions_by_cell), max(positions_by_cell)
    if storage_numel <= MAX_CELLS and lo >= 0 and hi < storage_numel:
        start, stop = 0, storage_numel
    else:
        start, stop = lo, min(hi + 1, lo + MAX_CELLS)
    cells = []
    for k, cell in enumerate(range(start, stop)):
        positions = positions_by_cell.get(cell, [])
        row, col = divmod(k, CELLS_PER_ROW)
        cells.append(
            {
                "index": cell,
                "label": _label(positions),
                "positions": positions,
                "highlighted": bool(positions),
                "x": col * CELL_WIDTH,
                "y": row * (CELL_HEIGHT + ROW_GAP),
            }
        )
    rows = math.ceil(len(cells) / CELLS_PER_ROW)
    grid = logical_grid(shape, stride, storage_offset)  # shown only when it says more than the strip
    return {
        "cells": cells,
        "paths": cell_paths(cells),
        "text_rows": text_rows(cells),
        "cell_width": CELL_WIDTH,
        "cell_height": CELL_HEIGHT,
        "width": min(len(cells), CELLS_PER_ROW) * CELL_WIDTH,
        "height": rows * (CELL_HEIGHT + ROW_GAP),
        "formula": index_formula(stride, storage_offset, dim_names),
        # stride_text's arguments: the template words them in the course's language
        "alt": {
            "shape": shape_key,
            "stride": stride_key,
            "first_cell": start,
            "last_cell": stop - 1,
            "shown": len(placements),
            "numel": numel,
        },
        "cut_before": start > 0,
        "cut_after": stop < storage_numel,
        "elements_shown": len(placements),
        "numel": numel,
        # The grid is built only for small tensors (logical_grid returns None otherwise).
        "grid": grid if grid is not None and grid != _row_major_grid(shape, storage_offset) else None,
    }


def _row_major_grid(shape: list[int], storage_offset: int) -> list[list[int]] | None:
    contiguous = list(range(storage_offset, storage_offset + math.prod(shape)))
    width = shape[-1] if shape else 1
    return [contiguous[k : k + width] for k in range(0, len(contiguous), width)] if contiguous else None


def logical_grid(shape: list[int], stride: list[int], storage_offset: int, max_elements: int = 64) -> list[list[int]] | None:
    """For a small 1-D or 2-D tensor: rows of the storage cell each element lives in."""
    if len(shape) not in (1, 2) or math.prod(shape) > max_elements or math.prod(shape) == 0:
        return None
    if len(shape) == 1:
        return [[storage_index((i,), stride, storage_offset) for i in range(shape[0])]]
    return [[storage_index((i, j), stride, storage_offset) for j in range(shape[1])] for i in range(shape[0])]


def cell_paths(cells: list[dict[str, Any]]) -> dict[str, str]:
    """SVG path data for the cells, run by run: each run of neighbouring cells alike (highlighted or
    not) is one box (``plain``/``highlighted``) plus its inner walls (``plain_walls``/
    ``highlighted_walls``: one line per run, which site.css dashes into a 1px wall per cell)."""
    paths: dict[str, list[str]] = {"plain": [], "highlighted": [], "plain_walls": [], "highlighted_walls": []}
    runs: list[list[dict[str, Any]]] = []
    for cell in cells:
        last = runs[-1][-1] if runs else None
        if last and last["y"] == cell["y"] and last["highlighted"] == cell["highlighted"]:
            runs[-1].append(cell)
        else:
            runs.append([cell])
    for run in runs:
        kind = "highlighted" if run[0]["highlighted"] else "plain"
        x, y, width = run[0]["x"], run[0]["y"], len(run) * CELL_WIDTH
        paths[kind].append(f"M{x} {y}h{width}v{CELL_HEIGHT}h-{width}z")
        if len(run) > 1:
            paths[kind + "_walls"].append(f"M{x + CELL_WIDTH} {y + CELL_HEIGHT // 2}h{width - CELL_WIDTH}")
    return {kind: "".join(parts) for kind, parts in paths.items()}


def _placed(items: list[tuple[float, str]], advance: float) -> tuple[str, str]:
    """Characters of several centred strings as one text run: (x of each character, the characters)."""
    xs: list[str] = []
    chars: list[str] = []
    for centre, text in items:
        for k, char in enumerate(text):
            xs.append(str(round(centre + (k - (len(text) - 1) / 2) * advance)))  # whole pixels are enough
            chars.append(char)
    return " ".join(xs), "".join(chars)


def text_rows(cells: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per row of cells: the labels' and the storage indices' character positions and text."""
    rows: dict[int, list[dict[str, Any]]] = {}
    for cell in cells:
        rows.setdefault(cell["y"], []).append(cell)
    out = []
    for y, row in rows.items():
        centre = CELL_WIDTH // 2
        label_x, labels = _placed([(c["x"] + centre, c["label"]) for c in row if c["label"]], LABEL_ADVANCE)
        index_x, indices = _placed([(c["x"] + centre, str(c["index"])) for c in row], INDEX_ADVANCE)
        out.append(
            {
                "label_y": y + CELL_HEIGHT // 2 + 4,
                "label_x": label_x,
                "labels": labels,
                "index_y": y + CELL_HEIGHT + 12,
                "index_x": index_x,
                "indices": indices,
            }
        )
    return out
