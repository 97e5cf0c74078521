"""Tensor-dominated work: few lecture lines, each doing real matrix arithmetic."""

import torch


def main():
    x = torch.randn(1024, 1024)  # @inspect x
    w = torch.randn(1024, 1024) / 32  # @inspect w
    for _ in range(20):
        y = x @ w  # @inspect y
        x = torch.tanh(y)
    z = x.sum()  # @inspect z
