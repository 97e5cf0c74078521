"""A torchrun script: every rank runs main() and joins the group torchrun describes in its environment."""

import torch
import torch.distributed as dist


def main() -> None:
    dist.init_process_group("gloo")
    rank = dist.get_rank()  # @inspect rank
    x = torch.ones(2) * (rank + 1)  # @inspect x
    dist.all_reduce(x)  # @inspect x
    dist.destroy_process_group()
