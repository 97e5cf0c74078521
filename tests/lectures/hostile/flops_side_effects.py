"""@flops on lines with side effects: each must run exactly once."""

import numpy as np


class Counter:
    def __init__(self):
        self.n = 0

    def add(self, k):
        self.n += k
        return self.n


def main():
    counter = Counter()
    a = np.ones(3)
    out = np.zeros(3)
    for _ in range(5):
        total = counter.add(1)  # @flops
        r = np.add(out, a, out)  # @flops
    n = counter.n  # @inspect n
    first = float(out[0])  # @inspect first
