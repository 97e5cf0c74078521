"""One call of each bandwidth-bearing collective on CHALKTRACE_WORLD gloo ranks (default 2)."""

import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def worker(rank: int, world_size: int) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29500")
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    x = torch.ones(4096)
    dist.all_reduce(x)
    dist.broadcast(x, src=0)
    dist.reduce(x, dst=0)
    dist.all_gather_into_tensor(torch.empty(world_size * 4096), x)
    dist.reduce_scatter_tensor(torch.empty(4096), torch.ones(world_size * 4096))
    dist.all_to_all_single(torch.empty(world_size * 1024), torch.ones(world_size * 1024))
    if rank == 0:
        dist.send(x, dst=1)
    elif rank == 1:
        dist.recv(x, src=0)
    dist.barrier()
    dist.destroy_process_group()


def main() -> None:
    world_size = int(os.environ.get("CHALKTRACE_WORLD", "2"))
    mp.spawn(worker, args=(world_size,), nprocs=world_size)
