"""read_header reads a trace's first line (the header the writer puts there), not the whole file;
other layouts (older or hand-formatted traces) are still read whole."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tracer.contract.files import write_atomic
from tracer.contract.trace_reading import load_trace, read_header
from tracer.contract.trace_format import TraceError

import pytest

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = sorted((ROOT / "site" / "traces").glob("*.json"))


def _without_body(data: dict) -> dict:
    return {key: value for key, value in data.items() if key not in ("ranks", "frames", "steps")}


@pytest.mark.parametrize("path", COMMITTED[:6], ids=lambda p: p.stem)
def test_the_header_line_holds_every_top_level_field_but_the_body(path):
    whole = json.loads(path.read_text(encoding="utf-8"))
    assert read_header(path) == _without_body(whole)


def test_only_the_first_line_is_read(tmp_path):
    source = COMMITTED[0].read_text(encoding="utf-8")
    header_line, rest = source.split("\n", 1)
    broken = tmp_path / "broken.json"
    # The body is cut off mid-step: not JSON any more, yet the header is whole on line one.
    broken.write_text(header_line + "\n" + rest[: len(rest) // 2], encoding="utf-8")
    with pytest.raises(TraceError):
        load_trace(broken)
    assert read_header(broken) == _without_body(json.loads(source))


def test_other_layouts_are_read_whole(tmp_path):
    whole = json.loads(COMMITTED[0].read_text(encoding="utf-8"))
    pretty = tmp_path / "pretty.json"
    pretty.write_text(json.dumps(whole, indent=1), encoding="utf-8")
    assert read_header(pretty) == whole
    one_line = tmp_path / "one_line.json"
    one_line.write_text(json.dumps(whole), encoding="utf-8")
    assert read_header(one_line) == whole
    garbage = tmp_path / "garbage.json"
    garbage.write_text('{"schema_version": 2, "lect,\n"frames": [', encoding="utf-8")
    assert read_header(garbage) is None


def test_a_replaced_trace_is_read_again_and_callers_get_their_own_copy(tmp_path):
    path = tmp_path / "t.json"
    source = COMMITTED[0].read_text(encoding="utf-8")
    write_atomic(path, source)
    first = read_header(path)
    first["status"] = "changed by a caller"
    assert read_header(path)["status"] == json.loads(source)["status"]
    header = json.loads(source.split("\n", 1)[0][:-1] + "}")
    header["status"] = "error"
    write_atomic(path, json.dumps(header)[:-1] + ",\n" + source.split("\n", 1)[1])
    assert read_header(path)["status"] == "error"
    os.unlink(path)
    assert read_header(path) is None


def test_the_fast_validator_agrees_with_jsonschema(tmp_path):
    import jsonschema

    from tracer.contract.trace_validation import _distinct_steps, _fast_validator, _without_frames, schema

    pytest.importorskip("jsonschema_rs", reason="jsonschema-rs not installed: pip install -e .")
    fast = _fast_validator()
    slow = jsonschema.Draft202012Validator(schema())
    whole = json.loads((ROOT / "site" / "traces" / "hello.json").read_text(encoding="utf-8"))
    tensor_step = next(step for step in whole["steps"] if any(v.get("type") == "tensor" for v in step["env"].values()))
    name = next(k for k, v in tensor_step["env"].items() if v.get("type") == "tensor")
    broken = []
    for change in ("no memory", "tensor without dtype", "absolute path", "bad status", "string nbytes"):
        trace = json.loads(json.dumps(whole))
        step = next(s for s in trace["steps"] if s["env"].get(name, {}).get("type") == "tensor")
        if change == "no memory":
            del trace["steps"][0]["memory"]
        elif change == "tensor without dtype":
            del step["env"][name]["dtype"]
        elif change == "absolute path":
            trace["lecture"]["path"] = "/home/someone/lectures/x.py"
        elif change == "bad status":
            trace["status"] = "fine"
        else:
            trace["steps"][-1]["memory"]["nbytes"] = "12"
        broken.append(trace)
    for trace in [whole, *broken]:
        trace, _ = _distinct_steps(_without_frames(trace)[0])
        assert fast.is_valid(trace) == slow.is_valid(trace)
    assert [fast.is_valid(_distinct_steps(_without_frames(t)[0])[0]) for t in broken] == [False] * 5
