"""Fixture: every authoring call once, plus stdout, each on its own line."""

from dataclasses import dataclass

from tracer import image, link, note, plot, text


@dataclass
class Paper:
    title: str
    url: str
    authors: str
    year: int


def helper():
    return 1


def main():
    text("# Renderings demo")
    note("An aside.")
    image("images/renderings_pixel.svg", width=40)
    image("https://example.org/figure.png")
    link(helper)
    link(Paper(title="A paper", url="https://example.org/paper", authors="A. Author", year=2020))
    link("https://example.org/plain", title="Plain")
    plot({"mark": "bar", "data": {"values": [{"x": 1, "y": 2}]}})
    print("hello from stdout")
    value = helper()
    print("two", "parts")
    print("same line again")
