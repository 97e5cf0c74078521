"""@inspect lines that name nothing there: an index past the end, a misspelt name."""

from tracer import text


def main():
    text("An @inspect that cannot be read.")
    v = [1, 2, 3]  # @inspect v[5]
    w = 4  # @inspect wx w
    text("The end.")


if __name__ == "__main__":
    main()
