"""Two ranks of a lecture written for edtrace: each rank's process loads the lecture, edtrace's names included."""

import torch.multiprocessing as mp
from edtrace import text


def worker(rank: int, world_size: int) -> None:
    text(f"rank {rank} of {world_size} renders through edtrace's name")


def main() -> None:
    text("# Ranks of an edtrace lecture")
    mp.spawn(worker, args=(2,), nprocs=2, join=True)


if __name__ == "__main__":
    main()
