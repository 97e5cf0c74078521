"""Fixture: tensors, a view, a copy and a deletion (storages and memory)."""

import torch


def main():
    x = torch.zeros(4, 4)  # @inspect x
    row = x[1]  # @inspect row
    xt = x.T.contiguous()  # @inspect xt
    del xt  # @clear xt
    y = torch.ones(8, dtype=torch.float64)  # @inspect y
