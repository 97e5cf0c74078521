"""A plain lecture (the target of the -o safety tests)."""


def main():
    x = 41 + 1  # @inspect x
