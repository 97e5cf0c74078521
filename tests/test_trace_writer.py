"""tracer/capture/trace_writer.py: step tuples become the trace JSON text, one step per line."""

from __future__ import annotations

import json

from tracer.capture.recorder import CALL
from tracer.capture.trace_writer import StepWriter, dumps, trace_json

MAIN = ("lectures/a.py", "main")
HELPER = ("lectures/a.py", "helper")


def frame(path, line, function):
    return {"path": path, "line": line, "function": function}


def test_dumps_is_compact_strict_and_keeps_unicode():
    assert dumps({"a": [1, "…"]}) == '{"a":[1,"…"]}'
    text = dumps({"x": float("nan"), "y": [float("inf"), {"z": float("-inf")}], "ok": 1.5})
    assert json.loads(text) == {"x": "nan", "y": ["inf", {"z": "-inf"}], "ok": 1.5}
    assert "NaN" not in text and "Infinity" not in text


def test_plain_step():
    step = json.loads(StepWriter().step(((), MAIN, 3, None, (10, 20))))
    assert step == {"stack": [frame("lectures/a.py", 3, "main")], "env": {}, "renderings": [], "stdout": "",
                    "memory": {"nbytes": 10, "peak_nbytes": 20}}


def test_call_step_and_callers_prefix():
    writer = StepWriter()
    prefix = (("lectures/a.py", 7, "main"),)
    call = json.loads(writer.step(((), MAIN, 7, CALL, (0, 0))))
    inner = json.loads(writer.step((prefix, HELPER, 2, None, (0, 0))))
    assert call["call"] is True and call["stack"] == [frame("lectures/a.py", 7, "main")]
    assert inner["stack"] == [frame("lectures/a.py", 7, "main"), frame("lectures/a.py", 2, "helper")]
    assert "call" not in inner


def test_step_with_extras_keeps_them_and_drops_internal_unwind():
    extras = {"env": {"x": {"type": "int", "value": 1}}, "renderings": [{"type": "note", "data": "hi"}],
              "stdout": "out\n", "clear": ["y"], "unwind": ValueError("internal"),
              "error": {"type": "ValueError", "message": "m", "traceback": []}}
    step = json.loads(StepWriter().step(((), MAIN, 4, extras, (1, 2))))
    assert step == {"stack": [frame("lectures/a.py", 4, "main")], "env": extras["env"],
                    "renderings": extras["renderings"], "stdout": "out\n", "memory": {"nbytes": 1, "peak_nbytes": 2},
                    "clear": ["y"], "error": extras["error"]}


def test_step_with_only_some_extras_fills_the_rest():
    step = json.loads(StepWriter().step(((), MAIN, 4, {"stdout": "s"}, (0, 0))))
    assert step["env"] == {} and step["renderings"] == [] and step["stdout"] == "s"


def test_repeated_steps_share_cached_text_but_stay_correct():
    writer = StepWriter()
    memory_a, memory_b = (1, 1), (2, 2)
    texts = [writer.step(((), MAIN, 3, None, memory_a)), writer.step(((), MAIN, 3, None, memory_b)),
             writer.step(((), MAIN, 3, CALL, memory_a)), writer.step(((), MAIN, 3, None, memory_a))]
    memories = [json.loads(t)["memory"]["nbytes"] for t in texts]
    assert memories == [1, 2, 1, 1] and texts[0] == texts[3] and "call" in json.loads(texts[2])


def test_trace_json_one_step_per_line_and_parses():
    steps = [((), MAIN, 1, None, (0, 0)), ((), MAIN, 2, {"env": {"a": {"type": "none"}}}, (0, 0))]
    text = trace_json({"schema_version": 1, "status": "ok"}, steps)
    data = json.loads(text)
    assert data["schema_version"] == 1 and data["status"] == "ok" and len(data["steps"]) == 2
    lines = text.splitlines()
    assert lines[0].startswith("{") and lines[2].startswith('{"stack"') and lines[3].startswith('{"stack"')
    assert text.endswith("]}\n")


def test_trace_json_without_steps():
    assert json.loads(trace_json({"a": 1}, [])) == {"a": 1, "steps": []}


def test_trace_json_from_a_generator_of_fresh_tuples():
    # Each tuple is freed after use when steps come from a generator; ids get reused.
    steps = (((), ("lectures/a.py", f"f{i}"), 3, None, (i, i)) for i in range(5))
    data = json.loads(trace_json({"schema_version": 1}, steps))
    assert [(s["stack"][0]["function"], s["memory"]["nbytes"]) for s in data["steps"]] == [
        (f"f{i}", i) for i in range(5)]
