"""What a lecture's page and its kept GPU run's page say about each other (tracer/site/pages/kept_gpu_run.py)."""

from __future__ import annotations

import pytest

from tracer.site.cards.interface_strings import load as load_strings
from tracer.site.pages.kept_gpu_run import changed_lines, gpu_run_note, gpu_run_title, publishable


def trace(device: str, source: str, path: str = "lectures/a.py", gpu_name: str | None = None) -> dict:
    return {
        "lecture": {"name": "a", "path": path, "title": "A"},
        "files": {path: source},
        "environment": {"device": device, "gpu_name": gpu_name},
    }


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        ("a\nb\nc\n", "a\nb\nc\n", 0),
        ("a\nb\nc\n", "a\nB\nc\n", 1),  # one line edited
        ("a\nb\nc\n", "a\nb\nc\nd\ne\n", 2),  # two lines added
        ("a\nb\nc\nd\n", "a\nd\n", 2),  # two lines removed
        ("a\nb\n", "x\ny\nz\n", 3),  # a block of two replaced by three counts three
        ("", "a\n", 1),
    ],
)
def test_changed_lines(before, after, expected):
    assert changed_lines(before, after) == expected


def test_publishable_only_a_cuda_run_beside_a_trace_without_one():
    cpu, gpu = trace("cpu", "x\n"), trace("cuda", "x\n", gpu_name="H100")
    assert publishable(cpu, gpu) is None
    assert publishable(cpu, cpu) == "not a CUDA trace"
    assert publishable(gpu, gpu) == "superseded: the lecture's own trace was made on CUDA"
    assert publishable(cpu, trace("cuda", "x\n", path="lectures/b.py")) == "traced from lectures/b.py, not lectures/a.py"


def test_note_counts_the_lines_of_the_lecture_file_that_differ():
    cpu, gpu = trace("cpu", "x = 1\ny = 2\n"), trace("cuda", "x = 1\n", gpu_name="NVIDIA H100 80GB HBM3")
    note = gpu_run_note(cpu, gpu, url="../gpu/", on_gpu_run_page=False)
    assert note == {
        "on_gpu_run_page": False,
        "gpu_name": "NVIDIA H100 80GB HBM3",
        "url": "../gpu/",
        "source_path": "lectures/a.py",
        "changed_lines": 1,
        "changed_lines_text": "1",
    }
    many = gpu_run_note(trace("cpu", "x\n" * 1200), gpu, url="", on_gpu_run_page=True)
    assert (many["changed_lines"], many["changed_lines_text"]) == (1200, "1,200")
    words = load_strings("en")
    assert words.text("gpu.differ", count=1200, lines="1,200", path="a.py") == "1,200 lines of a.py differ between the two runs"
    assert words.text("gpu.differ", count=1, lines="1", path="a.py") == "1 line of a.py differs between the two runs"
    assert gpu_run_note(cpu, trace("cuda", "x = 1\n"), url="", on_gpu_run_page=True)["gpu_name"] == "a GPU"


def test_title_names_the_gpu():
    assert (
        gpu_run_title("Lecture 2", trace("cuda", "", gpu_name="NVIDIA H100 80GB HBM3"))
        == "Lecture 2 (run on NVIDIA H100 80GB HBM3)"
    )
