"""Hello, chalktrace: a one-screen tour of every authoring call and every comment directive."""

from dataclasses import dataclass

import torch

from tracer import image, link, note, plot, text


@dataclass
class Reference:
    title: str
    url: str
    authors: str
    date: str


PYTORCH_PAPER = Reference(
    title="PyTorch: An Imperative Style, High-Performance Deep Learning Library",
    url="https://arxiv.org/abs/1912.01703",
    authors="Paszke et al.",
    date="2019-12",
)


def double(values: torch.Tensor) -> torch.Tensor:
    doubled = values * 2  # @inspect doubled
    return doubled


def main():
    text("# Hello, chalktrace")
    text("A lecture is a Python program. `text()` lines read as prose; code lines run, and you can step through them.")
    x = torch.arange(6.0).reshape(2, 3)  # @inspect x
    row = x[1]  # @inspect x row
    assert row.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    note("`row` is a *view*: it shares storage with `x`, so the two cards show the same storage.")
    y = double(row)  # @inspect row, @inspect y
    assert y.tolist() == [6.0, 8.0, 10.0]
    link(double)
    z = x @ x.T  # @flops @inspect z
    print("z has shape", tuple(z.shape))
    ones = double(torch.ones(3))  # @stepover @inspect ones
    secret = 42  # @hide
    del row  # @clear row
    text("Math works too: $\\sum_i x_i = 15$.")
    assert x.sum().item() == 15 and secret == 42
    image("images/bfloat16.svg", width=380, alt="bfloat16: 16 bits, 1 sign bit, 8 exponent bits, 7 mantissa bits")
    link("https://pytorch.org/docs/stable/tensors.html")
    link(title="einops", url="https://einops.rocks")
    link(PYTORCH_PAPER)
    plot({
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "data": {"values": [{"i": i, "x": v} for i, v in enumerate(x.flatten().tolist())]},
        "mark": "bar",
        "encoding": {"x": {"field": "i", "type": "ordinal"}, "y": {"field": "x", "type": "quantitative"}},
    })


if __name__ == "__main__":
    main()
