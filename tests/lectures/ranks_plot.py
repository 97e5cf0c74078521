"""A rank that draws a chart: the launcher's --max-plot-points bounds it as it bounds the launcher."""

import torch.multiprocessing as mp

from tracer import plot, text


def worker(rank: int, points: int) -> None:
    rows = [{"x": i, "y": i * i} for i in range(points)]
    plot({"mark": "line", "data": {"values": rows}, "encoding": {"x": {"field": "x"}, "y": {"field": "y"}}})


def main() -> None:
    text("# A rank that plots")
    points = 50  # @inspect points
    mp.spawn(worker, args=(points,), nprocs=1)
