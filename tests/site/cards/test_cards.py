import json
import re

import pytest

from tracer.site.cards.code_highlight import highlight_lines

from tracer.site.cards.render import HtmlRenderer

from tracer.site.cards.renderings import css_style

from tracer.site.cards.templates import line_anchor, path_slug, template_env
from tracer.site.cards.value_grids import compact_grid_view, grid_view, number_grid, values_tables
from tracer.site.cards.units import format_number, human_bytes, human_flop_per_s, human_flops, human_seconds

MAIN = "lectures/demo.py"
SOURCE = '''def main():
    x: Float[torch.Tensor, "batch seq"] = torch.ones(2, 3)  # @inspect x
    y = x.T  # @inspect y
    doc = """two
lines"""
'''


def tensor(shape, stride, storage_id="s1", values=None, **extra):
    numel = 1
    for n in shape:
        numel *= n
    value = {
        "type": "tensor",
        "dtype": "float32",
        "shape": shape,
        "stride": stride,
        "storage_offset": 0,
        "contiguous": True,
        "device": "cpu",
        "element_size": 4,
        "numel": numel,
        "nbytes": 4 * numel,
        "storage_id": storage_id,
        "storage_nbytes": 4 * numel,
        "requires_grad": False,
        "grad_fn": None,
        "values": values if values is not None else [[1.0] * shape[1]] * shape[0],
        "truncated": False,
        "stats": {"min": 1.0, "max": 1.0, "mean": 1.0, "std": 0.0, "nan_count": 0, "inf_count": 0},
    }
    value.update(extra)
    return value


def step(line, env=None, **extra):
    return {
        "stack": [{"path": MAIN, "line": line, "function": "main"}],
        "env": env or {},
        "renderings": [],
        "stdout": "",
        "memory": {"nbytes": 0, "peak_nbytes": 0},
        **extra,
    }


@pytest.fixture
def renderer():
    x = tensor([2, 3], [3, 1])
    y = tensor([3, 2], [1, 3], contiguous=False)
    trace = {
        "lecture": {"name": "demo", "path": MAIN, "title": "Demo"},
        "files": {MAIN: SOURCE},
        "steps": [step(2, {"x": x}), step(3, {"y": y})],
    }
    return HtmlRenderer(trace, template_env())


def text_of(html):
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", str(html)))


def test_units():
    assert human_bytes(512) == "512 B"
    assert human_bytes(4096) == "4.0 KiB"
    assert human_bytes(3 * 2**30) == "3.0 GiB"
    assert human_flops(2_147_483_648) == "2.15 GFLOP"
    assert human_flop_per_s(4.51e10) == "45.1 GFLOP/s"
    assert human_flop_per_s(None) == "n/a"
    assert human_seconds(0.0012) == "1.2 ms"
    assert format_number(0.333333) == "0.3333"
    assert format_number("…") == "…"
    assert format_number([1.0, -2.0]) == "1.0-2.0j"


def test_values_tables_keep_elisions_visible():
    assert values_tables([1.0, "…", 9.0], [100]) == [{"label": None, "rows": [[1.0, "…", 9.0]]}]
    two_d = values_tables([[1, 2], "…", [7, 8]], [50, 2])
    assert two_d[0]["rows"] == [[1, 2], ["…"], [7, 8]]
    three_d = values_tables([[[1, 2]], "…", [[5, 6]]], [10, 1, 2])
    assert [t["label"] for t in three_d] == ["[0, :, :]", "[…]", "[9, :, :]"]
    assert values_tables(3.5, []) == [{"label": None, "rows": [[3.5]]}]
    assert number_grid(two_d[0]["rows"])["text"] == " 1 2\n …\n 7 8"


def test_grid_view_pads_cells_to_one_width():
    # one <pre> per table: each cell a space and the value right-aligned in the widest value's width
    assert grid_view([["1", "22"], ["…"], ["-3", "4"]]) == {
        "text": "  1 22\n  …\n -3  4",
        "width": 3,
        "cells": None,
        "exact": None,
        "rounded": False,
        "tabs": False,
    }


def test_a_grid_of_varied_widths_is_tab_separated_with_its_signs_lined_up():
    rows = [["0.0391", "-0.03718", "3.169e-5"], ["…"], ["-0.5", "12.25", "0.1"]]
    view = compact_grid_view(rows)
    assert view["tabs"] and view["text"] == "  0.0391\t -0.03718\t  3.169e-5\n  …\n -0.5\t  12.25\t  0.1"
    # every cell with its spaces is shorter than a column: each tab moves exactly one column
    assert all(len(cell) < view["width"] for line in view["text"].split("\n") for cell in line.split("\t"))
    assert len(view["text"]) < len(grid_view(rows)["text"])
    # cells of one width: padding is shorter, and stays
    assert not compact_grid_view([["0.0", "1.0"], ["2.0", "3.0"]])["tabs"]


def test_tensor_card_shows_anatomy_and_jaxtyping_dims(renderer):
    html = renderer.value("x", renderer.trace["steps"][0]["env"]["x"], step_index=0)
    text = text_of(html)
    assert "float32" in text and "cpu" in text  # in the head
    for expected in [
        "shape (2, 3) stride (3, 1)",
        "storage offset 0",
        "contiguous yes",
        "element size 4 B",
        "numel 6",
        "bytes 24 B",
    ]:
        assert expected in text
    assert "batch=2" in text and "seq=3" in text
    assert "<svg" in html and "offset = 0 + i·3 + j·1" in html


def test_shares_storage_badge_names_the_earlier_tensor(renderer):
    first = renderer.value("x", renderer.trace["steps"][0]["env"]["x"], step_index=0)
    second = renderer.value("y", renderer.trace["steps"][1]["env"]["y"], step_index=1)
    assert "shares storage" not in first
    assert "shares storage with <code>x</code>" in second
    assert "non-contiguous" in second


def test_shares_storage_only_with_names_shown_before():
    a, b = tensor([2], [1], values=[1.0, 2.0]), tensor([1], [1], values=[2.0], storage_offset=1)
    trace = {"lecture": {"name": "d", "path": MAIN, "title": ""}, "files": {MAIN: SOURCE}, "steps": [step(3, {"a": a, "b": b})]}
    r = HtmlRenderer(trace, template_env())
    assert "shares storage" not in r.value("a", a, step_index=0)
    assert "shares storage with <code>a</code>" in r.value("b", b, step_index=0)


def test_a_line_recording_5000_views_of_one_storage_gives_each_its_latest_three():
    """One step records 5,000 names on one storage (``a, b, ... = t.unbind()``), then a later step one
    more: each badge names the three recorded just before it, latest first."""
    names = [f"row_{k}" for k in range(5000)]
    env = {name: tensor([3], [1], values=[1.0, 2.0, 3.0], storage_offset=3 * k) for k, name in enumerate(names)}
    later = tensor([3], [1], values=[1.0, 2.0, 3.0])
    trace = {
        "lecture": {"name": "d", "path": MAIN, "title": ""},
        "files": {MAIN: SOURCE},
        "steps": [step(2, env), step(3, {"row_7": later})],
    }
    r = HtmlRenderer(trace, template_env())
    assert r.shared_with("row_0", env["row_0"], 0) == []
    assert r.shared_with("row_1", env["row_1"], 0) == ["row_0"]
    for k in (3, 2500, 4999):
        assert r.shared_with(names[k], env[names[k]], 0) == [names[k - 1], names[k - 2], names[k - 3]]
    # on the later step every name of the first is earlier: the latest three, not row_7 itself
    assert r.shared_with("row_7", later, 1) == ["row_4999", "row_4998", "row_4997"]


def test_strings_are_escaped(renderer):
    html = renderer.value("s", {"type": "str", "value": "<script>alert(1)</script>"}, step_index=0)
    assert "<script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_other_value_types(renderer):
    nested = {
        "type": "list",
        "length": 3,
        "truncated": True,
        "items": [
            {"type": "int", "value": 1},
            {"type": "dict", "length": 1, "items": [[{"type": "str", "value": "k"}, {"type": "float", "value": "nan"}]]},
        ],
    }
    html = renderer.value("l", nested, step_index=0)
    assert "len 3" in html and "… 1 more" in html and "nan" in html
    finfo = {
        "type": "finfo",
        "dtype": "bfloat16",
        "bits": 16,
        "eps": 0.0078125,
        "max": 3.39e38,
        "min": -3.39e38,
        "smallest_normal": 1.18e-38,
        "resolution": 0.01,
    }
    assert "eps" in renderer.value("f", finfo, step_index=0)
    module = {
        "type": "module",
        "class": "Linear",
        "num_parameters": 12345,
        "parameters": [{"name": "weight", "shape": [3, 4], "dtype": "float32"}],
        "repr": "Linear(4, 3)",
    }
    text = text_of(renderer.value("m", module, step_index=0))
    assert "Linear" in text and "12,345 parameters" in text and "weight" in text and "(3, 4)" in text
    missing = renderer.value("q", {"type": "missing", "message": "name 'q' is not defined"}, step_index=0)
    assert "lt-warning" in missing and "not defined" in missing
    obj = renderer.value("o", {"type": "object", "class": "Foo", "repr": "<Foo at 0x1>"}, step_index=0)
    assert "&lt;Foo at 0x1&gt;" in obj
    assert "torch.Size([2, 3])" in renderer.value("z", {"type": "size", "value": [2, 3]}, step_index=0)


def test_renderings(renderer):
    image = renderer.rendering({"type": "image", "data": "lectures/images/x.svg", "external": False, "width": 200})
    assert 'src="{root}assets/lectures/images/x.svg"' in image and "width: 200px" in image
    internal = renderer.rendering(
        {"type": "link", "url": None, "title": "main", "internal": {"path": MAIN, "line": 1, "function": "main"}}
    )
    assert 'href="#L1"' in internal
    other = renderer.rendering(
        {"type": "link", "url": None, "title": "f", "internal": {"path": "lectures/util.py", "line": 5, "function": "f"}}
    )
    assert 'href="#lectures-util-py-L5"' in other
    note = renderer.rendering({"type": "note", "data": "mind $x^2$"})
    assert "admonition" in note and "<math" in note
    markdown = renderer.rendering({"type": "markdown", "data": "# Title\n\n<b>raw</b> *em*"})
    assert "<h1>Title</h1>" in markdown and "<em>em</em>" in markdown
    verbatim = renderer.rendering({"type": "markdown", "data": "<i>not html</i>", "verbatim": True})
    assert "&lt;i&gt;" in verbatim
    command = renderer.rendering(
        {"type": "markdown", "data": "GPU 0: none\n", "verbatim": True, "command": ["nvidia-smi", "-L", "a b"], "exit_status": 9}
    )
    assert "$ nvidia-smi -L &#39;a b&#39;</span>\nGPU 0: none\n" in command and "exit status 9" in command


def test_plot_renderings_say_what_they_left_out(renderer):
    renderer.max_plot_points = 10  # the real cap is MAX_PLOT_POINTS; fewer points draw faster
    spec = {
        "mark": "point",
        "data": {"values": [{"x": i, "y": i} for i in range(13)]},
        "encoding": {"x": {"field": "x", "type": "quantitative"}, "y": {"field": "y", "type": "quantitative"}},
    }
    html = renderer.rendering({"type": "plot", "spec": spec, "truncated": {"data_points": 40_000}})
    assert '<img class="lt-plot-img lt-plot-light" src="{root}assets/chalktrace/plots/' in html
    assert "a sample of the 40,000 data points" in html and "3 rows left out (each dataset keeps its first 10)" in html
    # drawn twice: as the spec says (its white background) and for the dark scheme (no background of its own)
    [(light_name, light), (dark_name, dark)] = sorted(renderer.charts.items(), key=lambda item: "-dark" in item[0])
    assert (
        dark_name == light_name.removesuffix(".svg") + "-dark.svg"
        and f'lt-plot-dark" src="{{root}}assets/chalktrace/plots/{dark_name}"' in html
    )
    assert light.startswith("<svg") and dark.startswith("<svg")
    assert 'fill="white"' in light and 'fill="#000"' in light  # white box, black labels
    assert 'fill="#fff"' in dark and 'fill="white"' not in dark and 'fill="#333"' not in dark  # light labels, no box
    failed = renderer.rendering({"type": "plot", "spec": {"mark": "point", "data": {"url": "https://example.org/d.csv"}}})
    assert "cannot draw this chart" in failed and "not fetched" in failed and "Vega-Lite spec" in failed
    assert len(renderer.charts) == 2  # nothing drawn for it


def test_links_and_citations(renderer):
    plain = renderer.rendering({"type": "link", "url": "https://einops.rocks", "title": "einops", "internal": None})
    assert plain == '<p class="lt-para"><a href="https://einops.rocks">einops</a></p>'
    cite = renderer.rendering(
        {
            "type": "link",
            "url": "https://arxiv.org/abs/1412.6980",
            "title": "Adam",
            "internal": None,
            "attrs": {"authors": "Kingma, Ba", "date": "2014-12", "abstract": "<b>We</b> introduce"},
            "style": {"color": "red"},
        }
    )
    assert (
        '<span class="lt-cite" style="color: red"><a class="lt-cite-label" href="https://arxiv.org/abs/1412.6980">[Kingma+ 2014]</a>'
        in cite
    )
    assert "&lt;b&gt;We&lt;/b&gt; introduce" in cite  # record fields are text, never markup
    for url in ("javascript:alert(1)", " JavaScript:alert(1)", "data:text/html,<script>x</script>", "vbscript:x"):
        unsafe = renderer.rendering({"type": "link", "url": url, "title": "click me", "internal": None})
        assert "href" not in unsafe and "click me" in unsafe, url
    assert 'href="#sec"' in renderer.rendering({"type": "link", "url": "#sec", "title": "s", "internal": None})
    noted = renderer.rendering(
        {"type": "link", "url": "https://example.org", "title": "Example", "internal": None, "attrs": {"notes": "read section 2"}}
    )
    assert ">Example</a>" in noted and "read section 2" in noted  # no authors or date: the title, with its panel
    para = renderer.paragraph([{"type": "markdown", "data": "See *this*"}, {"type": "link", "url": "u", "title": "t"}])
    assert para == '<p class="lt-para">See <em>this</em> <a href="u">t</a></p>'


def test_numbers_in_cards_are_readable_with_the_exact_value_on_hover(renderer):
    big = renderer.value("n", {"type": "float", "value": 40000000000.0}, step_index=0)
    assert 'title="40000000000.0 (float)" data-exact="40000000000.0"><span>40,000,000,000</span>' in big
    assert '<code class="lt-scalar lt-type-int" title="int">12</code>' in renderer.value(
        "k", {"type": "int", "value": 12}, step_index=0
    )
    assert ">123,456,789<" in renderer.value("k", {"type": "int", "value": 123456789}, step_index=0)
    listed = renderer.value(
        "l",
        {"type": "list", "length": 2, "items": [{"type": "float", "value": 1e-12}, {"type": "int", "value": 65536}]},
        step_index=0,
    )
    assert "[1e-12, 65,536]" in text_of(listed)


def test_compute_card():
    r = HtmlRenderer({"lecture": {"name": "d", "path": MAIN, "title": ""}, "files": {}, "steps": []}, template_env())
    cpu = r.compute(
        {
            "flops": 2_147_483_648,
            "seconds": 0.0476,
            "flop_per_s": 4.51e10,
            "by_op": {"aten.mm": 2_147_483_648},
            "peak_flop_per_s": None,
            "mfu": None,
            "dtype": "float32",
            "timing": "replay",
            "peak_note": "no peak FLOP/s known for CPUs",
        }
    )
    assert "2.15 GFLOP" in cpu and "45.1 GFLOP/s" in cpu and "no peak FLOP/s known for CPUs" in cpu
    assert "aten.mm" in cpu and "replay" in cpu and "lt-bar-fill" not in cpu
    gpu = r.compute(
        {
            "flops": 10**12,
            "seconds": 0.01,
            "flop_per_s": 1e14,
            "by_op": {},
            "peak_flop_per_s": 9.89e14,
            "mfu": 0.101,
            "dtype": "bfloat16",
            "timing": "single",
        }
    )
    assert "MFU 10.1%" in gpu and 'style="width: 10.1' in gpu


def test_error_card_links_frames(renderer):
    html = renderer.error(
        {
            "type": "ValueError",
            "message": "bad <x>",
            "traceback": [
                {"path": MAIN, "line": 3, "function": "main"},
                {"path": "lectures/util.py", "line": 7, "function": "f"},
            ],
        }
    )
    assert "bad &lt;x&gt;" in html
    assert 'href="#L3"' in html and 'href="#lectures-util-py-L7"' in html
    assert "lectures/util.py:7" in html


def test_code_lines_are_one_string_per_source_line(renderer):
    lines = renderer.code_lines(MAIN)
    assert len(lines) == len(SOURCE.splitlines())
    assert lines[0].startswith('<span class="k">def</span>')
    # a multi-line string is split so that no span crosses a line
    assert lines[3].count("<span") == lines[3].count("</span>")
    assert "lines" in lines[4] and "\n" not in "".join(lines)
    # names, operators, punctuation and whitespace stay text; neighbouring tokens of one colour share a span
    assert highlight_lines("a < b\n") == ["a &lt; b"]
    assert highlight_lines('f(x)[0] or print("a")\n') == [
        'f(x)[<span class="mi">0</span>] <span class="ow">or</span> <span class="nb">print</span>(<span class="s2">"a"</span>)'
    ]


def test_anchors_and_styles():
    assert path_slug("lectures/helpers/Util.py") == "lectures-helpers-util-py"
    assert line_anchor(MAIN, 4, MAIN) == "L4"
    assert line_anchor("lectures/x.py", 4, MAIN) == "lectures-x-py-L4"
    assert css_style({"color": "red", "fontSize": 20}) == "color: red; font-size: 20px"
    assert css_style({"background": "url(javascript:alert(1))"}) == ""
    assert css_style({"color": "red;} body {display:none"}) == ""


# One minimal, schema-valid example per rendering kind: adding a kind to trace_format.RENDERING_TYPES
# fails here until it has an example, and then until HtmlRenderer draws it (instead of "unknown").
RENDERING_EXAMPLES = {
    "markdown": {"type": "markdown", "data": "hello"},
    "note": {"type": "note", "data": "aside"},
    "image": {"type": "image", "data": "https://example.org/x.png", "external": True, "width": None},
    "link": {"type": "link", "url": "https://example.org", "title": "Example", "internal": None},
    "plot": {
        "type": "plot",
        "spec": {"mark": "line", "data": {"values": [{"x": 1, "y": 2}]}, "encoding": {"x": {"field": "x"}, "y": {"field": "y"}}},
    },
    "video": {"type": "video", "data": "lectures/videos/clip.webm", "external": False, "width": 240},
    "graph": {
        "type": "graph",
        "spec": {
            "nodes": [{"data": {"id": "a", "label": "a"}}],
            "edges": [],
            "layout": {"name": "grid"},
            "stylesheet": [],
            "width": 100,
            "height": 60,
        },
    },
    "table": {"type": "table", "columns": ["a"], "rows": [[1]], "total_rows": 1, "total_columns": 1},
    "code": {"type": "code", "data": "int main(void) { return 0; }", "language": "c"},
    "diff": {"type": "diff", "a": "x = 1", "b": "x = 2", "language": "python", "before": "v1", "after": "v2"},
    "columns": {"type": "columns", "cells": ["left", "right"], "widths": [2.0, 1.0]},
    "callout": {"type": "callout", "data": "careful", "tone": "warning", "title": "Shapes"},
}


def test_every_rendering_kind_has_a_renderer_and_a_schema_entry(renderer):
    import ast
    from pathlib import Path

    import jsonschema

    from tracer.contract.trace_format import RENDERING_TYPES
    from tracer.contract.trace_validation import schema

    assert set(RENDERING_EXAMPLES) == set(RENDERING_TYPES)
    rendering_schema = {**schema()["$defs"]["rendering"], "$defs": schema()["$defs"]}
    for kind, example in RENDERING_EXAMPLES.items():
        jsonschema.validate(example, rendering_schema)
        assert "unknown rendering type" not in renderer.rendering(example), kind
    # ... and every kind the authoring API emits is one of them.
    api = Path(__file__).resolve().parents[3] / "tracer" / "capture" / "api.py"
    emitted = {
        node.values[node.keys.index(key)].value
        for node in ast.walk(ast.parse(api.read_text()))
        if isinstance(node, ast.Dict)
        for key in node.keys
        if isinstance(key, ast.Constant) and key.value == "type" and isinstance(node.values[node.keys.index(key)], ast.Constant)
    }
    assert emitted and emitted <= set(RENDERING_TYPES), emitted - set(RENDERING_TYPES)


class _Viewed:
    def __lecture_view__(self):
        return [1, 2]


def test_every_value_kind_the_encoder_emits_is_declared_and_drawn():
    # Real objects through the real encoder, one per kind: a new kind fails here until it is in
    # trace_format.VALUE_TYPES (the contract) and cards.value_view draws it (not an "unknown" card).
    import ast
    import dataclasses
    from pathlib import Path

    import numpy as np
    import pandas
    import sympy
    import torch

    from tracer.capture.values import ValueEncoder
    from tracer.site.cards.value_families import value_view
    from tracer.contract.trace_format import VALUE_TYPES

    @dataclasses.dataclass
    class Point:
        x: int

    cyclic: list = []
    cyclic.append(cyclic)
    objects = [
        1,
        1.5,
        True,
        "s",
        None,
        1 + 2j,
        [1],
        (1,),
        {1},
        frozenset({1}),
        {"a": 1},
        Point(1),
        cyclic,
        np.zeros(2),
        np.float32(1),
        sympy.Symbol("x"),
        torch.finfo(torch.float32),
        torch.iinfo(torch.int32),
        torch.float32,
        torch.device("cpu"),
        torch.Size([2]),
        torch.nn.Linear(2, 2),
        value_view,
        Point,
        torch.zeros(2),
        object(),
        10**5000,
        torch.empty(2, device="meta"),
        torch.eye(2).to_sparse(),
        torch.nested.nested_tensor([torch.ones(1), torch.ones(2)]),
        _Viewed(),
        pandas.Series([1.5], index=["a"]),
    ]
    encoded = [ValueEncoder().encode(obj) for obj in objects] + [{"type": "missing", "name": "x", "message": "gone"}]

    def kinds(value):
        found = {value["type"]}
        for child in value.get("items", []):
            for item in child if isinstance(child, list) else [child]:
                found |= kinds(item)
        return found

    emitted = set().union(*(kinds(v) for v in encoded))
    assert emitted == set(VALUE_TYPES), emitted ^ set(VALUE_TYPES)
    # every kind is drawn by its family: a view naming macros the template has, a summary (or None
    # for a one-line card), a diff text, and a comparison that finds a changed value
    from tracer.contract.value_kinds import KINDS, ONE_LINE_TYPES
    from tracer.site.cards.render import HtmlRenderer
    from tracer.site.cards.templates import template_env, template_macros
    from tracer.site.cards.value_families import BY_KIND, compare, diff_text, summary_view

    env = template_env()
    macros = template_macros(env, "cards.html.j2")
    renderer = HtmlRenderer({"lecture": {"path": "x.py"}, "steps": [], "files": {}}, env)  # type: ignore[typeddict-item]
    for value in encoded:
        kind = value["type"]
        view = value_view(value)
        assert view["kind"] != "unknown", kind
        for part in ("macro", "card"):
            assert part not in view or callable(getattr(macros, view[part], None)), (kind, view.get(part))
        summary = summary_view(value)
        assert summary is None if kind in ONE_LINE_TYPES else summary is None or summary["kind"], kind
        assert isinstance(diff_text(value, str), str), kind
        changed: list = []
        compare(
            "v",
            value,
            {**value, "type": kind, "repr": "other", "value": 7, "items": [], "length": 9, "dtype": "other", "values": [9]},
            changed,
            lambda n, x, y, out: out.append((n, x, y, "")),
            str,
        )
        assert changed, kind
        assert 'data-name="v"' in renderer.value("v", value, step_index=0), kind
    for name in KINDS:
        family = BY_KIND[name]
        assert all(callable(getattr(family, part, None)) for part in ("view", "summary", "diff_text", "compare")), name
    # every literal kind in the encoder's source is declared too (a kind without an example above)
    capture = Path(__file__).resolve().parents[3] / "tracer" / "capture"
    sources = [(capture / name).read_text() for name in ("values.py", "torch_values.py", "numpy_values.py")]
    literal = {
        node.values[node.keys.index(key)].value
        for source in sources
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Dict)
        for key in node.keys
        if isinstance(key, ast.Constant) and key.value == "type" and isinstance(node.values[node.keys.index(key)], ast.Constant)
    }
    assert literal <= set(VALUE_TYPES), literal - set(VALUE_TYPES)


# -- exact numbers, NaN-aware statistics, whole-tensor heatmaps (real values through the encoder) --
def _card(obj, name="v"):
    from tracer.capture.values import ValueEncoder

    value = ValueEncoder().encode(obj)
    trace = {
        "lecture": {"name": "demo", "path": MAIN, "title": "Demo"},
        "files": {MAIN: SOURCE},
        "steps": [step(2, {name: value})],
    }
    renderer = HtmlRenderer(trace, template_env())
    return str(renderer.value(name, value, step_index=0)), renderer


def test_number_cards_show_every_digit():
    import numpy as np
    import torch

    assert "4,611,686,018,427,387,904" in text_of(_card(2**62)[0])
    assert "9,007,199,254,740,992" in text_of(_card(2.0**53 + 1)[0])
    assert " 5e-324 " in text_of(_card(5e-324)[0])
    assert " 1000.1 " in text_of(_card(np.float32(1000.1))[0])
    grid = text_of(_card(torch.tensor([1000.1, 5e-324 * 0 + 1e-45, -0.0]))[0])
    assert "1000.1" in grid and "1e-45" in grid and "-0.0" in grid and "lt-r" not in _card(torch.tensor([1000.1]))[0]


def test_a_grid_that_must_round_marks_each_rounded_cell_with_its_exact_value():
    import torch

    html, _ = _card(torch.tensor([[1 / 3, 2.0], [1000.1, 7.0]], dtype=torch.float32))
    assert 'class="lt-grid lt-rounded"' in html and 'tabindex="0"' in html  # the keyboard's cell cursor
    assert "<u>0.3333</u>" in html and "<u>1000</u>" in html
    assert html.count("<u>") == 2  # 2.0 and 7.0 are shown exactly: not marked
    exact = re.search(r'<details class="lt-exact"><summary>exact values</summary><pre[^>]*>(.*?)</pre>', html, re.S).group(1)
    assert exact.split() == ["0.33333334", "2.0", "1000.1", "7.0"]


def test_statistics_say_of_finite_values_and_a_mean_with_nan_is_nan():
    import torch

    html, _ = _card(torch.tensor([float("nan"), float("inf"), float("-inf"), 0.0, -0.0]))
    stats = text_of(re.search(r'<div class="lt-stats">.*?</div>', html).group(0))
    assert stats.split() == [
        "mean",
        "nan",
        "std",
        "nan",
        "of",
        "finite",
        "values",
        "2",
        "of",
        "5:",
        "min",
        "-0.0",
        "max",
        "-0.0",
        "mean",
        "0.0",
        "std",
        "0.0",
        "nans",
        "1",
        "infs",
        "2",
    ]
    old = tensor([2, 3], [3, 1], stats={"min": 1.0, "max": 2.0, "mean": 1.5, "std": 0.5, "nan_count": 1, "inf_count": 0})
    trace = {"lecture": {"name": "demo", "path": MAIN, "title": "Demo"}, "files": {MAIN: SOURCE}, "steps": [step(2, {"x": old})]}
    assert "of finite values" in text_of(HtmlRenderer(trace, template_env()).value("x", old, step_index=0))


def test_an_all_nan_card_says_no_finite_values_and_shows_no_none():
    import numpy as np
    import torch

    for value in (torch.full((300, 300), float("nan")), np.full((300, 300), np.nan)):
        html, _ = _card(value)
        text = text_of(html)
        stats = text_of(re.search(r'<div class="lt-stats">.*?</div>', html).group(0))
        assert "None" not in text
        assert stats.split() == ["mean", "nan", "std", "nan", "no", "finite", "values", "nans", "90,000"]
        legend = re.search(r'<span class="lt-hm [^"]*">.*?</span>', html, re.S).group(0)
        assert "no finite values" in text_of(legend) and "max |x|" not in legend


def test_sampled_statistics_say_so_with_the_sample_size():
    stats = {
        "min": 0.0,
        "max": 9.0,
        "mean": 4.5,
        "std": 3.0,
        "nan_count": 0,
        "inf_count": 0,
        "sampled": True,
        "sample_count": 65_536,
    }
    value = tensor([2, 3], [3, 1], stats=stats)
    trace = {
        "lecture": {"name": "demo", "path": MAIN, "title": "Demo"},
        "files": {MAIN: SOURCE},
        "steps": [step(2, {"x": value})],
    }
    html = HtmlRenderer(trace, template_env()).value("x", value, step_index=0)
    stats_text = text_of(re.search(r'<div class="lt-stats">.*?</div>', html).group(0))
    assert stats_text.split()[:9] == ["from", "a", "sample", "of", "65,536:", "min", "0.0", "max", "9.0"]


def test_a_64_by_64_mask_draws_every_element_and_a_big_tensor_its_block_means():
    import torch

    html, renderer = _card(torch.tril(torch.ones(64, 64)))
    assert 'lower-triangular (the whole tensor)"' in html and "sampled" not in text_of(html)  # the alt says both
    (png,) = renderer.heatmaps.values()
    assert png.startswith(b"\x89PNG")
    html, _ = _card(torch.eye(512) * 3)
    assert "mean of 4×4 blocks · max |x| 3.0" in text_of(html)
    assert re.search(r"<i>0\.0</i><b></b><i>3\.0</i>", html)  # the whole tensor's min and max


def test_a_storage_badge_qualifies_a_name_from_another_function():
    inner, outer, view = (tensor([2], [1], values=[1.0, 2.0], storage_id="s7") for _ in range(3))
    callee = {
        "stack": [{"path": MAIN, "line": 3, "function": "main"}, {"path": MAIN, "line": 2, "function": "attention"}],
        "env": {"out": inner},
        "renderings": [],
        "stdout": "",
        "memory": {"nbytes": 0, "peak_nbytes": 0},
    }
    trace = {
        "lecture": {"name": "d", "path": MAIN, "title": ""},
        "files": {MAIN: SOURCE},
        "steps": [callee, step(3, {"out": outer}), step(4, {"v": view})],
    }
    r = HtmlRenderer(trace, template_env())
    assert "shares storage with <code>attention.out</code>" in r.value("out", outer, step_index=1)
    # a name of the same frame comes first, then the other function's, qualified
    assert "shares storage with <code>out</code>, <code>attention.out</code>" in r.value("v", view, step_index=2)


def test_a_compute_card_says_which_ops_the_flop_counter_counted():
    import ast
    import math

    import torch

    from tracer.capture.compute import LineMeter

    q, k, d = torch.randn(8, 4), torch.randn(8, 4), 4
    meter = LineMeter(ast.parse("s = q @ k.T / math.sqrt(d)").body[0])
    meter.start()
    s = q @ k.T / math.sqrt(d)  # noqa: F841
    compute = meter.stop({"math": math}, {"q": q, "k": k, "d": d})
    assert compute["by_op"] == {"aten.mm": 2 * 8 * 4 * 8} and compute["uncounted_ops"] == ["aten.div"]
    trace = {"lecture": {"name": "d", "path": MAIN, "title": ""}, "files": {MAIN: SOURCE}, "steps": [step(2)]}
    text = text_of(HtmlRenderer(trace, template_env()).compute(compute))
    assert "PyTorch's FLOP counter counted aten.mm only; it does not count aten.div , which also ran." in text


def test_a_big_rounded_grid_carries_its_exact_copy_in_step_mode_only():
    import torch

    from tracer.capture.values import ValueEncoder

    value = ValueEncoder().encode(torch.arange(64, dtype=torch.float32).reshape(8, 8) / 3)
    trace = {
        "lecture": {"name": "demo", "path": MAIN, "title": "Demo"},
        "files": {MAIN: SOURCE},
        "steps": [step(2, {"v": value})],
    }
    renderer = HtmlRenderer(trace, template_env())
    stepped = str(renderer.value("v", value, step_index=0))
    read = str(renderer.value("v", value, step_index=0, exact_grids=False))
    assert "<u>" not in stepped  # 63 rounded cells: no per-cell markup
    assert '<details class="lt-exact">' in stepped and "0.33333334" in stepped
    assert '<details class="lt-exact">' not in read and 'data-exact="0"' in read
    # the read page's copy is in exact.js, laid out as the grid is (a tab between cells)
    (copy,) = json.loads(renderer.exact_js().removeprefix("window.CHALKTRACE_EXACT = ").rstrip(";\n"))
    rows = [line.split("\t") for line in copy.split("\n")]
    assert len(rows) == 8 and rows[0][1] == "0.33333334" and rows[7][7] == "21.0"
    # an equal grid elsewhere on the page shares the copy
    assert 'data-exact="0"' in str(renderer.value("w", value, step_index=0, exact_grids=False))
    assert len(renderer.exact_grids) == 1


def test_a_pandas_series_card_shows_its_name_dtype_index_and_values():
    import pandas

    from tracer.capture.values import ValueEncoder
    from tracer.site.cards.value_families import summary_view

    series = pandas.Series([0.5, 1.25, float("nan")], index=["mon", "tue", "wed"], name="loss")
    html, _renderer = _card(series, "losses")
    assert '<span class="lt-type">Series loss</span> <code>float64</code> <span class="lt-len">len 3</span>' in html
    rows = re.findall(r"<tr><th>(.*?)</th><td>(.*?)</td></tr>", html)
    assert [(re.sub("<[^>]+>", "", k), re.sub("<[^>]+>", "", v)) for k, v in rows] == [
        ("&#39;mon&#39;", "0.5"),
        ("&#39;tue&#39;", "1.25"),
        ("&#39;wed&#39;", "nan"),
    ]
    long = ValueEncoder().encode(pandas.Series(range(60)))
    assert long["truncated"] and len(long["index"]) == len(long["values"]) == 50 and long["length"] == 60
    assert "… 10 more" in _card(pandas.Series(range(60)))[0]
    assert summary_view(long) == {"kind": "Series", "dtype": "int64", "shape": "len 60", "text": "0: 0, 1: 1, 2: 2, …"}


def test_a_zero_d_tensor_or_array_and_a_numpy_scalar_are_one_line_cards():
    """A loss shows its dtype, value and grad on one line: no shape (), stride (), storage offset,
    one-cell storage drawing or statistics of a single element."""
    from helpers.traced import traced

    trace = traced("zero_d_values")
    renderer = HtmlRenderer(trace, template_env())
    found = {}
    for index, step in enumerate(trace["steps"]):
        for name, value in (step.get("env") or {}).items():
            found[name] = str(renderer.value(name, value, step_index=index))
    assert set(found) == {"loss", "lr", "scale"}
    for name, html in found.items():
        text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()
        assert "stride" not in text and "storage" not in text and "std" not in text and "mean" not in text, (name, text)
        assert "<svg" not in html and "lt-values" not in html, name
    assert re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", found["loss"])).split() == [
        "loss",
        "tensor",
        "float32",
        "36.0",
        "cpu",
        "requires_grad",
        "PowBackward0",
    ]
    assert "float64" in found["scale"] and "3.0" in found["scale"] and "ndarray" in found["scale"]
    assert "0.5" in found["lr"] and "float32" in found["lr"]
