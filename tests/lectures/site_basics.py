"""Fixture for the site build: headings, code, values, a note, an image, links, math, a loop."""

import torch
from jaxtyping import Float

from tracer import image, link, note, text


def double(t):
    return t * 2


def main():
    text("# Site basics")
    text("## Tensors")
    text("Energy is $E = mc^2$ and a sum is $$\\sum_i x_i$$")
    x: Float[torch.Tensor, "rows cols"] = torch.arange(6, dtype=torch.float32).reshape(3, 2)  # @inspect x
    y = x.T  # @inspect y
    z = double(y)  # @inspect z
    note("Transposing shares storage.")
    text("## Values")
    s = "<script>alert(1)</script>"  # @inspect s
    secret_setup = 42  # @hide
    total = 0  # @inspect total
    for i in range(5):
        total += i  # @inspect total
    image("images/dot.svg", width=40)
    link(double)
    link("https://example.org/paper", title="A paper")
