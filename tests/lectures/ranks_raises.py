"""Rank 1 raises while rank 0 waits for it in an all_reduce."""

import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def worker(rank: int, world_size: int) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29500")  # traced: a free port instead
    dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world_size)
    x = torch.ones(3) * rank  # @inspect x
    if rank == 1:
        raise ValueError(f"rank {rank} cannot go on")
    dist.all_reduce(x)
    dist.destroy_process_group()


def main() -> None:
    mp.spawn(worker, args=(2,), nprocs=2)
