"""Inspects and prints a str holding a lone surrogate."""


def main():
    s = "a\ud800b"  # @inspect s
    print(s)
    d = {"k\udfff": [s]}  # @inspect d
