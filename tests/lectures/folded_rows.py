"""Value grids longer than a card's preview rows: folded after 8 rows by default, or as @inspect asks."""

import numpy as np
import torch

from tracer import text


def main():
    text("A batch of 128 examples, two features each.")
    x = torch.arange(256, dtype=torch.float32).reshape(128, 2)  # @inspect x
    wide = torch.arange(256, dtype=torch.float32).reshape(128, 2) / 7  # @inspect wide rows=32
    small = torch.ones(4, 2)  # @inspect small
    table = np.arange(40).reshape(20, 2)  # @inspect table
    text("The end.")


if __name__ == "__main__":
    main()
