"""Value grids fold after the card's preview rows: 8 by default, the trace's ``preview_rows``, or an
``# @inspect x rows=N`` of the value's own (a traced fixture, the real cards template)."""

from __future__ import annotations

import re

from helpers.traced import traced

from tracer.site.cards.render import HtmlRenderer
from tracer.site.cards.templates import template_env
from tracer.site.cards.value_grids import fold_grid, number_grid


def cards(trace: dict) -> dict[str, str]:
    renderer = HtmlRenderer(trace, template_env())
    return {
        name: str(renderer.value(name, value, step_index=index))
        for index, step in enumerate(trace["steps"])
        for name, value in (step.get("env") or {}).items()
    }


def shown_and_folded(html: str) -> tuple[list[str], list[str], str | None]:
    """(grid rows shown, grid rows behind the fold, the fold's summary) of a card's values."""
    grids = re.findall(r'<pre class="lt-grid[^"]*"[^>]*>(.*?)</pre>', html, re.S)
    folded = re.search(
        r'<details class="lt-fold"><summary>(.*?)</summary><pre class="lt-grid lt-grid-more[^"]*"[^>]*>(.*?)</pre>', html, re.S
    )
    return grids[0].split("\n"), folded.group(2).split("\n") if folded else [], folded.group(1) if folded else None


def test_a_long_grid_shows_eight_rows_and_folds_the_rest_unless_its_inspect_asks_for_more():
    trace = traced("folded_rows")
    # the tracer records what the site needs: the run's default, and the rows an @inspect asked for
    assert trace["options"]["preview_rows"] == 8
    recorded = {name: value for step in trace["steps"] for name, value in step["env"].items()}
    assert recorded["wide"]["rows"] == 32 and "rows" not in recorded["x"]
    found = cards(trace)

    shown, folded, summary = shown_and_folded(found["x"])
    assert [row.split() for row in shown] == [[str(2 * i) + ".0", str(2 * i + 1) + ".0"] for i in range(8)]
    assert summary == "120 more rows"
    assert [row.split() for row in folded] == [[str(2 * i) + ".0", str(2 * i + 1) + ".0"] for i in range(8, 128)]
    # the rest lines up under the rows shown: one column width
    assert re.findall(r"--lt-col: (\d+)", found["x"])[:2] == re.findall(r"--lt-col: (\d+)", found["x"])[:1] * 2

    shown, folded, summary = shown_and_folded(found["wide"])
    assert (len(shown), len(folded), summary) == (32, 96, "96 more rows")

    shown, folded, summary = shown_and_folded(found["table"])  # a NumPy array folds alike
    assert (len(shown), len(folded), summary) == (8, 12, "12 more rows")

    shown, folded, summary = shown_and_folded(found["small"])  # 4 rows: nothing to fold
    assert ([row.split() for row in shown], folded, summary) == ([["1.0", "1.0"]] * 4, [], None)


def test_the_trace_s_preview_rows_and_a_heatmap_kept_to_the_folded_height():
    trace = dict(traced("folded_rows"))
    trace["options"] = {**trace["options"], "preview_rows": 3}
    found = cards(trace)
    assert shown_and_folded(found["x"])[2] == "125 more rows"
    assert shown_and_folded(found["wide"])[2] == "96 more rows"  # its own @inspect rows=32 wins
    # the heatmap beside a folded grid (every row's overview) is drawn at its width, kept short by site.css
    assert re.search(r'<img src="[^"]+" class="lt-hm-folded" style="width: \d+px"', found["x"])
    assert "lt-hm-folded" not in found["small"]


def test_a_fold_keeps_each_part_of_a_grid_of_marked_cells_and_counts_no_elision_row():
    grid = number_grid([[1.23456789, 2.0]] * 3 + [["…"]] + [[3.0, 4.0]] * 2)
    assert grid["cells"] is not None  # rounded cells, each marked with its exact value
    shown, rest, counted = fold_grid(grid, 2)
    assert (len(shown["cells"]), len(rest["cells"]), counted) == (2, 4, 3)
    assert shown["exact"] == grid["exact"] and rest["exact"] is None  # the exact copy stays whole, with the first part
    assert fold_grid(grid, 6) == (grid, None, 0)
