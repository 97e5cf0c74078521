"""Fixture for export: prose with math, an image, a plot, a speaker note, an @animate line and values in two sections."""

from tracer import image, plot, speaker_note, text


def setup():
    text("## Setup")
    text("A circle's area is $a = \\pi r^2$.")
    image("images/renderings_pixel.svg", width=40, alt="one red pixel")
    r = 2  # @inspect r
    return r


def results(r):
    text("## Results")
    speaker_note("EXPORT-SECRET-NOTE: say the units out loud")
    text("### The area")
    area = 3.14159 * r * r  # @inspect area
    plot({"mark": "bar", "data": {"values": [{"x": 1, "y": area}, {"x": 2, "y": 2 * area}]},
          "encoding": {"x": {"field": "x", "type": "ordinal"}, "y": {"field": "y", "type": "quantitative"}}})
    text("First, the radius."), text("Then, the square."), text("Last, times pi.")  # @animate
    text("Done.")


def main():
    text("# Export demo")
    r = setup()
    results(r)
