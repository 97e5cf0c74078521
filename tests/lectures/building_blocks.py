"""Fixture: every building block for prose (code, diff, columns, callout, image focus) once."""

from tracer import callout, code, columns, diff, image, text

BEFORE = """
def scale(x):
    return x * 2
"""

AFTER = """
def scale(x, factor=2):
    # the factor is now an argument
    return x * factor
"""


def main():
    text("# Building blocks")
    code("int add(int a, int b) {\n    return a + b;  // no overflow check\n}", language="c", caption="add.c")
    diff(BEFORE, AFTER, language="python", before="scale v1", after="scale v2")
    columns("### Eager\nEach op runs **now**.", "### Compiled\nOps are traced, then fused.")
    callout("Shapes must agree before you add.", tone="info")
    callout("Try `x.view(-1)` next.", tone="tip")
    callout("This copies the whole tensor.", tone="warning", title="Memory")
    callout("Never call this on a GPU tensor.", tone="danger")
    image(
        "images/blocks_grid.png",
        alt="A grid with a blue rectangle, a red rectangle and a green circle",
        caption="The red block, enlarged",
        focus=(120, 20, 120, 120),
        markers=[(180, 40, "top of the red block"), (180, 120, "its bottom edge")],
    )
    total = 1 + 2
    text(f"The total is {total}.")


if __name__ == "__main__":
    main()
