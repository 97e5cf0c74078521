"""Fuzzing the value path: generated values -> encoder -> trace JSON -> schema -> page card.

Hypothesis generates nested containers, huge and tiny numbers, NaN/Inf, odd strings (lone
surrogates, markup, control characters), numpy arrays and torch tensors of every dtype (complex,
bool, int8, bfloat16, float8 where present), zero-size and non-contiguous. For each value the
encoder must not raise, its record must serialise to strict UTF-8 JSON, a trace holding it must
validate against the schema, and the card rendered from it must contain no live markup from the
value. Settings are fixed (derandomized, a bounded number of examples) so CI runs it in seconds.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tracer.contract import paths
from tracer.capture.trace_writer import dumps
from tracer.capture.values import ValueEncoder
from tracer.site.cards.render import HtmlRenderer
from tracer.site.cards.templates import template_env
from tracer.contract.trace_reading import expand_stacks
from tracer.contract.trace_validation import validation_error
from helpers.xss_attacks import attack, live_content

FUZZ = settings(
    max_examples=60,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

ODD_STRINGS = st.sampled_from(
    [
        "",
        "\ud800",
        "a\udfffb",
        "</script><script>alert(1)</script>",
        "<b>bold</b> & &amp;",
        "\x00\x1b[31m",
        "\u202eevil",
        "e\u0301",
        "🦜" * 3,
        "x" * 5000,
        "${{7*7}}",
        "{% raw %}",
        "\\u0000",
        '"quoted"\n',
    ]
)
TEXT = st.one_of(ODD_STRINGS, st.text(st.characters(codec=None, exclude_categories=()), max_size=40))
NUMBERS = st.one_of(
    st.integers(),
    st.integers(min_value=0, max_value=6000).map(lambda e: 10**e),
    st.integers(min_value=0, max_value=6000).map(lambda e: -(10**e) - 1),
    st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True),
    st.sampled_from([5e-324, 1e308, -1e308, 0.0, -0.0]),
    st.complex_numbers(allow_nan=True, allow_infinity=True),
)

TORCH_DTYPES = [
    torch.float32,
    torch.float64,
    torch.float16,
    torch.bfloat16,
    torch.complex64,
    torch.complex128,
    torch.bool,
    torch.int8,
    torch.uint8,
    torch.int16,
    torch.int32,
    torch.int64,
]
TORCH_DTYPES += [
    getattr(torch, name) for name in ("float8_e4m3fn", "float8_e5m2", "uint16", "uint32", "uint64") if hasattr(torch, name)
]
NUMPY_DTYPES = [
    np.float16,
    np.float32,
    np.float64,
    np.complex64,
    np.complex128,
    np.bool_,
    np.int8,
    np.uint8,
    np.int16,
    np.int32,
    np.int64,
    np.uint64,
]


def _reshaped(array: np.ndarray, how: int) -> np.ndarray:
    if array.ndim == 0:
        return array
    return [array, array[::-1], array.T, array[..., ::2], np.flip(array, -1)][how]


@st.composite
def numpy_arrays(draw: st.DrawFn) -> np.ndarray:
    dtype = draw(st.sampled_from(NUMPY_DTYPES))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=30))
    array = draw(hnp.arrays(dtype, shape, elements=None, fill=st.nothing() if math.prod(shape) < 200 else None))
    return _reshaped(array, draw(st.integers(0, 4)))


@st.composite
def tensors(draw: st.DrawFn) -> torch.Tensor:
    dtype = draw(st.sampled_from(TORCH_DTYPES))
    shape = draw(st.lists(st.integers(0, 40), min_size=0, max_size=3))
    fill = draw(st.sampled_from(["randn", "extreme", "zeros"]))
    base = torch.randn(shape, dtype=torch.float64, generator=torch.Generator().manual_seed(draw(st.integers(0, 9))))
    if fill == "extreme" and base.numel():
        base.view(-1)[:: max(1, base.numel() // 4)] = draw(st.sampled_from([math.inf, -math.inf, math.nan, 1e308]))
    elif fill == "zeros":
        base = torch.zeros(shape, dtype=torch.float64)
    if dtype.is_complex:
        t = torch.complex(base, base.flip(-1) if base.dim() else base).to(dtype)
    elif dtype == torch.bool:
        t = base > 0
    elif dtype.is_floating_point:
        t = base.to(dtype)
    else:
        t = base.nan_to_num(0.0, 0.0, 0.0).clamp(-100, 100).to(torch.int64).to(dtype)
    how = draw(st.integers(0, 2))
    if how == 1 and t.dim() >= 2:
        t = t.transpose(0, 1)
    elif how == 2 and t.dim() >= 1:
        t = t[..., ::2]
    return t


VALUES = st.recursive(
    st.one_of(NUMBERS, TEXT, st.none(), st.booleans(), st.binary(max_size=20), numpy_arrays(), tensors()),
    lambda inner: st.one_of(
        st.lists(inner, max_size=6),
        st.tuples(inner, inner),
        st.dictionaries(st.one_of(TEXT, st.integers()), inner, max_size=5),
        st.frozensets(st.one_of(st.integers(), TEXT), max_size=5),
    ),
    max_leaves=12,
)


def _trace(value_record: dict) -> dict:
    step = {"frame": 0, "env": {"v": value_record}, "renderings": [], "stdout": "", "memory": {"nbytes": 0, "peak_nbytes": 0}}
    header = {
        "schema_version": 2,
        "lecture": {"name": "fuzz", "path": "lectures/fuzz.py", "title": "Fuzz"},
        "frames": [{"path": "lectures/fuzz.py", "line": 2, "function": "main", "parent": None}],
        "sources": {},
        "files": {"lectures/fuzz.py": "def main():\n    v = 1  # @inspect v\n"},
        "hidden_lines": {},
        "status": "ok",
        "environment": {
            "python": "3.11",
            "torch": None,
            "numpy": None,
            "device": "cpu",
            "gpu_name": None,
            "gpu_total_memory_nbytes": None,
            "memory_source": "cpu_recorded",
            "seed": 0,
        },
        "truncated": None,
        "warnings": [],
    }
    return header, step


_ENV = template_env(paths.TEMPLATES_DIR)


@FUZZ
@given(VALUES)
def test_any_value_encodes_to_a_valid_trace_and_an_escaped_card(value):
    encoder = ValueEncoder()
    record = encoder.encode(value)
    header, step = _trace(record)
    text = dumps({**header, "steps": [step]})  # the writer's own JSON encoder (strict: no NaN, no Infinity)
    data = text.encode("utf-8")  # strict: lone surrogates would raise here
    trace = json.loads(data.decode("utf-8"))
    assert validation_error(trace) is None
    expand_stacks(trace)
    html = str(HtmlRenderer(trace, _ENV).value("v", trace["steps"][0]["env"]["v"], step_index=0))
    lowered = html.lower()
    assert "<script" not in lowered and "<b>bold" not in lowered


@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0, 2), (), (5, 7)])
def test_every_torch_dtype_and_zero_size_shape(dtype, shape):
    t = torch.zeros(shape, dtype=torch.float32).to(dtype)
    record = ValueEncoder().encode(t)
    assert record["type"] == "tensor" and record["shape"] == list(shape)
    json.dumps(record, allow_nan=False)


# -- lecture prose: the sanitizer keeps no live script ------------------------------------------------------
def _page_markdown():
    """A Markdown converter with the extensions a lecture page is built with (mkdocs.yml plus the
    sanitizer and sane_lists the plugin adds)."""
    import markdown
    from mkdocs.config import load_config

    config = load_config(str(Path(__file__).resolve().parent.parent / "mkdocs.yml"))
    extensions = [*config["markdown_extensions"], "tracer.site.markdown_ext.sanitize", "sane_lists"]
    return markdown.Markdown(extensions=extensions, extension_configs=config["mdx_configs"])


@FUZZ
@given(st.lists(attack(), min_size=1, max_size=4).map("\n\n".join))
def test_attack_strings_never_reach_html_live(prose):
    """Generated XSS filter-evasion strings through both paths lecture prose takes to HTML: the
    read page's Markdown (every mkdocs.yml extension, then the sanitizer) and the step viewer's."""
    from tracer.site.markdown_ext.mathml import render_markdown

    for html in (render_markdown(prose), _page_markdown().convert(prose)):
        assert live_content(html) == [], (prose, html)
        assert "<script" not in html.lower(), (prose, html)
