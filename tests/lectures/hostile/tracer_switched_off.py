"""A lecture that switches the tracer off half-way (as a debugger or another tool would)."""

import sys


def main():
    before = 1  # @inspect before
    sys.settrace(None)
    after = 2  # @inspect after
    print("after", after)
