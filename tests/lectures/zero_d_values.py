"""Fixture: 0-d values a training loop shows at every step (a loss with its grad, a numpy scalar, a 0-d array)."""

import numpy as np
import torch


def main():
    w = torch.tensor(2.0, requires_grad=True)
    loss = (w * 3) ** 2  # @inspect loss
    lr = np.float32(0.5)  # @inspect lr
    scale = np.array(3.0)  # @inspect scale
