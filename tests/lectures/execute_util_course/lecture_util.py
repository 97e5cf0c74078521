"""Helpers of the course (untraced: what they render lands on the lecture line that called them)."""

from execute_util import link, text


def named_link(name: str, url: str) -> None:
    link(title=f"[{name}]", url=url)


def slow_sum(n: int) -> int:
    total = 0
    for i in range(n):  # many lines that must not become steps
        total += i
    text(f"summed {n} numbers")
    return total
