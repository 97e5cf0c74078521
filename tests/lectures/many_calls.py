"""Fixture: many calls and deep returns, for an exact step cap (returns and call steps append too)."""


def leaf(i):  # @inspect i
    return i


def down(n):
    return leaf(n) if n == 0 else down(n - 1)


def main():
    total = 0
    for i in range(30):
        total += down(i % 7) + leaf(leaf(i))
    print(total)
