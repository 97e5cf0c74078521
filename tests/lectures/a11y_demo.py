"""Fixture for the accessibility tests: a tensor appears and changes, a scalar changes, a long line."""

import torch

from tracer import text


def main():
    text("## Values")
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)  # @inspect x
    y = 1  # @inspect y
    y = y + 1  # @inspect y
    x = x * 2  # @inspect x
    a_long_name_that_makes_this_line_much_wider_than_a_phone_held_upright = x.sum().item()  # @inspect a_long_name_that_makes_this_line_much_wider_than_a_phone_held_upright
    text("## Done")
