"""Fixture: random numbers from random, numpy and torch (the run's seed decides them)."""

import random

import numpy as np
import torch


def main():
    r = random.random()  # @inspect r
    n = float(np.random.rand())  # @inspect n
    t = torch.rand(3)  # @inspect t
