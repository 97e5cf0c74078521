"""Fixture for compute accounting: @flops on a pure matmul, on a call into lecture code, on backward."""

import torch

calls = []


def project(x, w):
    calls.append(1)
    return x @ w  # @flops


def main():
    x = torch.ones(8, 16, requires_grad=True)
    w = torch.ones(16, 4, requires_grad=True)
    y = x @ w  # @flops
    z = project(x, w)  # @flops
    loss = (y + z).sum()
    loss.backward()  # @flops
    n_calls = len(calls)  # @inspect n_calls
