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


def test_bus_factors_are_those_of_nccl_tests_per_op():
    from tracer.capture.ranks.collectives import bus_factor

    for n in (2, 4, 8):
        assert bus_factor("all_reduce", n) == 2 * (n - 1) / n
        for op in (
            "reduce_scatter",
            "reduce_scatter_tensor",
            "all_gather",
            "all_gather_into_tensor",
            "all_to_all",
            "all_to_all_single",
        ):
            assert bus_factor(op, n) == (n - 1) / n, op
        for op in ("broadcast", "reduce", "send", "recv"):
            assert bus_factor(op, n) == 1.0, op
    assert bus_factor("all_reduce", 4) == 1.5 and bus_factor("all_gather", 4) == 0.75
    assert bus_factor("barrier", 4) is None and bus_factor("isend", 2) is None


def test_algbw_divides_the_whole_operations_size_by_its_time():
    from tracer.capture.ranks.collectives import bandwidth

    # all_reduce of 1 MB in 1 ms on 4 ranks: algbw 1 GB/s, busbw 1.5 GB/s
    assert bandwidth("all_reduce", MB, 4, 0.001) == (1e9, 1.5e9)
    # all_gather: S is the gathered tensor, n times one rank's input
    assert bandwidth("all_gather_into_tensor", MB, 4, 0.001) == (4e9, 3e9)
    assert bandwidth("reduce_scatter_tensor", MB, 2, 0.002) == (1e9, 0.5e9)
    assert bandwidth("broadcast", MB, 8, 0.001) == (1e9, 1e9)
    assert bandwidth("barrier", 0, 4, 0.001) is None and bandwidth("all_reduce", MB, 4, 0.0) is None


def record(op: str, seq: int, start: float, seconds: float, nbytes: int = MB, n: int = 2, **extra) -> dict:
    return {
        "op": op,
        "seq": seq,
        "nbytes": nbytes,
        "group_size": n,
        "start_seconds": start,
        "seconds": seconds,
        "async_op": False,
        **extra,
    }


def test_each_rank_waits_for_the_last_to_enter_and_the_rest_is_transfer():
    from tracer.capture.ranks.collectives import add_bandwidth

    early, late = record("all_reduce", 0, 1.000, 0.005), record("all_reduce", 0, 1.004, 0.001)
    streams = [{"rank": 0, "steps": [{"collectives": [early]}]}, {"rank": 1, "steps": [{"collectives": [late]}]}]
    add_bandwidth(streams, peak_bytes_per_s=2e9)
    assert (early["wait_seconds"], early["transfer_seconds"]) == (0.004, 0.001)
    assert (late["wait_seconds"], late["transfer_seconds"]) == (0.0, 0.001)
    assert early["algbw"] == late["algbw"] == 1e9 and early["busbw"] == 1e9  # 2(n-1)/n = 1 at n = 2
    assert early["peak"] == 2e9 and early["peak_share"] == 0.5


def test_send_pairs_with_its_peers_recv_and_async_calls_get_no_figure():
    from tracer.capture.ranks.collectives import add_bandwidth

    send, recv = record("send", 0, 2.0, 0.003, peer=1), record("recv", 0, 2.002, 0.001, peer=0)
    other = record("all_reduce", 0, 5.0, 0.001)  # rank 2's unrelated seq-0 call: not send's peer
    isend = record("isend", 1, 3.0, 0.0001, async_op=True)
    streams = [
        {"rank": 0, "steps": [{"collectives": [send, isend]}]},
        {"rank": 1, "steps": [{"collectives": [recv]}]},
        {"rank": 2, "steps": [{"collectives": [other]}]},
    ]
    add_bandwidth(streams)
    assert (send["wait_seconds"], send["transfer_seconds"]) == (0.002, 0.001)
    assert send["busbw"] == MB / 0.001 and "peak" not in send
    assert "wait_seconds" not in isend and "algbw" not in isend
