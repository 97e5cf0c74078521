"""Collective communication: all_reduce, broadcast, all_gather and reduce_scatter on four ranks."""

import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from tracer import note, text

WORLD_SIZE = 4


def main():
    text("# Collective communication")
    text("Training on many devices means running one program in several processes, the **ranks**, "
         "that exchange tensors through **collective operations**: every rank calls the same "
         "operation, and together they compute one result.")
    text("Here four ranks run on the CPU with the `gloo` backend (on GPUs the backend is NCCL and "
         "the code is the same). `mp.spawn` starts the ranks; each runs `worker(rank, world_size)`.")
    world_size = WORLD_SIZE  # @inspect world_size
    mp.spawn(worker, args=(world_size,), nprocs=world_size)
    text("Every rank finished with the same averaged gradient and the same updated weights. "
         "Each rank sent and received $2(n-1)/n$ times the gradient's bytes: for large $n$, about "
         "twice the gradient per step, whatever the number of ranks.")


def worker(rank, world_size):
    setup(rank, world_size)
    all_reduce(rank, world_size)
    broadcast(rank)
    all_gather(rank, world_size)
    reduce_scatter(rank, world_size)
    data_parallel_step(rank, world_size)
    dist.destroy_process_group()


def setup(rank, world_size):
    text("## Joining the process group")
    text("Each rank says who it is and how many ranks there are; they meet at one address and port.")
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = "29500"
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    joined = (dist.get_rank(), dist.get_world_size())  # @inspect joined


def all_reduce(rank, world_size):
    text("## all_reduce")
    text("Every rank contributes a tensor; afterwards every rank holds the elementwise sum.")
    x = torch.tensor([1.0, 10.0]) * (rank + 1)  # @inspect x
    dist.all_reduce(x, op=dist.ReduceOp.SUM)  # @inspect x
    total = sum(range(1, world_size + 1))  # @inspect total
    assert x.tolist() == [total, 10.0 * total]
    text("A ring all-reduce moves $2(n-1)/n$ of the tensor in and out of each rank: a reduce-scatter "
         "followed by an all-gather.")


def broadcast(rank):
    text("## broadcast")
    text("One rank (the source) sends its tensor to all the others.")
    x = torch.arange(3.0) if rank == 0 else torch.zeros(3)  # @inspect x
    dist.broadcast(x, src=0)  # @inspect x
    assert x.tolist() == [0.0, 1.0, 2.0]


def all_gather(rank, world_size):
    text("## all_gather")
    text("Each rank owns a shard; afterwards every rank holds all shards, in rank order.")
    shard = torch.full((2,), float(rank))  # @inspect shard
    gathered = torch.empty(2 * world_size)
    dist.all_gather_single(gathered, shard)  # @inspect gathered
    assert gathered.tolist() == [float(r) for r in range(world_size) for _ in range(2)]


def reduce_scatter(rank, world_size):
    text("## reduce_scatter")
    text("Each rank holds a full tensor; afterwards rank $r$ holds the sum of everyone's $r$-th chunk.")
    full = torch.arange(2.0 * world_size) + 100 * rank  # @inspect full
    chunk = torch.empty(2)
    dist.reduce_scatter_single(chunk, full, op=dist.ReduceOp.SUM)  # @inspect chunk
    expected = [sum(2.0 * rank + i + 100 * r for r in range(world_size)) for i in range(2)]  # @inspect expected
    assert chunk.tolist() == expected
    note("all_reduce = reduce_scatter + all_gather: the same bytes, in two steps.")


def data_parallel_step(rank, world_size):
    text("## One data-parallel training step")
    text("Every rank holds the same model and its own batch. After the backward pass the ranks "
         "average their gradients with one all_reduce, so every rank takes the same step.")
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 1, bias=False)  # same initial weights on every rank
    inputs, targets = batch(rank)
    loss = ((model(inputs) - targets) ** 2).mean()  # @inspect loss
    loss.backward()
    grad = model.weight.grad  # @inspect grad
    dist.all_reduce(grad, op=dist.ReduceOp.SUM)
    grad /= world_size  # @inspect grad
    text("The averaged gradient is the gradient of the loss on all ranks' batches together:")
    everyone = [batch(r) for r in range(world_size)]
    whole = torch.nn.Linear(4, 1, bias=False)
    whole.weight.data.copy_(model.weight.data)
    all_inputs = torch.cat([b[0] for b in everyone])
    all_targets = torch.cat([b[1] for b in everyone])
    ((whole(all_inputs) - all_targets) ** 2).mean().backward()
    assert torch.allclose(grad, whole.weight.grad, atol=1e-6)
    with torch.no_grad():
        model.weight -= 0.1 * grad  # @inspect model.weight
    grad_nbytes = grad.numel() * grad.element_size()  # @inspect grad_nbytes
    moved_nbytes = 2 * (world_size - 1) * grad_nbytes // world_size  # @inspect moved_nbytes
    assert moved_nbytes == 24


def batch(rank):
    generator = torch.Generator().manual_seed(100 + rank)
    return torch.randn(8, 4, generator=generator), torch.randn(8, 1, generator=generator)
