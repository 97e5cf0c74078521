"""Fixture for the step viewer: a long loop in main with a nested call, so env snapshots are used."""


def bump(value):
    return value + 1


def main():
    total = 0  # @inspect total
    for i in range(40):
        total = bump(total)  # @inspect total i
        if i == 20:
            twenty = total  # @inspect twenty
        if i == 30:
            del twenty  # @clear twenty
    done = True  # @inspect done
