"""Tensors allocated, aliased, rebound, freed and viewed, with pure-Python lines between them."""

import torch


def make(n):
    return torch.zeros(n)


def grow(t):
    t = t * 2
    return t


def main():
    total = 0
    for i in range(30):
        total += i
    a = torch.ones(1000)
    b = a
    c = a + 1
    x = 3
    y = x + 1
    del a
    del b
    c = make(500)
    pair = [c, c]
    pair = None
    for i in range(3):
        c = grow(c)
    c += 1
    kept = (c, c)
    del c
    del kept
    e = torch.arange(10)  # @inspect e
    f = e[2:5]
    del e
    g = f.clone()
    del f
    big = torch.empty(4096)
    big = None
    z = [y, x]
    scalar = g.sum()  # @inspect scalar
    del g
    return z, scalar, pair, big
