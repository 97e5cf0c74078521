from tracer.site.model.animate import animation_part, expand_animations
from tracer.site.model.line_records import collect_lines


def step(line, renderings, env=None):
    return {
        "frame": line - 1,
        "stack": [{"path": "l.py", "line": line, "function": "main"}],
        "env": env or {},
        "renderings": renderings,
        "stdout": "",
        "memory": {"nbytes": 0, "peak_nbytes": 0},
    }


def md(text, animate=False):
    return {"type": "markdown", "data": text, **({"animate": True} if animate else {})}


TRACE = {
    "lecture": {"name": "l", "path": "l.py", "title": "l"},
    "files": {"l.py": ""},
    "steps": [
        step(1, [md("a")]),
        step(2, [md("x", True), md("y", True), md("z", True)], env={"n": {"type": "int", "value": 3}}),
        step(3, [md("only", True)]),
    ],
}


def test_an_animate_step_becomes_one_step_per_rendering_values_on_the_last():
    steps = expand_animations(TRACE)["steps"]
    assert [(s["stack"][0]["line"], [r["data"] for r in s["renderings"]], animation_part(s)) for s in steps] == [
        (1, ["a"], None),
        (2, ["x"], (1, 3)),
        (2, ["y"], (2, 3)),
        (2, ["z"], (3, 3)),
        (3, ["only"], None),
    ]
    assert [bool(s["env"]) for s in steps] == [False, False, False, True, False]


def test_read_mode_shows_each_rendering_once_and_counts_one_run():
    record = collect_lines(expand_animations(TRACE))[2]
    assert [r["data"] for _step, r in record.renderings] == ["x", "y", "z"]
    assert record.runs == 1 and record.last_step == 3 and record.env["n"][0] == 3


def test_traces_without_animate_are_returned_as_they_are():
    plain = {**TRACE, "steps": TRACE["steps"][:1]}
    assert expand_animations(plain) is plain
