"""A tensor's or array's preview as ruled grids of numbers, with heatmaps and a statistics row.

Plain views for the tensor-like value cards (``kinds/tensors.py``) and the storage drawing's index
grid: text laid out for a monospace grid, exact copies of rounded cells, statistics as rows. This
module must not render markup (``cards.html.j2`` does) nor know which kind of value it draws.
"""

from __future__ import annotations

from typing import Any

from tracer.contract.trace_settings import DEFAULT_PREVIEW_ROWS
from tracer.site.cards.heatmap import heatmap, whole_heatmap
from tracer.site.cards.units import exact_cell, format_number, readable_number, rounded_float

EXACT_CELL_CHARS = 8  # a grid whose every element is this short shows them all exactly; else 4 digits
# A rounded grid with at most this many rounded cells marks each with its exact value (a hover);
# a bigger one carries the exact grid only (shown on demand, and by raw mode): per-cell markup on
# every 400-element preview would double a long lecture's page.
MARKED_CELLS = 32


def values_tables(values: Any, shape: list[int]) -> list[dict[str, Any]]:
    """A tensor/array preview as tables: ``[{"label": "[0, :, :]" or None, "rows": [[element]]}]``
    (elements as the preview holds them; ``number_grid`` turns rows into text).

    0-d and 1-d previews give one single-row table; 2-d one table; higher ranks one table per
    leading index, labelled. An elided run (the string "…") stays visible as a "…" cell, row or table.
    """
    if len(shape) == 0:
        return [{"label": None, "rows": [[values]]}]
    if len(shape) == 1:
        return [{"label": None, "rows": [list(values)]}]
    if len(shape) == 2:
        rows = [["…"] if row == "…" else list(row) for row in values]
        return [{"label": None, "rows": rows, "block": values}]
    tables: list[dict[str, Any]] = []

    def walk(block: Any, prefix: list[str], depth: int) -> None:
        if depth == len(shape) - 2:
            label = "[" + ", ".join(prefix + [":", ":"]) + "]"
            tables.extend({**t, "label": label} for t in values_tables(block, shape[-2:]))
            return
        index = 0
        for sub in block:
            if sub == "…":
                tables.append({"label": "[" + ", ".join(prefix + ["…"]) + "]", "rows": [["…"]]})
                # the next preview entries come from the end of this dimension
                index = shape[depth] - (len(block) - block.index("…") - 1)
                continue
            walk(sub, prefix + [str(index)], depth + 1)
            index += 1

    walk(values, [], 0)
    return tables


def grid_view(rows: list[list[Any]]) -> dict[str, Any]:
    """A table of short cells as one block of text: every cell a space and the value right-aligned
    in the widest value's width, so site.css can rule the columns (a monospace ``ch`` grid, ``width``
    characters a column) without an element per cell. An elision row (``["…"]``) stays one cell."""
    cells = [[str(cell) for cell in row] for row in rows]
    width = max((len(cell) for row in cells for cell in row), default=1)
    text = "\n".join("".join([" " + cell.rjust(width) for cell in row]) for row in cells)
    return {"text": text, "width": width + 1, "cells": None, "exact": None, "rounded": False, "tabs": False}


def tab_grid_view(rows: list[list[str]]) -> dict[str, Any]:
    """``grid_view`` for a big rounded grid, in fewer bytes: cells separated by a tab (site.css sets
    the tab stops ``width`` characters apart), each left-aligned after a space, and after a second
    one when the grid has negative cells and this one is not, so signs line up. The padding this
    saves is a fifth of a long lecture's page."""
    signed = any(cell.startswith("-") for row in rows for cell in row)
    cells = [[(" " if signed and not cell.startswith("-") else "") + cell for cell in row] for row in rows]
    width = max((len(cell) for row in cells for cell in row), default=1)
    # the widest cell plus its space stays short of the next tab stop, so every tab moves one column
    text = "\n".join("\t".join(" " + cell for cell in row) for row in cells)
    return {"text": text, "width": width + 2, "cells": None, "exact": None, "rounded": False, "tabs": True}


def compact_grid_view(rows: list[list[str]]) -> dict[str, Any]:
    """The shorter of ``grid_view`` and ``tab_grid_view``: tabs win when cell widths vary (random
    floats), padding when they do not (a grid of ``0.0``)."""
    padded, tabbed = grid_view(rows), tab_grid_view(rows)
    return tabbed if len(tabbed["text"]) < len(padded["text"]) else padded


def exact_cells_text(rows: list[list[str]]) -> str:
    """A grid's exact cells as compact text (tab between cells, newline between rows), laid out as
    the grid is, for the viewer's per-cell hover when the page carries no exact copy."""
    return "\n".join("\t".join(row) for row in rows)


def number_grid(rows: list[list[Any]]) -> dict[str, Any]:
    """A table of elements as a ruled grid (``grid_view``). When every element's exact text is at
    most ``EXACT_CELL_CHARS`` long the grid shows them exactly; otherwise elements are rounded to 4
    significant digits (``rounded``), ``exact`` is the whole grid exactly (shown on demand and in raw
    mode), and when at most ``MARKED_CELLS`` cells were rounded each carries its exact text
    (``cells``: per row, per cell ``(padding, text, exact or None)``, for the hover title)."""
    exact = [["…"] if row == ["…"] else [exact_cell(v) for v in row] for row in rows]
    if max((len(cell) for row in exact for cell in row), default=0) <= EXACT_CELL_CHARS:
        return compact_grid_view(exact)
    shown = [
        ["…"] if row == ["…"] else [rounded_float(v, e) if type(v) is float else format_number(v) for v, e in zip(row, exact_row)]
        for row, exact_row in zip(rows, exact)
    ]
    view = grid_view(shown)
    pad = view["width"]
    cells = [
        [(" " * (pad - len(text)), text, whole if whole != text else None) for text, whole in zip(row, exact_row)]
        for row, exact_row in zip(shown, exact)
    ]
    marked = sum(1 for row in cells for _pad, _text, whole in row if whole)
    if not marked:
        return view
    if marked <= MARKED_CELLS:
        return {**view, "rounded": True, "cells": cells, "exact": grid_view(exact)}
    return {**compact_grid_view(shown), "rounded": True, "exact": grid_view(exact), "exact_cells": exact_cells_text(exact)}


def stats_number(value: Any, rounded: bool) -> tuple[str, str | None]:
    """(text, exact text or None): min and max are elements, shown exactly; mean and std are
    computed in float64 and shown to 6 significant digits with their exact value on hover."""
    if not isinstance(value, float):
        return format_number(value), None
    exact = readable_number(value)
    text = readable_number(value, significant=6) if rounded and len(exact) > 10 else exact
    return text, (exact if exact != text else None)


def stats_view(stats: dict[str, Any] | None) -> list[tuple[str, str, str | None]]:
    """The statistics row: ``(label, text, exact or None)``. When NaN or ±Inf are present, the
    mean and std of every value (NaN when any is NaN, as torch says) come first, then the four of
    the finite values alone under "of finite values" ("no finite values" when there are none), then
    the counts. Statistics of a sample say so first, with the sample's size."""
    if not stats:
        return []
    rows: list[tuple[str, str, str | None]] = []
    if stats.get("sampled"):
        size = stats.get("sample_count")
        rows.append(("from a sample", f"of {size:,}:" if isinstance(size, int) else "(every element not read):", None))
    finite = stats.get("finite")
    special = bool(stats.get("nan_count") or stats.get("inf_count"))
    source: dict[str, Any] | None
    if finite is not None:
        rows += [(key, *stats_number(stats[key], True)) for key in ("mean", "std") if key in stats]
        total = finite.get("count", 0) + stats.get("nan_count", 0) + stats.get("inf_count", 0)
        if finite.get("count", 0):
            rows.append(("of finite values", f"{finite.get('count', 0):,} of {total:,}:", None))
            source = finite
        else:
            rows.append(("no finite values", "", None))
            source = None
    else:
        if special:  # traces before the "finite" record: their four figures left NaN and ±Inf out
            rows.append(("of finite values", ":", None))
        source = stats
    if source is not None:
        rows += [
            (key, *stats_number(source[key], key in ("mean", "std")))
            for key in ("min", "max", "mean", "std")
            if source.get(key) is not None
        ]
    for key in ("nan_count", "inf_count"):
        if stats.get(key):
            rows.append((key.replace("_count", "s"), f"{stats[key]:,}", None))
    return rows


def fold_grid(grid: dict[str, Any], rows: int) -> tuple[dict[str, Any], dict[str, Any] | None, int]:
    """A grid cut after its first ``rows`` rows: (the rows shown, the rest or None, how many rows the
    rest holds, an elision row "…" not counted). Both parts keep the whole grid's column width, so
    the rest lines up under the rows shown when unfolded; the exact copy stays with the first part
    (it is the whole grid's, as the per-cell hover reads it: read.js counts the rest's rows on)."""
    if grid.get("cells") is not None:
        cells = grid["cells"]
        if len(cells) <= rows:
            return grid, None, 0
        head, rest = cells[:rows], cells[rows:]
        counted = sum(1 for row in rest if not (len(row) == 1 and row[0][1] == "…"))
        return {**grid, "cells": head}, {**grid, "cells": rest, "exact": None, "exact_cells": None}, counted
    lines = grid["text"].split("\n")
    if len(lines) <= rows:
        return grid, None, 0
    rest = lines[rows:]
    counted = sum(1 for line in rest if line.strip() != "…")
    head_grid = {**grid, "text": "\n".join(lines[:rows])}
    return head_grid, {**grid, "text": "\n".join(rest), "exact": None, "exact_cells": None, "exact_ref": None}, counted


def with_grids(
    tables: list[dict[str, Any]],
    shape: list[int] | None = None,
    whole: dict[str, Any] | None = None,
    integral: bool = False,
    rows: int = DEFAULT_PREVIEW_ROWS,
) -> list[dict[str, Any]]:
    """Each table with its ruled grid and, for a 2-D block (a matrix or a slice's last two dims), its
    heatmap (``site/cards/heatmap.py``; None when there is nothing to draw). ``whole`` is the capture
    side's heatmap record of the whole 2-D tensor: drawn in place of the preview's corners. A grid of
    more than ``rows`` rows shows that many; ``more`` holds the rest (the card folds it) and
    ``more_rows`` counts them."""
    plane = (shape[-2], shape[-1]) if shape is not None and len(shape) >= 2 else None
    out = []
    for table in tables:
        drawn = None
        if whole is not None and "block" in table:
            drawn = whole_heatmap(whole, integral)
            if drawn is not None and plane is not None:  # the tensor's rows and columns, for the index hover
                drawn = {**drawn, "rows": plane[0], "cols": plane[1]}
        elif plane and "block" in table:
            drawn = heatmap(table["block"], plane)
        shown, more, more_rows = fold_grid(number_grid(table["rows"]), rows)
        out.append({**table, "grid": shown, "more": more, "more_rows": more_rows, "heatmap": drawn})
    return out
