import functools

from execute_util import link, system_text, text
from lecture_util import named_link, slow_sum
from references import scaling_laws


def main():
    text("# A lecture in the execute_util format")
    text("usage:\n    python train.py --steps N")
    num_parameters = count([3, 4])  # the number of parameters @inspect num_parameters
    total = add(num_parameters, 5)  # @inspect total
    again = add(1, 2)  # second call, second entry step  @inspect again
    text("""
  $ ls
  lecture.py   notes.md
""", verbatim=True)
    named_link("PyTorch", "https://pytorch.org")
    link(scaling_laws)
    link("https://arxiv.org/abs/2203.15556", notes="Compute-optimal: 20 tokens per parameter")
    link(functools.partial(add, 1), style={"color": "gray"})
    system_text(["printf", "GPU 0: none\\n  (a CPU run)\\n"])
    s = slow_sum(1000)  # @inspect s
    # @torch.no_grad() is commented-out code, not a directive; mail alice@example.com is prose
    text("See"), link(add)
    odd = 1  # a typo @inpsect odd


def add(a, b):  # @inspect a b
    return a + b


def count(shape):
    n = 1
    for size in shape:
        n *= size
    return n


if __name__ == "__main__":
    main()
