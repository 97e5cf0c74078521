"""Collective communication: all_reduce, broadcast, all_gather and reduce_scatter on four ranks."""

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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
    desynchronised()


def worker(rank, world_size):
    setup(rank, world_size)
    all_reduce(rank, world_size)
    broadcast(rank)
    all_gather(rank, world_size)
    reduce_scatter(rank, world_size)
    data_parallel_step(rank, world_size)
    bus_bandwidth(rank, world_size)
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


def bus_bandwidth(rank, world_size):
    text("## Bus bandwidth")
    text("How fast was that? The yardstick of the field, NVIDIA's nccl-tests, reports two figures per "
         "collective. The **algorithm bandwidth** is the operation's size over its time, $S/t$. It "
         "depends on the op and the number of ranks, so it cannot be held against the link's speed. "
         "The **bus bandwidth** multiplies it by what each rank's busiest link carries. For a ring "
         "all-reduce that is $2(n-1)/n$ of $S$ each way, as counted above.")
    x = torch.ones(1 << 20)  # 4 MiB of float32
    size_nbytes = x.numel() * x.element_size()  # @inspect size_nbytes
    dist.barrier()  # start together, as nccl-tests does
    start = time.perf_counter()
    dist.all_reduce(x)
    seconds = time.perf_counter() - start  # @inspect seconds
    algbw_bytes_per_s = size_nbytes / seconds  # @inspect algbw_bytes_per_s
    factor = 2 * (world_size - 1) / world_size  # @inspect factor
    busbw_bytes_per_s = algbw_bytes_per_s * factor  # @inspect busbw_bytes_per_s
    assert factor == 1.5 and busbw_bytes_per_s == 1.5 * algbw_bytes_per_s
    sent_nbytes = factor * size_nbytes  # what each rank sent (and received) @inspect sent_nbytes
    assert sent_nbytes == 6 * 2**20 and abs(sent_nbytes / seconds - busbw_bytes_per_s) < 1e-6 * busbw_bytes_per_s
    text("So busbw is also the bytes one rank sent, over the time: that is why it can be compared with a "
         "link's peak whatever $n$. Each op has its factor: reduce-scatter, all-gather and "
         "all-to-all $(n-1)/n$; broadcast, reduce and send/recv 1. For all-gather, $S$ is the "
         "gathered tensor, $n$ times one rank's shard.")
    shard = torch.ones(1 << 18)
    gathered = torch.empty(world_size * shard.numel())
    dist.all_gather_single(gathered, shard)
    gather_nbytes = gathered.numel() * gathered.element_size()  # @inspect gather_nbytes
    gather_factor = (world_size - 1) / world_size  # @inspect gather_factor
    assert gather_nbytes == 4 * 2**20 and gather_factor == 0.75
    text("The card under each collective shows the tracer's figures. Its time leaves out what a rank "
         "spent waiting for the last rank to arrive, which a single timer like the one above "
         "includes. Here gloo copies between processes over loopback: there is no link, so no peak.")
    text("On GPUs the link is known. Say eight H100 SXM GPUs all-reduce 1 GiB in 6 ms. Each GPU's "
         "NVLink 4 carries 450 GB/s each way:")
    h100_algbw = 2**30 / 0.006  # @inspect h100_algbw
    h100_busbw = h100_algbw * 2 * (8 - 1) / 8  # @inspect h100_busbw
    share_of_peak = h100_busbw / 450e9  # @inspect share_of_peak
    assert round(h100_algbw / 1e9) == 179 and round(h100_busbw / 1e9) == 313 and round(share_of_peak, 2) == 0.70


def batch(rank):
    generator = torch.Generator().manual_seed(100 + rank)
    return torch.randn(8, 4, generator=generator), torch.randn(8, 1, generator=generator)


def desynchronised():
    text("## When ranks disagree")
    text("Every rank must call the same collectives in the same order, with the same sizes. When one "
         "rank skips a collective the others call, they wait for it forever (gloo and NCCL give up only "
         "after a 30-minute timeout), or the backend fails with an error that names neither the call nor "
         "the rank. This is the most common way distributed training hangs. Here rank 0 calls a second "
         "`all_reduce` that rank 1 never calls:")
    helper = Path(__file__).with_name("_desync.py")
    text("```python\n" + helper.read_text(encoding="utf-8").split("def main")[0].split('"""', 2)[2].strip() + "\n```")
    text("Every traced rank announces each collective before it enters it: its number, op, dtype, shape "
         "and line. The launcher compares what the ranks announce. As soon as one rank waits in a "
         "collective that another will never call, it stops the ranks and names both sides. Tracing "
         "that program:")
    done = subprocess.run([sys.executable, "-m", "tracer", "run", "lectures/_desync.py", "-q",  # @stepover
                           "-o", str(Path(tempfile.mkdtemp()) / "desync.json")],
                          cwd=helper.parent.parent, capture_output=True, text=True, timeout=300)
    diagnosis = [line for line in done.stderr.splitlines() if line.startswith("lectures/")][-1]  # @inspect diagnosis
    assert done.returncode == 1
    assert diagnosis == ("lectures/_desync.py:16: rank 0 of 2 waits in all_reduce #2; rank 1 never called it "
                         "(its last collective: all_reduce #1 at lectures/_desync.py:14, then it returned)")
    text("The run ends at once with that line, not at the timeout. Its trace keeps every rank's sequence "
         "of collectives, and its page shows each rank's last collective side by side.")

