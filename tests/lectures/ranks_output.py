"""Two ranks that print, write to stderr, warn, and hold different amounts of tensor memory."""

import os
import sys
import warnings

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from tracer import text


def worker(rank: int, world_size: int) -> None:
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = "29500"
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    print(f"rank {rank} says hello")
    sys.stderr.write(f"rank {rank} complains on stderr\n")
    if rank == 1:
        warnings.warn("rank 1 is running late")
    mine = torch.zeros(256 * (rank + 1))  # @inspect mine
    count = torch.tensor([float(mine.numel())])
    dist.all_reduce(count)  # @inspect count
    del mine
    dist.destroy_process_group()


def main() -> None:
    text("# Ranks that print")
    text("## Launch")
    world_size = 2  # @inspect world_size
    mp.spawn(worker, args=(world_size,), nprocs=world_size)
    print("launcher done")
