"""Fixture: main() prints, then a helper raises; the trace must end at the failing line."""


def divide(a, b):
    return a / b


def main():
    n = 3  # @inspect n
    print("before the error")
    ratio = divide(n, 0)  # @inspect ratio
    after = ratio + 1  # never runs
