# -*- coding: latin-1 -*-
"""A source in latin-1 with a PEP 263 coding line."""

from tracer import text


def main():
    word = "café"  # @inspect word
    text("déjà vu")
