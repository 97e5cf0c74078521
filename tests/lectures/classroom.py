"""Fixture for presenting: speaker notes, and tensors for heatmaps (signed, unsigned, 3-d, large, NaN/Inf)."""

import torch

from tracer import speaker_note, text


def main():
    text("# Classroom")
    speaker_note("Open with the **question**: what does a weight matrix look like?")
    w = torch.linspace(-1.5, 1.5, 12).reshape(3, 4)  # @inspect w
    counts = torch.arange(12).reshape(3, 4)  # @inspect counts
    text("## Attention")
    speaker_note("""
        Say why attention maps are *square*.
        Then point at the diagonal.
    """)
    scores = torch.randn(64, 64)  # @inspect scores
    cube = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4) - 10  # @inspect cube
    bad = torch.tensor([[1.0, float("nan")], [float("inf"), -float("inf")]])  # @inspect bad
    layer = torch.nn.Linear(3, 2)  # @inspect layer
    total = 0  # @inspect total
    for i in range(3):
        total += i  # @inspect total
    text("That is all.")
