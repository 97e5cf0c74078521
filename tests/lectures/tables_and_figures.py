"""Fixture: table() of a DataFrame, an array and records; a matplotlib figure in plot()."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from tracer import plot, table, text  # noqa: E402


def main():
    text("## Tables")
    frame = pd.DataFrame({"model": ["small", "large"], "params": [124_000_000, 2**62], "loss": [3.25, 2.5]},
                         index=["a", "b"])
    table(frame)
    table(np.arange(200, dtype=np.float32).reshape(100, 2) + np.float32(0.1))
    table([{"name": "adam", "lr": 1e-3}, {"name": "sgd", "lr": 0.1, "momentum": 0.9}])
    figure, axes = plt.subplots(figsize=(3, 2))
    axes.plot([0, 1, 2], [0, 1, 4], label="<script>alert(1)</script>")
    axes.set_title("squares")
    figure.suptitle("A figure")
    plot(figure)
