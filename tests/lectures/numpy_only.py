"""Fixture: a numpy lecture that never imports torch (tracing it must not import torch either)."""

import numpy as np

from tracer import text


def main():
    text("## Arrays without torch")
    a = np.linspace(0.0, 1.0, 5)  # @inspect a
    total = float(a.sum())  # @inspect total
    b = a @ a  # @flops @inspect b
