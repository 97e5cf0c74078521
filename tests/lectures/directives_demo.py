"""Fixture: every comment directive on a tiny lecture."""

import torch
from torch import nn


def make_pair():
    left = 1  # @inspect left
    right = 2
    return left, right


def main():
    a = 1
    b = 2  # @inspect a b
    c = a + b  # @inspect a, @inspect c
    model = nn.Linear(2, 1)  # @inspect model.weight
    x = torch.ones(2, requires_grad=True)
    model(x).sum().backward()  # @inspect x.grad
    ghost = 0  # @inspect nowhere
    gone = 5  # @inspect gone
    del gone  # @clear gone
    first = make_pair()  # @inspect first
    pair = make_pair()  # @stepover @inspect pair
    secret = 42  # @hide
    total = (a +
             b +
             c)  # @inspect total
    labels = dict(
        a=a,
        b=b,
    )  # @inspect labels
    for i in range(3):
        odd = i  # @frobnicate
    done = True  # @inspect done
