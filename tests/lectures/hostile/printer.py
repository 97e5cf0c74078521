"""Prints 40,000 lines of 1 KB."""


def main():
    line = "x" * 1023
    for i in range(40_000):
        print(line)
    done = True  # @inspect done
