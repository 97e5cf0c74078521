"""Fixture for the site build: a lecture whose main() raises."""

from tracer import text


def main():
    text("# Broken")
    n = 3  # @inspect n
    raise ValueError("no <good>")
