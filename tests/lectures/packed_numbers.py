"""Fixture: numbers of every shape a packed data.js must give back exactly, in a loop that changes them."""

import torch


def main():
    generator = torch.Generator().manual_seed(1)
    scale = torch.tensor([1e-8, 3e-5, 0.5, 1234.5, 6.1e7, 3.4e38, -2.5e-3, 1 / 3], dtype=torch.float32)  # @inspect scale
    halves = torch.tensor([0.125, 2.5, 1.0625, -7.75])  # @inspect halves
    counts = torch.arange(12).reshape(3, 4) * 1001  # @inspect counts
    wide = torch.tensor([1 / 7, 2.0**-30, 1e300])  # @inspect wide
    for step in range(8):
        w = torch.randn(3, 3, generator=generator) * 10.0 ** (step - 3)  # @inspect w
        x = torch.randn(4, generator=generator)  # @inspect x
        mean = float(w.mean())  # @inspect mean
        label = f"run {step}: {mean:.3g}"  # @inspect label
    for _ in range(40):
        x = torch.randn(4, generator=generator)  # @inspect x
    return w
