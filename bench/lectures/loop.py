"""A pure-Python loop: about 200,000 executed lecture lines, one scalar inspected per iteration."""


def step(total, i):
    total += i
    return total


def main():
    total = 0
    for i in range(40_000):
        total = step(total, i)  # @inspect total
    assert total == sum(range(40_000))
