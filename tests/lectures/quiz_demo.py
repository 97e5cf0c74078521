"""Fixture: quiz mode (a transpose asked automatically, an @ask, an @noask), far enough apart."""

import torch

from tracer import text


def main():
    text("## Views")
    x = torch.arange(6).reshape(2, 3)  # @noask @inspect x
    y = x.T  # @inspect y
    for _ in range(10):
        pass
    z = y.contiguous()  # @ask z shares y
    for _ in range(10):
        pass
    w = x[:, 1]  # @inspect w @noask
    for _ in range(10):
        pass
    n = z.numel()  # @ask n
