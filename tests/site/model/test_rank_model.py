"""Ranks as plain records (tracer/site/model/rank_model.py), from the real 2-rank gloo trace."""

from __future__ import annotations

from helpers.traced import traced

from tracer.site.model.rank_model import rank_lines, rank_timelines, switch_targets, timeline_x

# tests/lectures/ranks_allreduce.py: line 16 makes x, 17 all-reduces it, 18 sums it; main spawns on 25
BEFORE, REDUCE, TOTAL, SPAWN = 16, 17, 18, 25


def test_rank_lines_hold_every_ranks_values_and_the_collective():
    lines = rank_lines(traced("ranks_allreduce"))
    before = {rank: value["values"] for rank, (_step, value) in lines[BEFORE].env["x"].items()}
    after = {rank: value["values"] for rank, (_step, value) in lines[REDUCE].env["x"].items()}
    assert before == {0: [1.0, 2.0], 1: [2.0, 4.0]} and after == {0: [3.0, 6.0], 1: [3.0, 6.0]}
    [row] = lines[REDUCE].collectives.values()
    assert (row.op, row.nbytes, sorted(row.per_rank)) == ("all_reduce", 8, [0, 1])
    assert not lines[TOTAL].collectives


def test_each_rank_timeline_runs_inside_the_launching_line_and_switching_keeps_the_place():
    trace = traced("ranks_allreduce")
    timelines = rank_timelines(trace)
    assert [t.rank for t in timelines] == [0, 1]
    for timeline in timelines:
        lines = [step["stack"][-1]["line"] for step in timeline.steps]
        # the launching line calls (a call step), the rank's own lines run under it, then the line completes
        assert lines == [23, 24, SPAWN, 13, 14, 15, BEFORE, REDUCE, TOTAL, 19, SPAWN, 26]
        assert timeline.steps[2].get("call") and not timeline.steps[-2].get("call")
        assert all(step["stack"][0]["line"] == SPAWN for step in timeline.steps[3:-2])
        storage = {v["storage_id"] for s in timeline.steps for v in s["env"].values() if v.get("type") == "tensor"}
        assert all(sid.endswith(f"·r{timeline.rank}") for sid in storage)
    offsets = [0, len(timelines[0].steps)]
    targets = switch_targets(timelines, offsets)
    reduce_0 = next(k for k, s in enumerate(timelines[0].steps) if s.get("collectives"))
    reduce_1 = next(k for k, s in enumerate(timelines[1].steps) if s.get("collectives"))
    assert targets[reduce_0] == [reduce_0, offsets[1] + reduce_1]
    assert targets[offsets[1] + reduce_1] == [reduce_0, offsets[1] + reduce_1]
    # the n-th collective of every rank sits at x = n on the timeline
    assert timeline_x(timelines[0])[reduce_0] == timeline_x(timelines[1])[reduce_1] == 1.0


def test_read_mode_step_links_open_the_lines_own_step_in_rank_0s_timeline():
    from tracer.site.model.line_records import add_rank_lines, collect_lines

    trace = traced("ranks_allreduce")
    records = collect_lines(trace)
    add_rank_lines(records, trace)
    timeline = rank_timelines(trace)[0]
    for line in (BEFORE, REDUCE, TOTAL, 19):  # 19 (destroy_process_group) records no value
        step = timeline.steps[records[line].last_step]
        assert step["stack"][-1]["line"] == line and not step.get("call")
    assert records[REDUCE].ranks.collectives  # a line with a collective (and values) is annotated


def test_step_counts_count_what_a_reader_steps_through_and_the_page_words_them():
    from tracer.site.cards.interface_strings import load
    from tracer.site.cards.templates import template_env, template_macros
    from tracer.site.model.rank_model import step_counts

    english = template_macros(template_env(), "page_parts.html.j2").steps_count
    chinese = template_macros(template_env(strings=load("zh-Hans")), "page_parts.html.j2").steps_count

    def words(trace):
        counts = step_counts(trace)
        return str(english(len(trace["steps"]), counts)), str(chinese(len(trace["steps"]), counts))

    trace = traced("ranks_allreduce")
    own = len(trace["steps"])
    rank_steps = [len(s["steps"]) for s in trace["ranks"]["launches"][0]["streams"]]
    assert rank_steps == [7, 7]  # worker's lines 13..19
    assert step_counts(trace) == {"own": own, "ranks": 2, "each": "7", "most": 7, "launched": True}
    assert words(trace) == (f"{own} steps + 2 ranks × 7", f"{own} 步 + 2 个 rank × 7")
    trace["ranks"]["launches"][0]["streams"][1]["steps"].pop()
    assert words(trace) == (f"{own} steps + 2 ranks × 6–7", f"{own} 步 + 2 个 rank × 6–7")
    trace["ranks"]["launches"][0]["step"] = None  # a torchrun trace: no launching process to step through
    assert words(trace) == ("2 ranks × 6–7 steps", "2 个 rank × 6–7 步")
    del trace["ranks"]
    assert step_counts(trace) is None
    assert words(trace) == (f"{own} steps", f"{own} 步")


def test_rank_lines_keep_each_ranks_stderr_apart_from_its_stdout():
    lines = rank_lines(traced("ranks_output"))  # ranks print on line 18, write to stderr on 19, rank 1 warns on 21
    assert lines[18].stdout == {0: "rank 0 says hello\n", 1: "rank 1 says hello\n"} and not lines[18].stderr
    assert lines[19].stderr == {0: "rank 0 complains on stderr\n", 1: "rank 1 complains on stderr\n"}
    assert not lines[19].stdout
    assert list(lines[21].stderr) == [1] and "UserWarning: rank 1 is running late" in lines[21].stderr[1]


def test_the_launching_lines_call_step_does_not_repeat_the_launchers_stderr():
    trace = traced("ranks_allreduce")
    launch = trace["ranks"]["launches"][0]["step"]
    trace["steps"][launch]["stderr"] = "launcher warned\n"
    for timeline in rank_timelines(trace):
        assert [s.get("stderr") for s in timeline.steps].count("launcher warned\n") == 1


def test_aligned_steps_keep_the_ranks_in_step_at_collectives_and_launcher_steps():
    from tracer.site.model.rank_model import aligned_steps

    trace = traced("ranks_output")  # rank 1 runs one more line (its warning) before the all_reduce
    timelines = rank_timelines(trace)
    xs = aligned_steps(trace, timelines)
    assert [len(t.steps) for t in timelines] == [len(x) for x in xs] == [17, 18]
    for x in xs:
        assert x == sorted(x) and len(set(x)) == len(x)  # a rank's steps move right, one x each
    reduce = [next(k for k, s in enumerate(t.steps) if s.get("collectives")) for t in timelines]
    assert xs[0][reduce[0]] == xs[1][reduce[1]]  # the all_reduce at one x on both ranks
    assert reduce[1] == reduce[0] + 1
    assert xs[0][-1] == xs[1][-1] == 17  # the launcher's last step: the same x, after rank 1's longer run
    assert xs[0][: reduce[0] - 1] == xs[1][: reduce[0] - 1] == list(range(reduce[0] - 1))


def test_a_line_only_a_higher_rank_ran_links_into_that_ranks_timeline():
    from tracer.site.model.line_records import add_rank_lines, collect_lines

    trace = traced("ranks_output")  # line 21 (a warning) runs on rank 1 only
    records = collect_lines(trace)
    add_rank_lines(records, trace)
    timelines = rank_timelines(trace)
    joined = [step for timeline in timelines for step in timeline.steps]
    step = records[21].last_step
    assert step >= len(timelines[0].steps)  # in rank 1's timeline, after rank 0's
    assert joined[step]["stack"][-1]["line"] == 21 and "rank 1 is running late" in joined[step]["stderr"]
    assert joined[records[19].last_step] is timelines[0].steps[records[19].last_step]  # both ran 19: rank 0's
