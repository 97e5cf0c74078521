"""Recursion with no base case: the lecture ends in RecursionError about a thousand calls deep."""


def down(n):
    return down(n + 1)


def main():
    down(0)  # @raises
