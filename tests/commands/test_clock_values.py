"""Values computed from clock readings, and values marked # @varies, are run-dependent (check's drift skips them)."""

from __future__ import annotations

from tracer.commands.clock_values import clock_values

HELPER = """import time

def seconds_for(function):
    start = time.perf_counter()
    function()
    return time.perf_counter() - start

def twice(x):
    return 2 * x
"""
LECTURE = """from lecture_util import seconds_for, twice
import timeit

def main():
    n = 1000
    t_python = seconds_for(lambda: sum(range(n)))
    t_numpy = timeit.timeit("1 + 1", number=10)
    speedup = t_python / t_numpy
    rounded = round(speedup)
    doubled = twice(n)
    label = "fast"  # @varies label
    seed_words = ["a", "b"]  # @varies

def other():
    speedup = 3
"""


def first_lines() -> dict[str, int]:
    """Each name's first assignment line in LECTURE."""
    found: dict[str, int] = {}
    for n, text in enumerate(LECTURE.splitlines(), 1):
        if "=" in text:
            found.setdefault(text.split("=")[0].strip(), n)
    return found


def test_names_bound_from_clocks_vary_in_their_function_only():
    found = clock_values({"lecture_util.py": HELPER, "lecture.py": LECTURE})
    lines = first_lines()
    for name in ("t_python", "t_numpy", "speedup", "rounded"):
        assert found.varies("lecture.py", lines[name], name), name
    assert found.varies("lecture.py", lines["speedup"], "speedup[0]")  # an item of it too
    assert not found.varies("lecture.py", lines["n"], "n")
    assert not found.varies("lecture.py", lines["doubled"], "doubled")  # twice() reads no clock
    other_line = len(LECTURE.splitlines())
    assert not found.varies("lecture.py", other_line, "speedup")  # another function's speedup is its own
    assert found.varies("lecture_util.py", 4, "start")


def test_the_varies_directive_marks_names_or_a_whole_line():
    found = clock_values({"lecture.py": LECTURE})
    lines = first_lines()
    assert found.varies("lecture.py", lines["label"], "label")
    assert not found.varies("lecture.py", lines["label"], "n")
    assert found.varies("lecture.py", lines["seed_words"], "seed_words")
