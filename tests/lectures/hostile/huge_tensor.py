"""Inspects a 100-million-element tensor."""

import torch


def main():
    t = torch.zeros(10_000, 10_000)  # @inspect t
    v = t[::2, 1::3]  # @inspect v
    del t, v
