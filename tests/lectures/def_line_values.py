"""Fixture: values named on a def line stay in view while the call runs; two calls, a @clear."""

from tracer import text


def attention(q, k, v):  # @inspect q k v
    scores = q * k  # @inspect scores
    weights = scores + 1
    out = weights * v  # @clear k
    return out


def main():
    text("Def-line values")
    a = attention(1, 2, 3)  # @inspect a
    b = attention(4, 5, 6)  # @inspect b
