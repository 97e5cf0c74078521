"""A deliberate desync for lectures/collectives.py: rank 0 calls a second all_reduce, rank 1 does not."""

import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def worker(rank, world_size):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29500")
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    x = torch.ones(4)
    dist.all_reduce(x)
    if rank == 0:
        dist.all_reduce(x)  # rank 1 never gets here
    dist.destroy_process_group()


def main():
    mp.spawn(worker, args=(2,), nprocs=2)
