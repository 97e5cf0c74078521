"""tracer/capture/trace_writer.py: step tuples become the trace JSON text, one step per line."""

from __future__ import annotations

import json

from tracer.capture.recorder import CALL
from tracer.capture.trace_writer import StepWriter, dumps, trace_json
from tracer.contract.trace_reading import expand_stacks

MAIN = ("lectures/a.py", "main")
HELPER = ("lectures/a.py", "helper")


def frame(path, line, function):
    return {"path": path, "line": line, "function": function}


def written(writer, text):
    """A step the writer formatted, as a reader gets it: its frame index resolved into its stack."""
    trace = {"frames": [json.loads(f) for f in writer.frames], "steps": [json.loads(text)]}
    step = expand_stacks(trace)["steps"][0]
    assert set(trace["frames"][step.pop("frame")]) == {"path", "line", "function", "parent"}
    return step


def test_dumps_is_compact_strict_and_keeps_unicode():
    assert dumps({"a": [1, "…"]}) == '{"a":[1,"…"]}'
    text = dumps({"x": float("nan"), "y": [float("inf"), {"z": float("-inf")}], "ok": 1.5})
    assert json.loads(text) == {"x": "nan", "y": ["inf", {"z": "-inf"}], "ok": 1.5}
    assert "NaN" not in text and "Infinity" not in text


def test_plain_step():
    writer = StepWriter()
    step = written(writer, writer.step(((), MAIN, 3, None, (10, 20))))
    assert step == {
        "stack": [frame("lectures/a.py", 3, "main")],
        "env": {},
        "renderings": [],
        "stdout": "",
        "memory": {"nbytes": 10, "peak_nbytes": 20},
    }


def test_call_step_and_callers_prefix():
    writer = StepWriter()
    prefix = (("lectures/a.py", 7, "main"),)
    call = written(writer, writer.step(((), MAIN, 7, CALL, (0, 0))))
    inner = written(writer, writer.step((prefix, HELPER, 2, None, (0, 0))))
    assert call["call"] is True and call["stack"] == [frame("lectures/a.py", 7, "main")]
    assert inner["stack"] == [frame("lectures/a.py", 7, "main"), frame("lectures/a.py", 2, "helper")]
    assert "call" not in inner
    # each position is written once: the caller's position is the call step's own
    assert len(writer.frames) == 2 and json.loads(writer.frames[1])["parent"] == 0


def test_deep_stacks_write_each_position_once():
    writer = StepWriter()
    prefix: tuple = ()
    texts = []
    for depth in range(1, 200):
        texts.append(writer.step((prefix, HELPER, 2, None, (0, 0))))
        prefix = prefix + (("lectures/a.py", 3, "helper"),)
    # one position per line run at each depth (the caller's line 3 and the line 2 run there)
    assert len(writer.frames) == 2 * 199 - 1
    assert max(map(len, texts)) <= len(texts[0]) + 2  # a step names its position; it does not repeat its stack
    deepest = written(writer, texts[-1])
    assert len(deepest["stack"]) == 199 and deepest["stack"][-1] == frame("lectures/a.py", 2, "helper")


def test_step_with_extras_keeps_them_and_drops_internal_unwind():
    extras = {
        "env": {"x": {"type": "int", "value": 1}},
        "renderings": [{"type": "note", "data": "hi"}],
        "stdout": "out\n",
        "clear": ["y"],
        "unwind": ValueError("internal"),
        "error": {"type": "ValueError", "message": "m", "traceback": []},
    }
    writer = StepWriter()
    step = written(writer, writer.step(((), MAIN, 4, extras, (1, 2))))
    assert step == {
        "stack": [frame("lectures/a.py", 4, "main")],
        "env": extras["env"],
        "renderings": extras["renderings"],
        "stdout": "out\n",
        "memory": {"nbytes": 1, "peak_nbytes": 2},
        "clear": ["y"],
        "error": extras["error"],
    }


def test_step_with_only_some_extras_fills_the_rest():
    step = json.loads(StepWriter().step(((), MAIN, 4, {"stdout": "s"}, (0, 0))))
    assert step["env"] == {} and step["renderings"] == [] and step["stdout"] == "s"


def test_repeated_steps_share_cached_text_but_stay_correct():
    writer = StepWriter()
    memory_a, memory_b = (1, 1), (2, 2)
    texts = [
        writer.step(((), MAIN, 3, None, memory_a)),
        writer.step(((), MAIN, 3, None, memory_b)),
        writer.step(((), MAIN, 3, CALL, memory_a)),
        writer.step(((), MAIN, 3, None, memory_a)),
    ]
    memories = [json.loads(t)["memory"]["nbytes"] for t in texts]
    assert memories == [1, 2, 1, 1] and texts[0] == texts[3] and "call" in json.loads(texts[2])


def test_trace_json_one_step_per_line_and_parses():
    steps = [((), MAIN, 1, None, (0, 0)), ((), MAIN, 2, {"env": {"a": {"type": "none"}}}, (0, 0))]
    text = trace_json({"schema_version": 2, "status": "ok"}, steps)
    data = json.loads(text)
    assert data["schema_version"] == 2 and data["status"] == "ok" and len(data["steps"]) == 2
    lines = text.splitlines()
    assert lines[:2] == ['{"schema_version":2,"status":"ok",', '"frames":[']
    assert lines[2].startswith('{"path"') and lines[3].startswith('{"path"') and lines[4] == "],"
    assert lines[6].startswith('{"frame":0,') and lines[7].startswith('{"frame":1,')
    assert text.endswith("]}\n")


def test_trace_json_without_steps():
    assert json.loads(trace_json({"a": 1}, [])) == {"a": 1, "frames": [], "steps": []}


def test_trace_json_from_a_generator_of_fresh_tuples():
    # Each tuple is freed after use when steps come from a generator; ids get reused.
    steps = (((), ("lectures/a.py", f"f{i}"), 3, None, (i, i)) for i in range(5))
    data = expand_stacks(json.loads(trace_json({"schema_version": 2}, steps)))
    assert [(s["stack"][0]["function"], s["memory"]["nbytes"]) for s in data["steps"]] == [(f"f{i}", i) for i in range(5)]
