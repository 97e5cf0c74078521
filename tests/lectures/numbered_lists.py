"""Fixture: prose lists numbered from 0, nested, and from 1 (Material letters a nested list)."""

from tracer import text


def main():
    text("# Numbered lists")
    text("Steps:\n\n0. Tokenize\n    0. split into bytes\n    1. merge pairs\n1. Train\n")
    text("From one:\n\n1. Train\n    1. forward\n    2. backward\n2. Evaluate\n")
