"""A helper called several times: read mode shows its first call's values where the prose introduces it."""

from tracer import text


def scale(x):
    y = x * 10  # @inspect y
    return y


def shift(x):
    z = x + 1  # @inspect z call=last
    return z


def main():
    text("## Scaling")
    text("The first call of `scale` gives 10.")
    a = scale(1)
    text("## More calls")
    for i in range(2, 5):
        a = scale(i)
    b = shift(1)
    b = shift(2)
    total = 0
    for k in range(3):
        total += k  # @inspect total
    text(f"{a} {b} {total}")


if __name__ == "__main__":
    main()
