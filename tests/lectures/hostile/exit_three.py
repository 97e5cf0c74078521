"""Calls sys.exit(3) halfway."""

import sys


def main():
    n = 1  # @inspect n
    sys.exit(3)
