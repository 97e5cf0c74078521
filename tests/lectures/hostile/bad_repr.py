"""Values whose repr, len or class misbehave."""


class BadRepr:
    def __repr__(self):
        raise RuntimeError("no repr for you")


class HugeRepr:
    def __repr__(self):
        return "x" * 10_000_000


class BadLen(list):
    def __len__(self):
        raise RuntimeError("no len")


def main():
    a = BadRepr()  # @inspect a
    b = HugeRepr()  # @inspect b
    c = BadLen([1, 2])  # @inspect c
    d = {BadRepr(): 1}  # @inspect d
