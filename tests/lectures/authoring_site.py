"""Fixture: how the site shows authoring conveniences: citations, paragraphs, hidden directives."""

from dataclasses import dataclass

from _cite_helpers import named_link

from tracer import link, plot, text


@dataclass
class Paper:
    title: str
    url: str
    authors: list
    date: str
    notes: str = ""


KAPLAN = Paper(title="Scaling Laws for Neural Language Models", url="https://arxiv.org/abs/2001.08361",
               authors=["Jared Kaplan", "Sam McCandlish"], date="2020-01-23", notes="the 6ND rule")
POINTS = [{"x": i, "y": i * i, "c": "odd" if i % 2 else "even"} for i in range(8)]


def main():
    text("# Authoring on the site")
    text("See"), link(KAPLAN)
    named_link("einops", "https://einops.rocks")
    params = 40000000000.0  # @inspect params
    tiny = 1e-12  # @inspect tiny
    flops = 6 * params  # six FLOPs per parameter @inspect flops
    for step in range(3):
        total = step * 2  # @inspect total
    text("usage:\n    indented line", verbatim=True)
    plot({"data": {"values": POINTS}, "layer": [
        {"mark": "line", "encoding": {"x": {"field": "x", "type": "quantitative"}, "y": {"field": "y", "type": "quantitative"}}},
        {"mark": "point", "encoding": {"x": {"field": "x", "type": "quantitative"}, "y": {"field": "y", "type": "quantitative"}}},
    ]})
    plot({"data": {"values": POINTS}, "facet": {"column": {"field": "c"}},
          "spec": {"mark": "bar", "encoding": {"x": {"field": "x", "type": "ordinal"}, "y": {"field": "y", "type": "quantitative"}}}})
