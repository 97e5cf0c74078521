"""Fixture for the step viewer: main calls a helper that calls another, a loop, a clear, a print."""

from tracer import text


def inner(n):
    square = n * n  # @inspect square
    return square


def helper(n):
    total = 0  # @inspect total
    total += inner(n)  # @inspect total
    total += 1  # @inspect total
    return total


def main():
    text("## Setup")
    a = 2  # @inspect a
    b = helper(a)  # @inspect b
    c = helper(a) + helper(b)  # @inspect c
    text("## Loop")
    for i in range(3):
        a = a + i  # @inspect a
    print("done", a)
    del b  # @clear b
    d = 7  # @inspect d
    e = twice(d)  # @inspect e


def twice(n):
    return inner(n) + inner(n)
