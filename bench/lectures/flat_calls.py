"""The same function as recursion.py, called 1,000 times from a loop: the same lines, one call deep."""


def down(n):
    if n == 0:
        return 0
    below = n - 1
    return below + 1


def main():
    total = 0
    for n in range(1_000):
        total += down(n)  # @inspect total
    assert total == sum(range(1_000))
