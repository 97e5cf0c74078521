"""Timing code: a lecture written for edtrace, whose numbers differ from run to run."""

from edtrace import image, text
from lecture_util import paper, seconds_for
from references import profiling_paper, timer_guide, timing_paper


def loop_sum(numbers):
    total = 0
    for n in numbers:
        total += n
    return total


def main():
    text("# Timing code")
    paper(timing_paper)
    paper(timer_guide)
    image("images/clock.png", width=64)

    numbers = list(range(2_000))
    t_loop = seconds_for(lambda: loop_sum(numbers))  # @inspect t_loop
    t_builtin = seconds_for(lambda: sum(numbers))  # @inspect t_builtin
    speedup = t_loop / t_builtin  # @inspect speedup
    rounded = round(speedup)  # @inspect rounded
    same = loop_sum(numbers) == sum(numbers)  # @inspect same

    with open("var/timings.txt", "w") as f:
        f.write(f"loop {t_loop:.6f}\nbuiltin {t_builtin:.6f}\n")
    text("The timings are kept in var/timings.txt.")
    paper(profiling_paper)


if __name__ == "__main__":
    main()
