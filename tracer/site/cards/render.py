"""HTML for one trace's pieces: value cards, renderings, compute cards, errors, highlighted code.

``HtmlRenderer(trace, env)`` is shared by read mode (the MkDocs page) and step mode (the viewer's
``data.js``). The views it fills in come from the value families (``value_families``), ``renderings``
(renderings and compute cards) and ``code_highlight`` (code); the Jinja macros in
``site/templates/cards.html.j2`` turn views into markup, autoescaped. Every method returns a
``markupsafe.Markup`` (safe HTML). Image sources start with the placeholder ``ROOT``
(``templates``), which the caller replaces; so do ``plot()`` charts, whose SVG files (``charts``)
the caller writes under ``paths.PLOTS_URL``. This module must not read or write files (the caller
passes the trace) nor know page layout.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import re
import shlex
from typing import Any, cast

import jinja2
from markupsafe import Markup

from tracer.contract import paths
from tracer.site.cards.graph_svg import graph_view
from tracer.site.cards.jaxtyping_dims import annotation_dims, name_dims
from tracer.site.markdown_ext.mathml import render_markdown
from tracer.site.model.page_model import paragraph_groups
from tracer.site.cards.stride_diagram import stride_diagram
from tracer.site.cards.value_families import summary_view, value_view
from tracer.site.cards.kinds.tensors import diagram_key, tensor_view
from tracer.contract.trace_access import source_text, step_frame
from tracer.contract.trace_format import Compute, ErrorInfo, Rendering, Trace, Value
from tracer.contract.source_facts import without_speaker_notes
from tracer.contract.trace_settings import DEFAULT_PREVIEW_ROWS
from tracer.site.cards.vega_plot import MAX_PLOT_POINTS, draw
from tracer.site.cards.code_highlight import highlight_lines
from tracer.site.cards.renderings import compute_view, css_style, image_view, link_view, table_view
from tracer.site.cards.prose_blocks import callout_view, code_view, columns_view, diff_view
from tracer.site.cards.templates import ROOT, line_anchor, template_macros

MAX_SHARED_NAMES = 3
MAX_DRAWINGS = 1024  # storage drawings' markup a renderer keeps (equal drawings are drawn once)
MAX_SPEC_CHARS = 20_000  # a chart that cannot be drawn shows its spec, cut here


# --- the renderer -----------------------------------------------------------------------------


class HtmlRenderer:
    """Render pieces of one trace as HTML (the contract with the step viewer; see module docstring)."""

    max_plot_points = MAX_PLOT_POINTS  # rows per inline dataset a chart draws (vega_plot)

    def __init__(self, trace: Trace, env: jinja2.Environment, heatmaps: dict[str, bytes] | None = None) -> None:
        self.trace = trace
        self.env = env  # a rank's steps get their own renderer over the same templates
        self.main_path: str = trace["lecture"]["path"]
        self.macros = template_macros(env, "cards.html.j2")
        # value grid rows a card shows before the fold, as the trace was made (run --preview-rows)
        options: dict[str, Any] = dict(trace.get("options") or {})
        self.preview_rows: int = options.get("preview_rows", DEFAULT_PREVIEW_ROWS)
        self._code_cache: dict[tuple[str, str], list[str]] = {}
        self._drawings: dict[tuple[Any, ...], Markup] = {}  # see _drawing
        self._plot_views: dict[str, dict[str, Any]] = {}
        self.charts: dict[str, str] = {}  # file name -> SVG text of each plot() chart rendered so far
        # file name -> PNG of each tensor heatmap drawn so far, for the plugin to write under paths.HEATMAPS_URL
        # (a rank's renderer shares its lecture renderer's, so the plugin sees every one)
        self.heatmaps: dict[str, bytes] = heatmaps if heatmaps is not None else {}
        # the exact copies of the read page's big rounded grids (see exact_js), and text -> index
        self.exact_grids: list[str] = []
        self._exact_index: dict[str, int] = {}
        # storage id -> [(step index, name, function)] of every recorded tensor, for "shares storage" badges
        self._storage_users: dict[str, list[tuple[int, str, str]]] = {}
        for index, step in enumerate(trace["steps"]):
            for name, value in step["env"].items():
                if value.get("type") == "tensor":
                    function = step_frame(step)["function"]
                    self._storage_users.setdefault(value["storage_id"], []).append((index, name, function))
        # per storage: (step index, name) -> the position of its first record; the step of each record
        self._storage_positions: dict[str, dict[tuple[int, str], int]] = {}
        self._storage_steps: dict[str, list[int]] = {}
        for storage, records in self._storage_users.items():
            firsts = self._storage_positions[storage] = {}
            for position, (index, name, _function) in enumerate(records):
                firsts.setdefault((index, name), position)
            self._storage_steps[storage] = [index for index, _name, _function in records]

    # contract methods

    def value(
        self,
        name: str,
        value: Value,
        *,
        step_index: int,
        shared_diagrams: dict[tuple[Any, ...], str] | None = None,
        exact_grids: bool = True,
    ) -> Markup:
        """A value card. ``shared_diagrams`` (diagram_key -> id, read mode) names storage drawings
        the page holds once (``diagram_defs``): the card then <use>s it instead of drawing it.
        ``exact_grids=False`` (read mode, where the page's size is budgeted) leaves out the exact
        copy of a big rounded grid and refers to it in ``exact_js`` instead (its per-cell hover
        loads that file); step mode's cards carry it (raw mode shows it)."""
        view_of = None
        if value.get("type") == "view":  # __lecture_view__: the card of what the object chose to show
            view_of, value = value.get("class", "?"), value.get("value") or {"type": "none"}
        if "rows" not in value and value.get("type") in ("tensor", "ndarray"):
            value = {**value, "rows": self.preview_rows}  # the trace's; ``@inspect x rows=N`` recorded its own
        if value.get("type") == "tensor":
            # value_view would draw it too (its grids, heatmap and stride diagram); drawn once, with dims and shares
            view = tensor_view(
                value, dims=self.dims_for(name, value, step_index), shares=self.shared_with(name, value, step_index)
            )
            if shared_diagrams and view["diagram"] and (key := diagram_key(value)) is not None:
                view["diagram_ref"] = shared_diagrams.get(key)
            if view["diagram"]:
                view["diagram_html"] = self._drawing(view, value)
        else:
            view = value_view(value)
        for table in view.get("tables", ()):
            if table.get("heatmap"):
                self.heatmaps[table["heatmap"]["name"]] = table["heatmap"]["png"]
            if not exact_grids and table["grid"].get("exact_cells"):
                # the page's size is budgeted: its exact copy goes to the page's exact.js instead
                table["grid"] = {**table["grid"], "exact": None, "exact_ref": self._exact_ref(table["grid"]["exact_cells"])}
        view["view_of"] = view_of
        return Markup(self.macros.value_card(name, view, ROOT + paths.HEATMAPS_URL))

    def _drawing(self, view: dict[str, Any], value: Value) -> Markup:
        """The markup of a tensor's storage drawing (``stride_svg``), drawn once per renderer for
        each drawing: it depends on the shape, stride, offset and storage size, the dim names, and
        the page-level drawing it uses, not on the values (a long lecture's loop shows the same few
        thousands of times)."""
        key = (diagram_key(value), tuple(name for name, _size in view["dims"]), view["diagram_ref"])
        drawn = self._drawings.get(key)
        if drawn is None:
            if len(self._drawings) >= MAX_DRAWINGS:
                self._drawings.clear()
            drawn = self._drawings[key] = Markup(self.macros.stride_svg(view["diagram"], view["index_grid"], view["diagram_ref"]))
        return drawn

    def _exact_ref(self, text: str) -> int:
        """The index of an exact grid in ``exact_js`` (equal grids share one)."""
        found = self._exact_index.get(text)
        if found is None:
            found = self._exact_index[text] = len(self.exact_grids)
            self.exact_grids.append(text)
        return found

    def exact_js(self) -> str | None:
        """The text of a read page's ``exact.js``: the exact copies its big rounded grids refer to
        (``data-exact``), loaded by read.js on the first hover or focus of one. None when there are none."""
        if not self.exact_grids:
            return None
        return "window.CHALKTRACE_EXACT = " + json.dumps(self.exact_grids, ensure_ascii=False, separators=(",", ":")) + ";\n"

    def summary(self, name: str, value: Value) -> Markup | None:
        """A value card's one-line summary (name, kind, dtype, shape, short value), or None when the
        card is one line already."""
        view = summary_view(cast(dict, value))
        return None if view is None else Markup(self.macros.value_summary(name, view))

    def diagram_defs(self, shared_diagrams: dict[tuple[Any, ...], str]) -> Markup:
        """The drawings ``shared_diagrams`` names, each once, for cards to <use> (read mode)."""
        drawings = [(ref, stride_diagram(list(key[0]), list(key[1]), key[2], key[3])) for key, ref in shared_diagrams.items()]
        return Markup(self.macros.diagram_defs(drawings)) if drawings else Markup("")

    def rendering(self, rendering: Rendering) -> Markup:
        kind = rendering.get("type")
        if kind == "markdown":
            if rendering.get("command"):  # system_text(): the command's output, as recorded when traced
                body = Markup(
                    self.macros.command_output(
                        " ".join(shlex.quote(part) for part in rendering["command"]),
                        rendering["data"],
                        rendering.get("exit_status"),
                    )
                )
            elif rendering.get("verbatim"):
                body = Markup('<pre class="lt-verbatim">{}</pre>').format(rendering["data"])
            else:
                body = Markup(render_markdown(rendering["data"]))
            return Markup(self.macros.markdown_block(body, css_style(rendering.get("style"))))
        if kind == "note":
            return Markup(self.macros.note(Markup(render_markdown(rendering["data"]))))
        if kind in ("image", "video"):
            return Markup(self.macros.media(image_view(rendering)))
        if kind == "graph":
            return Markup(self.macros.graph(graph_view(rendering.get("spec") or {}), css_style(rendering.get("style"))))
        if kind == "link":
            return self.paragraph([rendering])
        if kind == "table":
            return Markup(self.macros.table(table_view(rendering)))
        if kind == "plot" and isinstance(rendering.get("svg"), str):
            return Markup(self.macros.plot(self.figure_view(rendering["svg"], str(rendering.get("title") or ""))))
        if kind == "plot":
            view = self.plot_view(rendering.get("spec") or {})
            truncated = rendering.get("truncated")  # the capture side's sample of a long data.values
            recorded = truncated.get("data_points") if isinstance(truncated, dict) else None
            return Markup(self.macros.plot({**view, "recorded_points": recorded}))
        if kind == "code":
            return Markup(self.macros.code_block_view(code_view(rendering)))
        if kind == "diff":
            return Markup(self.macros.diff(diff_view(rendering)))
        if kind == "columns":
            view = columns_view(rendering)
            return Markup(self.macros.columns([Markup(render_markdown(cell)) for cell in view["cells"]], view["template"]))
        if kind == "callout":
            return Markup(self.macros.callout(callout_view(rendering), Markup(render_markdown(rendering.get("data", "")))))
        return Markup(self.macros.unknown_rendering(str(kind)))

    def inline(self, rendering: Rendering) -> Markup:
        """Inline HTML of a rendering that ``page_model.inline_rendering`` accepts (prose or a link)."""
        if rendering.get("type") == "link":
            return Markup(self.macros.link(link_view(rendering, self.main_path)))
        html_text = render_markdown(rendering["data"].strip()).strip()
        if html_text.startswith("<p>") and html_text.endswith("</p>"):
            html_text = html_text[3:-4]
        return Markup(html_text)

    def paragraph(self, group: list[Rendering]) -> Markup:
        """One paragraph of inline renderings (``text("See"), link(paper)``)."""
        return Markup(self.macros.paragraph([self.inline(r) for r in group]))

    def rendering_blocks(self, renderings: list[Rendering]) -> list[Markup]:
        """HTML blocks of one step's renderings: inline runs as one paragraph, the rest one each."""
        return [
            self.paragraph(group) if len(group) > 1 or group[0].get("type") == "link" else self.rendering(group[0])
            for group in paragraph_groups(renderings)
        ]

    def compute(self, compute: Compute) -> Markup:
        return Markup(self.macros.compute_card(compute_view(compute)))

    def error(self, error: ErrorInfo) -> Markup:
        frames = [
            {
                "label": f"{f['path']}:{f['line']}",
                "function": f.get("function", ""),
                "href": "#" + line_anchor(f["path"], f["line"], self.main_path),
            }
            for f in error.get("traceback", [])
        ]
        return Markup(self.macros.error_card(error.get("type", "Error"), error.get("message", ""), frames))

    def code_lines(self, path: str, directives: str = "drop") -> list[str]:
        """Highlighted lines of a traced file; directive comments dropped by default (see highlight_lines).
        The lines of ``speaker_note(...)`` statements are empty: every page and data.js shows these lines,
        and notes reach the presenter alone."""
        key = (path, directives)
        if key not in self._code_cache:
            self._code_cache[key] = highlight_lines(without_speaker_notes(source_text(self.trace, path)), directives)
        return self._code_cache[key]

    # helpers (also used by read mode)

    def dims_for(self, name: str, value: Value, step_index: int) -> list[tuple[str, str]] | None:
        """Dim names from a jaxtyping annotation on the step's line, paired with the tensor's shape."""
        steps = self.trace["steps"]
        if not 0 <= step_index < len(steps):
            return None
        frame = step_frame(steps[step_index])
        source = self.trace["files"].get(frame["path"])
        if source is None:
            return None
        dims = annotation_dims(source, frame["line"], name)
        return name_dims(dims, value["shape"]) if dims else None

    def shared_with(self, name: str, value: Value, step_index: int) -> list[str]:
        """Other names recorded before this one (earlier steps, or earlier on this step) on the same
        storage, latest first: a name of the same function as is, ahead of any other function's,
        which is qualified with its function (``attention.out``) so it is never mistaken for a local."""
        steps = self.trace["steps"]
        here = step_frame(steps[step_index])["function"] if 0 <= step_index < len(steps) else None
        storage = value["storage_id"]
        users = self._storage_users.get(storage, [])
        # Those recorded before this name: up to its first record on this step, or all up to this step.
        end = self._storage_positions.get(storage, {}).get((step_index, name))
        if end is None:
            end = bisect.bisect_right(self._storage_steps.get(storage, []), step_index)
        local: list[str] = []
        elsewhere: list[str] = []
        # Latest first, stopping once enough names of this function are found (they come first): a
        # line that records thousands of views of one storage costs a few lookups per name, not all.
        for position in range(end - 1, -1, -1):
            _index, other, fn = users[position]
            if fn == here:
                if other != name and other not in local:
                    local.append(other)
                    if len(local) >= MAX_SHARED_NAMES:
                        break
            elif len(elsewhere) < MAX_SHARED_NAMES and (label := f"{fn}.{other}") not in elsewhere:
                elsewhere.append(label)
        return (local + elsewhere)[:MAX_SHARED_NAMES]

    def plot_view(self, spec: dict[str, Any]) -> dict[str, Any]:
        """A chart drawn once per distinct spec; its SVG waits in ``self.charts`` for the plugin to write."""
        key = json.dumps(spec, sort_keys=True, ensure_ascii=False)
        if key not in self._plot_views:
            chart = draw(spec, self.max_plot_points)
            width = height = None
            if chart.dark_svg is not None:
                self.charts[chart.dark_name] = chart.dark_svg
            if chart.svg is not None:
                self.charts[chart.name] = chart.svg
                size = re.search(r'<svg[^>]*?\swidth="([\d.]+)"[^>]*?\sheight="([\d.]+)"', chart.svg[:600])
                width, height = (size.group(1), size.group(2)) if size else (None, None)
            self._plot_views[key] = {
                "src": ROOT + paths.PLOTS_URL + chart.name if chart.svg is not None else None,
                "dark_src": ROOT + paths.PLOTS_URL + chart.dark_name if chart.dark_svg is not None else None,
                "title": chart.title,
                "width": width,
                "height": height,
                "dropped": chart.dropped_points,
                "max_points": self.max_plot_points,
                "error": chart.error,
                "spec_json": json.dumps(spec, indent=1, ensure_ascii=False)[:MAX_SPEC_CHARS] if chart.error else "",
            }
        return self._plot_views[key]

    def figure_view(self, svg: str, title: str) -> dict[str, Any]:
        """A matplotlib figure drawn when traced: its SVG file (shown as an image: no script in it
        can run), named by a hash of its text so equal figures share one file."""
        name = "fig-" + hashlib.sha1(svg.encode("utf-8")).hexdigest()[:12] + ".svg"
        self.charts[name] = svg
        size = re.search(r'<svg[^>]*?\swidth="([\d.]+)(?:pt)?"[^>]*?\sheight="([\d.]+)(?:pt)?"', svg[:2000])
        width, height = (size.group(1), size.group(2)) if size else (None, None)
        return {
            "src": ROOT + paths.PLOTS_URL + name,
            "dark_src": None,  # drawn by the lecture with its own background, kept on both schemes
            "title": title,
            "width": width,
            "height": height,
            "dropped": 0,
            "max_points": self.max_plot_points,
            "error": None,
            "spec_json": "",
            "recorded_points": None,
        }
