"""A UTF-8 source that starts with a BOM (as Windows editors write them)."""

from tracer import text


def main():
    word = "naïve"  # @inspect word
    text("BOM first")
