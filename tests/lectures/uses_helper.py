"""Fixture: a lecture that imports a helper module from its own directory by plain name."""

import _helper_mod


def main():
    x = _helper_mod.triple(2)  # @inspect x
    y = x + 1  # @inspect y
