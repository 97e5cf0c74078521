"""The byte model of collectives (tracer/capture/ranks/collectives.py)."""

from tracer.capture.ranks.collectives import traffic

MB = 1_000_000


def test_ring_all_reduce_moves_two_times_n_minus_one_over_n_each_way():
    assert traffic("all_reduce", 4 * MB, 4, rank=2) == (6 * MB, 6 * MB, "ring")
    assert traffic("all_reduce", 4 * MB, 1, rank=0)[:2] == (0, 0)


def test_gloo_broadcast_is_one_to_all_and_nccl_a_ring_chain():
    assert traffic("broadcast", MB, 4, rank=1, root=1, backend="gloo") == (3 * MB, 0, "one-to-all")
    assert traffic("broadcast", MB, 4, rank=3, root=1, backend="gloo") == (0, MB, "one-to-all")
    chain = [traffic("broadcast", MB, 4, rank=r, root=1, backend="nccl")[:2] for r in range(4)]
    assert chain == [(0, MB), (MB, 0), (MB, MB), (MB, MB)]  # rank 0 is last in 1 -> 2 -> 3 -> 0


def test_gather_and_scatter_shapes():
    assert traffic("all_gather", MB, 4, rank=0)[:2] == (3 * MB, 3 * MB)
    assert traffic("reduce_scatter_tensor", MB, 4, rank=0)[:2] == (3 * MB, 3 * MB)
    assert traffic("send", 10, 2, rank=0)[:2] == (10, 0) and traffic("recv", 10, 2, rank=1)[:2] == (0, 10)
    assert traffic("barrier", 0, 4, rank=0)[:2] == (0, 0)
