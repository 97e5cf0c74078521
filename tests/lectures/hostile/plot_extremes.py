"""A plot whose data spans ±1e308 and more points than any page needs."""

from tracer import plot


def main():
    plot({"mark": "line", "data": {"values": [{"x": i, "y": (-1) ** i * 1e308} for i in range(10)]},
          "encoding": {"x": {"field": "x", "type": "quantitative"}, "y": {"field": "y", "type": "quantitative"}}})
    plot({"mark": "point", "data": {"values": [{"x": i, "y": i * i} for i in range(200_000)]},
          "encoding": {"x": {"field": "x", "type": "quantitative"}, "y": {"field": "y", "type": "quantitative"}}})
