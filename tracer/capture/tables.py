"""Renderings built from a lecture's data objects: ``table(data)`` records and matplotlib figures.

``table_rendering`` turns a pandas DataFrame or Series, a numpy array or torch tensor (1-D or 2-D),
a list of records (dicts or dataclasses) or a list of rows into a bounded ``table`` rendering: at
most ``max_rows`` rows and ``MAX_TABLE_COLUMNS`` columns, each cell a JSON scalar (exact ints,
floats as the shortest decimal for their dtype, short strings), with the full row and column counts.
``figure_svg`` renders a matplotlib figure to SVG text, deterministically (no date, fixed ids).
pandas and matplotlib are optional: nothing here imports them; objects are recognised by what
they are. This module must not decide where a rendering goes (``api`` emits it) nor render HTML.
"""

from __future__ import annotations

import dataclasses
import io
import math
from typing import Any

from tracer.capture.shortest_floats import decimal_digits

MAX_TABLE_ROWS = 50  # rows a table() keeps (the rendering says how many there were)
MAX_TABLE_COLUMNS = 30
MAX_CELL_CHARS = 200
MAX_FIGURE_SVG_CHARS = 4_000_000  # a figure bigger than this as SVG is refused with a message
# A figure is refused before it is drawn when its size (inches x dpi) exceeds this many pixels on a
# side or in all: drawing a 20,000 px square figure takes gigabytes before any SVG limit is reached.
MAX_FIGURE_SIDE_PX = 10_000
MAX_FIGURE_PIXELS = 25_000_000
_INT_BOUND = 10**300


def _cell(value: Any) -> Any:
    """One cell as a JSON scalar: numbers exactly (non-finite floats as "nan"/"inf"/"-inf")."""
    item = getattr(value, "item", None)
    if item is not None and type(value).__module__.split(".")[0] in ("numpy", "torch") and getattr(value, "ndim", 0) == 0:
        dtype = getattr(value, "dtype", None)
        if dtype is not None and getattr(dtype, "kind", "") == "f" and dtype.itemsize < 8:
            from tracer.capture.shortest_floats import shortest_array_floats

            return _cell(shortest_array_floats(value)[0])
        value = item()
    if value is None or isinstance(value, bool) or isinstance(value, str) and len(value) <= MAX_CELL_CHARS:
        return value
    if isinstance(value, int):
        return value if -_INT_BOUND < value < _INT_BOUND else f"≈{'-' if value < 0 else ''}1e{decimal_digits(value) - 1}"
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    text = value if isinstance(value, str) else str(value)
    return text if len(text) <= MAX_CELL_CHARS else text[: MAX_CELL_CHARS - 1] + "…"


def _array_rows(array: Any, max_rows: int) -> tuple[list[str], list[list[Any]], int, int]:
    """(columns, rows, total rows, total columns) of a 1-D or 2-D numpy array or torch tensor."""
    values: Any
    if type(array).__module__.startswith("torch"):
        import torch

        with torch.no_grad():
            part = array.detach()[:max_rows]
            if part.dim() == 2:
                part = part[:, :MAX_TABLE_COLUMNS]
            if part.dtype.is_floating_point:
                from tracer.capture.shortest_floats import shortest_floats

                flat = shortest_floats(part)
                values = torch.tensor(flat, dtype=torch.float64).reshape(part.shape).tolist()
            else:
                values = part.cpu().tolist()
        shape = tuple(array.shape)
    else:
        import numpy as np

        part = np.asarray(array)[:max_rows]
        if part.ndim == 2:
            part = part[:, :MAX_TABLE_COLUMNS]
        if part.dtype.kind == "f" and part.dtype.itemsize < 8:
            from tracer.capture.shortest_floats import shortest_array_floats

            values = np.reshape(np.array(shortest_array_floats(part), dtype=np.float64), part.shape).tolist()
        else:
            values = part.tolist()
        shape = np.shape(array)
    if len(shape) == 1:
        return ["value"], [[_cell(v)] for v in values], shape[0], 1
    if len(shape) != 2:
        raise ValueError(f"table() takes a 1-D or 2-D array, got {len(shape)} dimensions")
    columns = [str(k) for k in range(min(shape[1], MAX_TABLE_COLUMNS))]
    return columns, [[_cell(v) for v in row] for row in values], shape[0], shape[1]


def table_rendering(data: Any, max_rows: int = MAX_TABLE_ROWS) -> dict[str, Any]:
    """The ``table`` rendering of ``data`` (see the module docstring); TypeError for anything else."""
    module = type(data).__module__ or ""
    index: list[Any] | None = None
    if module.startswith("pandas") and hasattr(data, "iloc"):
        frame = data.to_frame() if getattr(data, "ndim", 2) == 1 else data
        total_rows, total_columns = frame.shape
        head = frame.iloc[:max_rows, :MAX_TABLE_COLUMNS]
        columns = [str(c) for c in head.columns]
        rows = [[_cell(v) for v in row] for row in head.itertuples(index=False, name=None)]
        named = type(frame.index).__name__ != "RangeIndex"
        index = [_cell(v) for v in head.index] if named else None
    elif module.startswith(("numpy", "torch")) and hasattr(data, "shape"):
        columns, rows, total_rows, total_columns = _array_rows(data, max_rows)
    elif isinstance(data, (list, tuple)):
        total_rows = len(data)
        head = list(data[:max_rows])
        if head and all(isinstance(r, dict) or (dataclasses.is_dataclass(r) and not isinstance(r, type)) for r in head):
            records = [r if isinstance(r, dict) else dataclasses.asdict(r) for r in head]
            keys: dict[str, None] = {}
            for record in records:
                keys.update((str(k), None) for k in record)
            all_keys = list(keys)
            total_columns = len(all_keys)
            columns = all_keys[:MAX_TABLE_COLUMNS]
            by_text = [{str(k): v for k, v in record.items()} for record in records]
            rows = [[_cell(record.get(c)) for c in columns] for record in by_text]
        elif all(isinstance(r, (list, tuple)) for r in head):
            total_columns = max((len(r) for r in head), default=0)
            columns = [str(k) for k in range(min(total_columns, MAX_TABLE_COLUMNS))]
            rows = [
                [_cell(v) for v in list(r)[:MAX_TABLE_COLUMNS]] + [None] * (len(columns) - min(len(r), len(columns)))
                for r in head
            ]
        else:
            columns, total_columns = ["value"], 1
            rows = [[_cell(v)] for v in head]
    else:
        raise TypeError(f"table() takes a DataFrame, an array or a list of records or rows, got {type(data).__name__}")
    rendering: dict[str, Any] = {
        "type": "table",
        "columns": [_cell(c) for c in columns],
        "rows": rows,
        "total_rows": int(total_rows),
        "total_columns": int(total_columns),
    }
    if index is not None:
        rendering["index"] = index
    return rendering


def is_figure(value: Any) -> bool:
    """A matplotlib Figure (or anything of matplotlib's with ``savefig``), without importing it."""
    return (type(value).__module__ or "").startswith("matplotlib") and callable(getattr(value, "savefig", None))


def figure_too_big(figure: Any) -> str | None:
    """Why the figure is too big to draw (its pixel size against the limits, and how to shrink it),
    or None. Read from its size and dpi, before anything is drawn."""
    import matplotlib

    dpi = matplotlib.rcParams.get("savefig.dpi", "figure")
    dpi = figure.get_dpi() if dpi == "figure" else float(dpi)
    width_in, height_in = figure.get_size_inches()
    width, height = round(float(width_in) * dpi), round(float(height_in) * dpi)
    if width <= MAX_FIGURE_SIDE_PX and height <= MAX_FIGURE_SIDE_PX and width * height <= MAX_FIGURE_PIXELS:
        return None
    return (
        f"plot(): the figure is {width:,} x {height:,} px ({float(width_in):g} x {float(height_in):g} in at {dpi:g} dpi; "
        f"at most {MAX_FIGURE_SIDE_PX:,} px a side and {MAX_FIGURE_PIXELS:,} px in all); "
        "shrink it with figsize=/fig.set_size_inches() or dpi=/fig.set_dpi()"
    )


def figure_svg(figure: Any) -> str:
    """The figure as SVG text: text kept as text (small), no date, ids fixed per figure."""
    import matplotlib

    out = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "chalktrace"}):
        figure.savefig(out, format="svg", bbox_inches="tight", metadata={"Date": None})
    return out.getvalue()
