"""Ranks that disagree on their collectives: CHALKTRACE_DESYNC picks how, CHALKTRACE_WORLD how many ranks.

skip: rank 1 skips the second all_reduce (its #2 is the barrier); size: rank 1's second all_reduce
is twice as long; extra: rank 0 calls one all_reduce more than the others, which return.
"""

import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def worker(rank: int, world_size: int, kind: str) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29500")
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    x = torch.ones(4)
    dist.all_reduce(x)
    if not (kind == "skip" and rank == 1):
        dist.all_reduce(torch.ones(8) if kind == "size" and rank == 1 else x)
    dist.barrier()
    if kind == "extra" and rank == 0:
        dist.all_reduce(x)
    dist.destroy_process_group()


def main() -> None:
    kind, world_size = os.environ.get("CHALKTRACE_DESYNC", "extra"), int(os.environ.get("CHALKTRACE_WORLD", "2"))
    mp.spawn(worker, args=(world_size, kind), nprocs=world_size)
