"""Rank 1 never joins the process group: rank 0 waits for it until the timeout."""

import os
import time

import torch.distributed as dist
import torch.multiprocessing as mp


def worker(rank: int, world_size: int) -> None:
    if rank == 1:
        while True:
            time.sleep(0.1)
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29500")  # traced: a free port instead
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    dist.barrier()


def main() -> None:
    mp.spawn(worker, args=(2,), nprocs=2)
