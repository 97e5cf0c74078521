"""Raises KeyboardInterrupt (as Ctrl-C would) halfway."""


def main():
    n = 1  # @inspect n
    raise KeyboardInterrupt
