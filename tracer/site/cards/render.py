"""HTML for one trace's pieces: value cards, renderings, compute cards, errors, highlighted code.

``HtmlRenderer(trace, env)`` is shared by read mode (the MkDocs page) and step mode (the viewer's
``data.js``). Python here turns trace records into plain "view" dicts (strings and numbers ready to
show); the Jinja macros in ``site/templates/cards.html.j2`` turn views into markup, autoescaped.
Every method returns a ``markupsafe.Markup`` (safe HTML). Image sources start with the literal
placeholder ``{root}`` (the relative URL of the site root), which the caller replaces; so do
``plot()`` charts, whose SVG files (``charts``) the caller writes under ``paths.PLOTS_URL``.

Code line anchors: a line of the lecture's main file is ``id="L{line}"``; a line of any other file
is ``id="{slug}-L{line}"`` where slug is the path lowercased with every run of characters other
than letters and digits replaced by "-" (``lectures/helpers/util.py`` -> ``lectures-helpers-util-py``).
This module must not read or write files (the caller passes the trace) nor know page layout.
"""

from __future__ import annotations

import bisect
import hashlib
import html
import json
import math
import re
import shlex
from pathlib import Path
from typing import Any, Protocol, cast

import jinja2
from markupsafe import Markup
from pygments.lexers import PythonLexer
from pygments.token import STANDARD_TYPES

from tracer.contract import paths
from tracer.site.cards.citations import citation_label, details
from tracer.site.model.directive_comments import directive_cuts
from tracer.site.cards.graph_svg import graph_view
from tracer.site.cards.jaxtyping_dims import annotation_dims, name_dims
from tracer.site.markdown_ext.mathml import render_markdown
from tracer.site.model.page_model import paragraph_groups
from tracer.site.markdown_ext.sanitize import safe_url
from tracer.site.cards.stride_diagram import stride_diagram
from tracer.site.cards.value_families import summary_view, value_view
from tracer.site.cards.kinds.tensors import diagram_key, tensor_view
from tracer.contract.trace_access import source_text, step_frame
from tracer.contract.trace_format import Compute, ErrorInfo, Rendering, Trace, Value
from tracer.contract.source_facts import without_speaker_notes
from tracer.site.cards.vega_plot import MAX_PLOT_POINTS, draw
from tracer.site.cards.units import (
    human_bytes,
    human_flop_per_s,
    human_flops,
    human_seconds,
    readable_number,
)

ROOT = "{root}"  # placeholder for the relative URL of the site root, replaced by the page/viewer
MAX_SHARED_NAMES = 3
MAX_SPEC_CHARS = 20_000  # a chart that cannot be drawn shows its spec, cut here


def template_env(templates_dir: str | Path | None = None) -> jinja2.Environment:
    """The Jinja environment for chalktrace templates: autoescape on, undefined variables are errors."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir or paths.TEMPLATES_DIR)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    cards: list[Macros] = []

    def value_macro(name: str) -> jinja2.runtime.Macro:
        """The ``cards.html.j2`` macro a value view names (``view.macro``, ``view.card``): how the
        template dispatches to each family's markup without a chain of its own."""
        if not cards:
            cards.append(template_macros(env, "cards.html.j2"))
        return getattr(cards[0], name)

    env.globals["value_macro"] = value_macro
    return env


class Macros(Protocol):
    """A template's exported macros, as attributes: what ``Template.module`` holds (jinja2 types it
    as a ``TemplateModule`` whose names, set from the template at runtime, it cannot declare)."""

    def __getattr__(self, name: str) -> jinja2.runtime.Macro: ...


def template_macros(env: jinja2.Environment, name: str) -> Macros:
    """The macros of template ``name`` (``cards.html.j2``, ...), called as ``macros.value_card(...)``."""
    return cast(Macros, env.get_template(name).module)


def path_slug(path: str) -> str:
    """``lectures/helpers.py`` -> ``lectures-helpers-py`` (see the module docstring)."""
    return re.sub(r"[^a-z0-9]+", "-", path.lower()).strip("-")


def line_anchor(path: str, line: int, main_path: str) -> str:
    """The id of a code line in read mode: ``L12`` in the main file, ``{slug}-L12`` elsewhere."""
    return f"L{line}" if path == main_path else f"{path_slug(path)}-L{line}"


# --- code -------------------------------------------------------------------------------------


def _token_class(ttype: Any) -> str:
    # Pygments' short class names ("k", "nf", ...); site.css colours them from Material's variables.
    while ttype not in STANDARD_TYPES:
        ttype = ttype.parent
    return STANDARD_TYPES[ttype]


def _span(css: str, text: str) -> str:
    escaped = html.escape(text, quote=False)
    return f'<span class="{css}">{escaped}</span>' if css else escaped


# Token classes site.css colours (by their first letters); other tokens (plain names, operators and
# punctuation, whitespace) are left as text: a span for each of those would be most of a long
# lecture page's elements and a third of its bytes. "ow" (and, or, not, in, is) are keywords.
COLOURED_TOKEN_PREFIXES = ("k", "s", "m", "c", "ow", "nf", "fm", "nc", "nn", "nb", "bp", "nd", "ne", "il", "dl")


def _coloured(css: str) -> bool:
    return css.startswith(COLOURED_TOKEN_PREFIXES)


def highlight_lines(source: str, directives: str = "keep") -> list[str]:
    """Pygments-highlighted HTML for each line of ``source`` (spans never cross a line).

    Neighbouring tokens of one colour share a span and uncoloured tokens (plain names, whitespace)
    are plain text, to keep the element count of a long lecture's page down.
    ``directives`` says what happens to directive comments (``tracer.site.model.directive_comments``):
    ``"keep"`` them as written, ``"drop"`` them (read mode), or ``"wrap"`` them in
    ``<span class="lt-dir">`` for CSS to show only in raw mode (step mode).
    """
    lexer = PythonLexer(stripnl=False, stripall=False, ensurenl=False)
    lines: list[list[tuple[str, str]]] = [[]]  # per line: [(class or "", text)]
    for ttype, text in lexer.get_tokens(source):
        css = _token_class(ttype)
        css = css if _coloured(css) else ""
        for k, part in enumerate(text.split("\n")):
            if k > 0:
                lines.append([])
            if not part:
                continue
            line = lines[-1]
            if line and line[-1][0] == css:
                line[-1] = (css, line[-1][1] + part)
            else:
                line.append((css, part))
    cuts = directive_cuts(source) if directives != "keep" else {}
    out = []
    for number, parts in enumerate(lines, start=1):
        cut = cuts.get(number)
        if cut is None:
            out.append("".join(_span(css, text) for css, text in parts))
            continue
        shown, hidden, column = [], [], 0
        for css, text in parts:
            if column + len(text) <= cut:
                shown.append(_span(css, text))
            elif column >= cut:
                hidden.append(_span(css, text))
            else:
                shown.append(_span(css, text[: cut - column]))
                hidden.append(_span(css, text[cut - column :]))
            column += len(text)
        if directives == "wrap" and hidden:
            shown.append('<span class="lt-dir">' + "".join(hidden) + "</span>")
        out.append("".join(shown))
    count = len(source.splitlines())
    return (out + [""] * count)[:count]


# --- the renderer -----------------------------------------------------------------------------


class HtmlRenderer:
    """Render pieces of one trace as HTML (the contract with the step viewer; see module docstring)."""

    max_plot_points = MAX_PLOT_POINTS  # rows per inline dataset a chart draws (vega_plot)

    def __init__(self, trace: Trace, env: jinja2.Environment, heatmaps: dict[str, bytes] | None = None) -> None:
        self.trace = trace
        self.env = env  # a rank's steps get their own renderer over the same templates
        self.main_path: str = trace["lecture"]["path"]
        self.macros = template_macros(env, "cards.html.j2")
        self._code_cache: dict[tuple[str, str], list[str]] = {}
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
        view = value_view(value)
        if view["kind"] == "tensor":
            view = tensor_view(
                value, dims=self.dims_for(name, value, step_index), shares=self.shared_with(name, value, step_index)
            )
            if shared_diagrams and view["diagram"] and (key := diagram_key(value)) is not None:
                view["diagram_ref"] = shared_diagrams.get(key)
        for table in view.get("tables", ()):
            if table.get("heatmap"):
                self.heatmaps[table["heatmap"]["name"]] = table["heatmap"]["png"]
            if not exact_grids and table["grid"].get("exact_cells"):
                # the page's size is budgeted: its exact copy goes to the page's exact.js instead
                table["grid"] = {**table["grid"], "exact": None, "exact_ref": self._exact_ref(table["grid"]["exact_cells"])}
        view["view_of"] = view_of
        return Markup(self.macros.value_card(name, view, ROOT + paths.HEATMAPS_URL))

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
            return Markup(self.macros.media(self.image_view(rendering)))
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
        return Markup(self.macros.unknown_rendering(str(kind)))

    def inline(self, rendering: Rendering) -> Markup:
        """Inline HTML of a rendering that ``page_model.inline_rendering`` accepts (prose or a link)."""
        if rendering.get("type") == "link":
            return Markup(self.macros.link(self.link_view(rendering)))
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
            if chart.svg is not None:
                self.charts[chart.name] = chart.svg
                size = re.search(r'<svg[^>]*?\swidth="([\d.]+)"[^>]*?\sheight="([\d.]+)"', chart.svg[:600])
                width, height = (size.group(1), size.group(2)) if size else (None, None)
            self._plot_views[key] = {
                "src": ROOT + paths.PLOTS_URL + chart.name if chart.svg is not None else None,
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
            "title": title,
            "width": width,
            "height": height,
            "dropped": 0,
            "max_points": self.max_plot_points,
            "error": None,
            "spec_json": "",
            "recorded_points": None,
        }

    def image_view(self, rendering: Rendering) -> dict[str, Any]:
        """An image or video: the published file (a local one, or the course cache's copy of a URL),
        else a link to a URL over the size limit, else a placeholder for one that could not be had.
        Alt text is the author's, else the caption, else none (a file name or URL tail says nothing)."""
        data = rendering["data"]
        external = bool(rendering.get("external"))
        src = safe_url(data) if external else ROOT + "assets/" + data
        width = rendering.get("width")
        if isinstance(width, (int, float)):
            width = f"{width}px" if width > 1 else f"{width * 100:g}%"
        caption = rendering.get("caption") or ""
        state = "missing" if rendering.get("missing") else "linked" if rendering.get("too_large") is not None else "shown"
        return {
            "kind": rendering.get("type", "image"),
            "src": src,
            "alt": rendering.get("alt") or caption,
            "caption": caption,
            "width": width,
            "style": css_style(rendering.get("style")),
            "state": state,
            "url": safe_url(rendering.get("source_url") or data) if (external or rendering.get("source_url")) else None,
            "nbytes": human_bytes(rendering["too_large"]) if rendering.get("too_large") else None,
        }

    def link_view(self, rendering: Rendering) -> dict[str, Any]:
        """A link: to code (``internal``), to a URL, or a citation with a details panel when the
        record had attributes (``citations``)."""
        internal = rendering.get("internal")
        if internal:
            href = "#" + line_anchor(internal["path"], internal["line"], self.main_path)
        else:
            href = safe_url(rendering.get("url") or "")
        attrs = dict(rendering.get("attrs") or {})
        for key in ("authors", "date", "notes"):  # also accepted at the top level of the record
            if (value := rendering.get(key)) not in (None, "", []):
                attrs.setdefault(key, value)
        title = rendering.get("title") or href or "link"
        return {
            "href": href or None,
            "title": title,
            "internal": bool(internal),
            "path": internal["path"] if internal else None,
            "line": internal["line"] if internal else None,
            "label": citation_label(attrs, title),
            "details": details(attrs),
            "style": css_style(rendering.get("style")),
        }


_CSS_KEY = re.compile(r"^[a-z-]+$")
_CSS_VALUE = re.compile(r"^[#%.,()\w\s-]+$")


def css_style(style: dict[str, Any] | None) -> str:
    """A ``style`` dict from text()/image() as a CSS declaration list; unsafe entries are dropped."""
    if not style:
        return ""
    parts = []
    for key, val in style.items():
        key = re.sub(r"(?<!^)([A-Z])", r"-\1", str(key)).lower().replace("_", "-")
        text = (
            f"{val}px"
            if isinstance(val, (int, float))
            and not isinstance(val, bool)
            and key not in ("opacity", "font-weight", "z-index", "line-height")
            else str(val)
        )
        if _CSS_KEY.match(key) and _CSS_VALUE.match(text):
            parts.append(f"{key}: {text}")
    return "; ".join(parts)


def table_cell(value: Any) -> str:
    """A table() cell as text: numbers exactly (``readable_number``), None as an empty cell."""
    if value is None:
        return ""
    if isinstance(value, (bool, int, float)):
        return readable_number(value)
    return str(value)


def table_view(rendering: Rendering) -> dict[str, Any]:
    """Plain data for a ``table()`` rendering: header, rows of text, and what was left out."""
    rows = rendering.get("rows") or []
    index = rendering.get("index")
    total_rows, total_columns = rendering.get("total_rows", len(rows)), rendering.get("total_columns", 0)
    columns = [table_cell(c) for c in rendering.get("columns") or []]
    numeric = [
        all(isinstance(row[k], (int, float)) and not isinstance(row[k], bool) or row[k] is None for row in rows if k < len(row))
        for k in range(len(columns))
    ]
    return {
        "columns": columns,
        "numeric": numeric,
        "index": [table_cell(i) for i in index] if isinstance(index, list) else None,
        "rows": [[table_cell(cell) for cell in row] for row in rows],
        "more_rows": max(0, total_rows - len(rows)),
        "more_columns": max(0, total_columns - len(columns)),
        "total_rows": total_rows,
    }


def compute_view(compute: Compute) -> dict[str, Any]:
    """Plain data for a compute card (from a ``# @flops`` step)."""
    mfu = compute.get("mfu")
    by_op = sorted(compute.get("by_op", {}).items(), key=lambda kv: -kv[1])
    total = compute.get("flops") or 0
    return {
        "flops": human_flops(compute["flops"]),
        "seconds": human_seconds(compute.get("seconds")),
        "flop_per_s": human_flop_per_s(compute.get("flop_per_s")),
        "peak": human_flop_per_s(compute.get("peak_flop_per_s")) if compute.get("peak_flop_per_s") else None,
        "mfu_percent": None if mfu is None or (isinstance(mfu, float) and math.isnan(mfu)) else round(100 * mfu, 1),
        "mfu_bar_percent": None if mfu is None else max(0.0, min(100.0, 100 * mfu)),
        "peak_note": compute.get("peak_note") or ("peak FLOP/s unknown for this device" if mfu is None else None),
        "dtype": compute.get("dtype"),
        "device_name": compute.get("device_name"),
        "timing": compute.get("timing"),
        "repeats": compute.get("repeats"),
        "by_op": [{"op": op, "flops": human_flops(n), "percent": round(100 * n / total, 1) if total else 0.0} for op, n in by_op],
        # None for traces from before the record: the card then says nothing about what was left out
        "uncounted": compute.get("uncounted_ops"),
    }
