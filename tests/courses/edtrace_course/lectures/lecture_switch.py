"""Switching tools: an edtrace lecture, as a course wrote it."""

import os

import edtrace
from edtrace import graph, image, link, make_graph, note, plot, system_text, text, video
from edtrace.file_util import download_file
from lecture_util import article_link, bullets
from references import course_report_2098, handbook, stepping_2099, tracing_2099


def main():
    text("# Switching tools")
    text("## Reading")
    link(stepping_2099)
    link(tracing_2099)
    link(course_report_2098)
    link(handbook)
    link("https://arxiv.org/abs/9902.00003")
    article_link("https://blog.example.org/stepping")

    text("## Pictures and video")
    image("images/stack.svg", width=200)
    image("https://images.example.org/figures/pipeline.png", width=240, caption="From trace to site")
    image("https://images.example.org/figures/poster.png")
    video("videos/clip.webm", width=240)
    edtrace.video("https://media.example.org/clips/walkthrough.webm", width=240)

    text("## A graph")
    spec = make_graph(
        nodes=[{"id": "lecture"}, {"id": "trace"}, {"id": "site"}, {"id": "reader", "classes": "person"}],
        edges=[{"source": "lecture", "target": "trace", "label": "run"},
               {"source": "trace", "target": "site", "label": "build"},
               {"source": "site", "target": "reader"}],
        layout="breadthfirst",
        stylesheet=[{"selector": ".person", "style": {"background-color": "#f8e7d4"}},
                    {"selector": "edge", "style": {"target-arrow-shape": "triangle"}}],
        width=420, height=220,
    )
    graph(spec)

    text("## One at a time")
    bullets("run the lecture", "commit the trace", "publish the site")  # @animate

    note("Values still show as before.")
    steps = count_steps(3)  # @inspect steps
    plot({"mark": "bar", "data": {"values": [{"tool": "edtrace", "n": steps}, {"tool": "chalktrace", "n": steps}]},
          "encoding": {"x": {"field": "tool", "type": "nominal"}, "y": {"field": "n", "type": "quantitative"}}})
    system_text(["echo", "traced"])
    numbers = os.path.join(os.path.dirname(__file__), "data", "numbers.txt")
    download_file("https://data.example.org/numbers.txt", numbers)  # kept with the course: no download
    with open(numbers) as f:
        total = sum(int(line) for line in f)  # @inspect total


def count_steps(n):
    return n * 2


if __name__ == "__main__":
    main()
