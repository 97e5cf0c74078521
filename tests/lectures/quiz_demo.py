"""Fixture: quiz mode (a transpose asked automatically, @ask of a value and of FLOPs, @noask), far apart."""

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
    for _ in range(10):
        pass
    a = torch.ones(2, 3)  # @inspect a @noask
    p = a @ a.T  # @ask flops
