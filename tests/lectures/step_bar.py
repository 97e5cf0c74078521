"""Fixture: what changes the step bar's contents while stepping: a long section name, a call into a
helper (the "calling" badge), a short one, and a step counter that grows to two and three digits."""

from tracer import text


def helper(n):
    total = 0
    for i in range(n):
        total += i  # @inspect total
    return total


def main():
    text("## A")
    a = 1  # @inspect a
    text("## A section whose name is far longer than any window's bar could ever show on one line")
    b = helper(40)  # @inspect b
    text("## B")
    c = helper(3)  # @inspect c
