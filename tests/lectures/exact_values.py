"""Fixture: exact numbers, NaN-aware statistics, whole-tensor heatmaps, a table, def-line values."""

import math

import torch

from tracer import table, text


def attention(q, k, v):  # @inspect q k v
    scores = q @ k.T / math.sqrt(q.shape[-1])  # @inspect scores
    out = torch.softmax(scores, dim=-1) @ v  # @inspect out
    return out


def main():
    text("## Every number exact")
    big = torch.tensor([2**62, -2**63, 2**53 + 1], dtype=torch.int64)  # @inspect big
    single = torch.tensor([1000.1, 0.1, -0.0], dtype=torch.float32)  # @inspect single
    beyond = 2.0**53 + 1  # @inspect beyond
    tiny = 5e-324  # @inspect tiny
    rounded = torch.tensor([[1 / 3, 2.0], [1000.1, 7.0]])  # @inspect rounded
    special = torch.tensor([math.nan, math.inf, -math.inf, 0.0, -0.0])  # @inspect special
    sevenths = torch.arange(600, dtype=torch.float32).reshape(30, 20) / 7  # @inspect sevenths rows=32
    text("## Heatmaps of the whole tensor")
    mask = torch.tril(torch.ones(64, 64))  # @inspect mask
    eye = torch.eye(512)  # @inspect eye
    text("## A table")
    table([{"dtype": "float32", "bits": 32, "eps": torch.finfo(torch.float32).eps},
           {"dtype": "bfloat16", "bits": 16, "eps": torch.finfo(torch.bfloat16).eps}])
    torch.manual_seed(0)
    q = torch.randn(4, 8)
    out = attention(q, q, q)  # @inspect out
