"""Fixture: one frame with thirty variables (tensors and numbers), each inspected on its own line."""

import torch

from tracer import text


def main():
    text("# Thirty values")
    a = torch.arange(12.0).reshape(3, 4)  # @inspect a
    b = a * 2  # @inspect b
    c = a.T  # @inspect c
    d = b.sum()  # @inspect d
    e = a[1]  # @inspect e
    f = torch.ones(5, 5)  # @inspect f
    g = f @ f  # @inspect g
    h = 7  # @inspect h
    i = h * 3  # @inspect i
    j = torch.zeros(2, 3, 4)  # @inspect j
    text("Halfway there: the panel keeps the newest value in view.")
    k = j + 1  # @inspect k
    m = k.reshape(6, 4)  # @inspect m
    n = m.mean()  # @inspect n
    o = torch.eye(6)  # @inspect o
    p = o * 0.5  # @inspect p
    q = p.diagonal()  # @inspect q
    r = q.cumsum(0)  # @inspect r
    s = r[-1].item()  # @inspect s
    t = [1, 2, 3]  # @inspect t
    u = {"lr": 0.1, "steps": 10}  # @inspect u
    v = torch.linspace(0, 1, 9)  # @inspect v
    w = v.reshape(3, 3)  # @inspect w
    x = w @ w  # @inspect x
    y = x.max()  # @inspect y
    z = "thirty values"  # @inspect z
    aa = torch.tril(torch.ones(4, 4))  # @inspect aa
    bb = aa.masked_fill(aa == 0, float("-inf"))  # @inspect bb
    cc = bb.softmax(dim=-1)  # @inspect cc
    dd = cc.sum(dim=-1)  # @inspect dd
    ee = dd.tolist()  # @inspect ee
    a = a + 100  # @inspect a
    text("The end.")
