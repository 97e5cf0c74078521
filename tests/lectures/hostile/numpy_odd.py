"""numpy arrays: negative strides, complex, object, zero-size."""

import numpy as np


def main():
    flipped = np.arange(1200).reshape(30, 40)[::-1]  # @inspect flipped
    small_flipped = np.arange(6).reshape(2, 3)[::-1]  # @inspect small_flipped
    z = np.array([1 + 2j, 3 - 4j])  # @inspect z
    big_z = np.ones((30, 30), dtype=np.complex64)  # @inspect big_z
    objs = np.array([1, "a", None], dtype=object)  # @inspect objs
    empty = np.zeros((0, 3))  # @inspect empty
