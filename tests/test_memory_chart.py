from tracer.site.memory_chart import HEIGHT, MAX_LINKS, MAX_POINTS, downsample, fit_label, memory_chart, memory_label


def trace_with(nbytes, renderings=None, source="cpu_recorded"):
    steps = [{"stack": [{"path": "l.py", "line": 1, "function": "main"}], "env": {}, "renderings": [], "stdout": "",
              "memory": {"nbytes": n, "peak_nbytes": n}} for n in nbytes]
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
    chart = memory_chart(trace_with([1, 2, 3, 4], {0: {"type": "markdown", "data": "# Title"},
                                                    2: {"type": "markdown", "data": "intro\n## Second part"}}))
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


def test_a_distributed_traces_points_open_the_same_step_in_step_mode():
    from traced import traced

    from tracer.site.rank_model import rank_timelines

    trace = traced("ranks_allreduce")  # 2 spawned ranks: step mode splices rank 0's stream into main's steps
    for k, step in enumerate(trace["steps"]):
        step["memory"] = {"nbytes": 1024 * (k + 1), "peak_nbytes": 1024 * (k + 1)}
    chart = memory_chart(trace)
    viewer_steps = rank_timelines(trace)[0].steps  # step mode's first steps, in order
    assert len(chart["points"]) == len(trace["steps"])
    for k, point in enumerate(chart["points"]):
        assert viewer_steps[point["step"]] is trace["steps"][k]
        assert point["label"].startswith(f"step {point['step']}: ")
    assert chart["points"][-1]["step"] > len(trace["steps"]) - 1  # after the launch: past rank 0's own steps
