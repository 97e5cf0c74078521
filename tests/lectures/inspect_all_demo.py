"""Fixture for --inspect-all: no directives, a few locals."""

import torch


def main():
    a = 1
    b = [a, 2]
    t = torch.ones(2)
    a = a + len(b)
