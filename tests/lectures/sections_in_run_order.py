"""Fixture: two helpers defined above main, each first run in its own section."""

from tracer import text


def f(a):
    b = a + 1  # @inspect b
    return b


def g(a):
    c = a * 2  # @inspect c
    return c


def main():
    text("## A")
    x = f(1)  # @inspect x
    text("## B")
    y = g(2)  # @inspect y
