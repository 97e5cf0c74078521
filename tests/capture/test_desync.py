"""Naming desynchronised ranks from their announced collectives (tracer/capture/ranks/desync.py)."""

from tracer.capture.ranks.desync import RankState, diagnose, parse_lines


def entry(n, op="all_reduce", line=13, shape=(4,), dtype="float32", **extra):
    return {
        "n": n,
        "seq": (n or 1) - 1,
        "op": op,
        "dtype": dtype,
        "shape": list(shape),
        "nbytes": 16,
        "path": "desync.py",
        "line": line,
        **extra,
    }


def test_a_rank_that_returned_before_a_collective_the_other_waits_in_is_named():
    states = [RankState(0, [entry(1), entry(2, line=15)]), RankState(1, [entry(1)], ended={"how": "returned"})]
    desync = diagnose(states, 2)
    assert desync["message"] == (
        "desync.py:15: rank 0 of 2 waits in all_reduce #2; rank 1 never called it "
        "(its last collective: all_reduce #1 at desync.py:13, then it returned)"
    )
    assert [(r["rank"], r["state"], r["last"]["n"]) for r in desync["ranks"]] == [(0, "waiting", 2), (1, "never called", 1)]


def test_a_slow_rank_still_running_proves_nothing_yet():
    assert diagnose([RankState(0, [entry(1), entry(2)]), RankState(1, [entry(1)])], 2) is None
    assert (
        diagnose([RankState(0, [entry(1)], ended={"how": "returned"}), RankState(1, [entry(1)], ended={"how": "returned"})], 2)
        is None
    )


def test_a_different_size_or_op_at_the_same_number_is_named_before_anyone_ends():
    states = [RankState(r, [entry(1), entry(2, line=15, shape=(8,) if r == 2 else (4,))]) for r in range(4)]
    assert diagnose(states, 4)["message"] == (
        "desync.py:15: ranks 0, 1, 3 of 4 wait in all_reduce #2 of float32 (4,); "
        "rank 2's #2 is all_reduce of float32 (8,) at desync.py:15"
    )
    states = [RankState(0, [entry(1, op="broadcast", root=0)]), RankState(1, [entry(1, op="barrier", line=20)])]
    assert "rank 1's #1 is barrier at desync.py:20" in diagnose(states, 2)["message"]


def test_a_rank_that_raised_instead_leads_with_its_exception():
    states = [
        RankState(0, [entry(1, line=16)]),
        RankState(1, [], ended={"how": "raised", "error": "ValueError: no", "path": "r.py", "line": 15}),
    ]
    assert diagnose(states, 2)["message"] == (
        "r.py:15: rank 1 of 2: ValueError: no (rank 0 waits in all_reduce #1 at desync.py:16, which rank 1 never called)"
    )


def test_point_to_point_calls_are_not_compared_and_a_torn_line_waits_for_the_next_read():
    states = [
        RankState(0, [{**entry(None, op="send"), "n": None}], ended={"how": "returned"}),
        RankState(1, [{**entry(None, op="recv"), "n": None}], ended={"how": "returned"}),
    ]
    assert diagnose(states, 2) is None
    entries, end = parse_lines('{"n": 1, "op": "all_reduce"}\n{"end": {"how": "returned"}}\n{"n": 2, "op')
    assert [e["n"] for e in entries] == [1] and end == {"how": "returned"}


def test_ranks_with_the_same_story_share_one_clause_and_running_ones_are_said_to_be_pending():
    states = [
        RankState(0, [entry(1), entry(2, line=15)]),
        RankState(1, [entry(1)], ended={"how": "returned"}),
        RankState(2, [entry(1)], ended={"how": "returned"}),
        RankState(3, [entry(1)]),
        RankState(4, [entry(1, line=14)], ended={"how": "returned"}),
    ]
    assert diagnose(states, 5)["message"] == (
        "desync.py:15: rank 0 of 5 waits in all_reduce #2; ranks 1, 2 never called it (their last collective: "
        "all_reduce #1 at desync.py:13, then they returned); rank 4 never called it (its last collective: "
        "all_reduce #1 at desync.py:14, then it returned); rank 3 had not called it yet"
    )
    # the first collective decides: a rank that called none never called #1
    states = [RankState(0, [entry(1)]), RankState(1, [], ended={"how": "returned"})]
    assert diagnose(states, 2)["message"].endswith("rank 1 never called it (it called no collective, then it returned)")


def test_ranks_that_went_on_past_a_mismatch_called_it_rather_than_wait_in_it():
    states = [RankState(0, [entry(1), entry(2, op="barrier", line=21)]), RankState(1, [entry(1, shape=(8,))])]
    desync = diagnose(states, 2)
    assert desync["message"] == (
        "desync.py:13: rank 0 of 2 called all_reduce #1 of float32 (4,); "
        "rank 1's #1 is all_reduce of float32 (8,) at desync.py:13"
    )
    assert [r["state"] for r in desync["ranks"]] == ["called", "different"]
