"""Fixture: nested lecture calls, a module's forward, comprehensions, lambdas and library calls."""

import json

import torch
from torch import nn


class Doubler(nn.Module):
    def forward(self, x):
        y = x * 2  # @inspect y
        return y


def square(n):
    result = n * n  # @inspect result
    return result


def twice(n):
    once = square(n)  # @inspect once
    return square(once)


def main():
    squares = [k * k for k in range(4)]  # @inspect squares
    evens = {k for k in range(6) if k % 2 == 0}  # @inspect evens
    bump = lambda v: v + 1
    g = bump(2)  # @inspect g
    total = sum(v for v in range(5))  # @inspect total
    s = twice(2)  # @inspect s
    t = square(2) + square(3)  # @inspect t
    doubled = Doubler()(torch.ones(2))  # @inspect doubled
    text = json.dumps({"a": 1})  # @inspect text
