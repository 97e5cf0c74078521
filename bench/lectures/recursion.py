"""A recursion 1,000 calls deep: every step below the top has a stack as deep as the recursion is so far."""

import sys

DEPTH = 1_000


def down(n):
    if n == 0:
        return 0
    below = down(n - 1)
    return below + 1


def main():
    sys.setrecursionlimit(DEPTH + 1_000)  # the tracer and the runner hold frames of their own
    depth = down(DEPTH)  # @inspect depth
    assert depth == DEPTH
