"""Fixture: image() of a file that does not exist."""

from tracer import image, text


def main():
    text("# Missing image")
    image("images/no_such_picture.png")
