"""Calls sys.exit(0) halfway: the lecture did not complete."""

import sys


def main():
    n = 1  # @inspect n
    sys.exit(0)
    n = 2  # never runs
