"""Values that try to end the lecture or leave fingerprints while they are shown."""

import asyncio
import warnings

import numpy as np


class Exits:
    def __repr__(self):
        raise SystemExit(3)


class Interrupts:
    def __repr__(self):
        raise KeyboardInterrupt


class Cancels:
    def __repr__(self):
        raise asyncio.CancelledError()


class Counted:
    reads = 0

    @property
    def total(self):
        Counted.reads += 1
        print("property ran")
        return 42


def main():
    a = Exits()  # @inspect a
    b = Interrupts()  # @inspect b
    c = Cancels()  # @inspect c
    warnings.simplefilter("error")
    np.seterr(all="raise")
    big = np.array([1e308, 1e308, np.nan])  # @inspect big
    counted = Counted()
    value = counted.total  # @inspect counted.total value
    print("reads", Counted.reads)
    done = True  # @inspect done
