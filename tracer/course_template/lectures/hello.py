"""Hello: a first lecture, to edit or copy."""

from tracer import note, text


def mean(values):
    total = sum(values)  # @inspect total
    return total / len(values)


def main():
    text("# Hello")
    text("A lecture is a Python module with a `main()`. A `text()` call shows its Markdown "
         "in place of the code line, and a comment such as `# @inspect x` records a value.")
    values = [3, 1, 4, 1, 5]  # @inspect values
    average = mean(values)  # @inspect average
    note("**Step through** this page to watch `mean()` run, one line at a time.")
    text("## Next")
    text("Copy this file to `lectures/NAME.py`, edit it, and run `chalktrace serve`.")
