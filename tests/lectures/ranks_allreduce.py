"""Two ranks on gloo: each rank's tensor before and after all_reduce."""

import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from tracer import text


def worker(rank: int, world_size: int) -> None:
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = "29500"
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    x = torch.tensor([1.0, 2.0]) * (rank + 1)  # @inspect x
    dist.all_reduce(x)  # @inspect x
    total = x.sum().item()  # @inspect total
    dist.destroy_process_group()


def main() -> None:
    text("# All-reduce on two ranks")
    world_size = 2  # @inspect world_size
    mp.spawn(worker, args=(world_size,), nprocs=world_size)
    text("Every rank now holds the sum.")
