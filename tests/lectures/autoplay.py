"""Fixture for autoplay: plain steps, a paragraph of text to read, and a second section to stop on."""

from tracer import text


def main():
    text("# Autoplay")
    a = 1  # @inspect a
    b = a + 1  # @inspect b
    c = b + 1  # @inspect c
    text("A paragraph of about twenty words, which takes a reader some seconds to read before the next step comes along.")
    d = c + 1  # @inspect d
    text("## Part two")
    total = 0  # @inspect total
    for i in range(4):
        total += i  # @inspect total
