"""Writes to stderr and warns: both are part of what the lecture shows."""

import sys
import warnings


def main():
    print("to stdout")  # @inspect not_defined_here
    print("to stderr", file=sys.stderr)
    warnings.warn("careful: this is a lecture warning")
    for i in range(3):
        sys.stderr.write(f"err {i}\n")
