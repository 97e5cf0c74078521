from tracer.site.cards.interface_strings import load as load_strings
from tracer.site.cards.units import human_bytes
from tracer.site.pages.memory_chart import HEIGHT, MAX_LINKS, MAX_POINTS, downsample, fit_label, memory_chart, memory_label


def trace_with(nbytes, renderings=None, source="cpu_recorded"):
    steps = [
        {
            "stack": [{"path": "l.py", "line": 1, "function": "main"}],
            "env": {},
            "renderings": [],
            "stdout": "",
            "memory": {"nbytes": n, "peak_nbytes": n},
        }
        for n in nbytes
    ]
    for index, rendering in (renderings or {}).items():
        steps[index]["renderings"].append(rendering)
    return {"steps": steps, "environment": {"memory_source": source}}


def test_points_scale_to_the_peak_and_link_steps():
    chart = memory_chart(trace_with([0, 1024, 4096, 2048]))
    ys = [p["y"] for p in chart["points"]]
    assert ys[2] == chart["peak_y"] and ys[0] == chart["zero_y"]
    assert ys[1] > ys[3] > ys[2]  # 1 KiB lower on the chart than 2 KiB
    assert [p["step"] for p in chart["points"]] == [0, 1, 2, 3]
    assert chart["peak"] == "4.0 KiB"
    assert chart["points"][1]["label"] == "step 1: 1.0 KiB"
    assert chart["zero_y"] < HEIGHT


def test_sections_from_level_two_headings():
    chart = memory_chart(
        trace_with(
            [1, 2, 3, 4], {0: {"type": "markdown", "data": "# Title"}, 2: {"type": "markdown", "data": "intro\n## Second part"}}
        )
    )
    assert [(s["step"], s["title"]) for s in chart["sections"]] == [(2, "Second part")]


def test_label_source():
    assert memory_label({"memory_source": "cuda_allocated"}) == "GPU memory allocated"
    assert memory_label({"memory_source": "cpu_recorded"}) == "CPU memory of recorded tensors"
    assert memory_chart(trace_with([0, 0])) is None


def test_downsample_keeps_peaks():
    values = [0] * 1000
    values[637] = 99
    picked = downsample(values, max_points=100)
    assert len(picked) == 100 and 637 in picked
    assert downsample([1, 2, 3], max_points=100) == [0, 1, 2]


def test_fit_label():
    assert fit_label("Models", 200) == "Models"
    assert fit_label("Compute accounting", 52) == "Compute…"  # 52px: 9 characters with the "…"
    assert fit_label("Compute accounting", 30) == "Com…"
    assert fit_label("Gradients", 10) == ""


def test_a_long_trace_links_fewer_points_than_it_draws_and_keeps_the_peak():
    values = [k % 50 for k in range(5000)]
    values[4321] = 10_000
    chart = memory_chart(trace_with(values))
    assert len(chart["points"]) == MAX_POINTS and len(chart["links"]) == MAX_LINKS < MAX_POINTS
    assert 4321 in [p["step"] for p in chart["links"]]
    assert chart["links"][0]["label"].startswith("step ")


def viewer_steps(trace):
    """Step mode's steps in order: every rank's timeline, laid end to end (rank_viewer.py)."""
    from tracer.site.model.rank_model import rank_timelines

    return [step for timeline in rank_timelines(trace) for step in timeline.steps]


def test_a_distributed_trace_draws_a_line_per_rank_whose_points_open_that_ranks_step():
    from helpers.traced import traced

    # ranks_output.py: rank 0 holds 256 float32 (1 KiB), rank 1 512 (2 KiB); rank 1 runs one more line
    trace = traced("ranks_output")
    chart = memory_chart(trace)
    assert chart["label"] == "CPU memory of recorded tensors, per rank"
    assert [(line["name"], line["ranks"], line["peak"]) for line in chart["lines"]] == [
        ("rank 0", [0], "1.0 KiB"),
        ("rank 1", [1], "2.0 KiB"),
    ]
    assert chart["peak"] == "2.0 KiB"
    steps = viewer_steps(trace)
    rank_0_steps = len(chart["lines"][0]["points"])
    for number, line in enumerate(chart["lines"]):
        assert len(line["links"]) == len(line["points"])  # few steps: every point is a link
        for local, point in enumerate(line["links"]):
            # the link opens this rank's own step in step mode, whose memory the point shows
            assert point["step"] == (0 if number == 0 else rank_0_steps) + local
            step = steps[point["step"]]
            assert point["label"] == f"rank {number} · step {local}: " + human_bytes(step["memory"]["nbytes"])
    # the all_reduce sits at one x on both lines, though rank 1 got there a step later
    reduce = [next(p["x"] for p in line["points"] if steps[p["step"]].get("collectives")) for line in chart["lines"]]
    assert reduce[0] == reduce[1]
    assert [s["title"] for s in chart["sections"]] == ["Launch"]


def test_ranks_with_the_same_memory_share_one_line_and_the_link_budget_holds():
    from helpers.traced import traced

    trace = traced("ranks_allreduce")  # both ranks hold 8 bytes at the same steps
    chart = memory_chart(trace)
    assert [(line["name"], line["ranks"]) for line in chart["lines"]] == [("ranks 0–1", [0, 1])]
    assert chart["lines"][0]["points"][0]["label"].startswith("ranks 0–1 · step 0: ")
    # many steps on many distinct ranks: at most MAX_LINKS clickable points in all, each line's peak kept
    launch = trace["ranks"]["launches"][0]
    template = launch["streams"][0]["steps"][-1]
    launch["streams"] = [
        {
            **launch["streams"][0],
            "rank": rank,
            "spawn_index": rank,
            "steps": [
                {**template, "memory": {"nbytes": (k % 7) * (rank + 1) + (5000 if k == 333 else 0), "peak_nbytes": 0}}
                for k in range(1000)
            ],
        }
        for rank in range(6)
    ]
    chart = memory_chart(trace)
    assert len(chart["lines"]) == 6 and len(chart["links"]) <= MAX_LINKS
    assert all(len(line["points"]) <= MAX_POINTS for line in chart["lines"])
    steps = viewer_steps(trace)
    for line in chart["lines"]:
        peak = 5000 + (333 % 7) * (line["ranks"][0] + 1)
        assert max(steps[p["step"]]["memory"]["nbytes"] for p in line["links"]) == peak  # the peak stays clickable


def test_ranks_name():
    from tracer.site.pages.memory_chart import ranks_name

    assert (ranks_name([2]), ranks_name([0, 1, 2, 3]), ranks_name([0, 2])) == ("rank 2", "ranks 0–3", "ranks 0, 2")


def test_the_table_merges_runs_of_equal_memory_and_the_line_keeps_only_its_corners():
    chart = memory_chart(trace_with([0, 0, 0, 1024, 1024, 1024, 0]))
    rows = [(row["first"]["step"], row["last_counter"], row["first"]["nbytes_text"]) for row in chart["table"]]
    assert rows == [(0, 2, "0 B"), (3, 5, "1.0 KiB"), (6, None, "0 B")]
    # flat runs draw as their two ends: a point between two of the same height adds nothing
    xy = [tuple(map(float, pair.split(","))) for pair in chart["lines"][0]["polyline"].split()]
    assert len(xy) == 5 and [p["step"] for p in chart["points"]] == list(range(7))  # steps 1 and 4 dropped
    assert xy[0][1] == xy[1][1] == xy[4][1] == chart["zero_y"] and xy[2][1] == xy[3][1] == chart["peak_y"]


def test_the_chart_speaks_the_course_language() -> None:
    chart = memory_chart(trace_with([0, 1024, 4096, 2048]), words=load_strings("zh-Hans"))
    assert chart is not None and chart["label"] == "已记录张量占用的 CPU 内存"
    assert chart["links"][2]["label"] == "第 2 步：4.0 KiB"
    assert chart["description"].startswith("4 步中的已记录张量占用的 CPU 内存：起始为 0 B，在第 2 步达到峰值 4.0 KiB")
