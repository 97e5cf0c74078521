"""tracer/contract/trace_format.py: every produced trace validates; bad trace files fail with one line naming the file."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import NotRequired, get_args, get_origin, get_type_hints

from tracer.contract.value_kinds import KINDS, VALUE_KINDS

import pytest

from tracer.capture.runner import run_lecture
from tracer.contract.trace_format import SCHEMA_VERSION, TraceError
from tracer.contract.trace_reading import MAX_TRACE_DEPTH, MAX_TRACE_NBYTES, expand_stacks, load_trace
from tracer.contract.trace_upgrade import upgrade
from tracer.contract.trace_validation import validation_error

LECTURES = Path(__file__).resolve().parents[1] / "lectures"
# Every fixture lecture of the tracer-core tests (others' fixtures are validated by their own tests).
FIXTURES = [
    "directives_demo",
    "raises_midway",
    "uses_helper",
    "calls_and_comprehensions",
    "renderings_demo",
    "missing_image",
    "many_steps",
    "random_values",
    "paths_and_addresses",
    "inspect_all_demo",
    "tensor_views",
    "classroom",
]


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    out = tmp_path_factory.mktemp("format")
    made = {}
    for name in FIXTURES:
        path = out / f"{name}.json"
        run_lecture(
            LECTURES / f"{name}.py",
            output=path,
            inspect_all=(name == "inspect_all_demo"),
            max_steps=60 if name == "many_steps" else 100_000,
        )
        made[name] = path
    made["stderr_writer"] = out / "stderr_writer.json"  # the optional step field "stderr"
    with contextlib.redirect_stderr(io.StringIO()):
        run_lecture(LECTURES / "hostile" / "stderr_writer.py", output=made["stderr_writer"])
    return made


@pytest.mark.parametrize("name", FIXTURES)
def test_every_produced_trace_validates(traces, name):
    text = traces[name].read_text(encoding="utf-8")
    data = json.loads(text)
    assert validation_error(data) is None
    assert data["schema_version"] == SCHEMA_VERSION
    assert load_trace(traces[name]) == expand_stacks(json.loads(text))
    json.dumps(data, allow_nan=False)  # strict JSON all the way down


def test_validation_error_points_at_the_problem(traces):
    data = json.loads(traces["uses_helper"].read_text(encoding="utf-8"))
    data["steps"][0]["memory"]["nbytes"] = -1
    problem = validation_error(data)
    assert problem.startswith("at steps/0/memory/nbytes:") and "\n" not in problem
    del data["steps"][0]["memory"]
    assert "memory" in validation_error(data)


def test_schema_rejects_absolute_paths(traces):
    data = json.loads(traces["uses_helper"].read_text(encoding="utf-8"))
    data["frames"][0]["path"] = "/home/someone/lectures/a.py"
    assert validation_error(data).startswith("at frames/0/path")


def test_schema_requires_tensor_fields(traces):
    data = json.loads(traces["tensor_views"].read_text(encoding="utf-8"))
    tensor = next(v for s in data["steps"] for v in s["env"].values() if v["type"] == "tensor")
    del tensor["storage_id"]
    assert "storage_id" in validation_error(data)


def _one_line_naming(path: Path, exc: TraceError) -> str:
    message = str(exc)
    assert message.startswith(f"{path}: ") and "\n" not in message
    return message


def test_load_trace_corrupt_json(tmp_path):
    path = tmp_path / "corrupt.json"
    path.write_text('{"schema_version": 1, "steps": [', encoding="utf-8")
    with pytest.raises(TraceError) as info:
        load_trace(path)
    assert "not valid JSON" in _one_line_naming(path, info.value)


def test_load_trace_binary_garbage(tmp_path):
    path = tmp_path / "garbage.json"
    path.write_bytes(b"\xff\xfe\x00junk")
    with pytest.raises(TraceError) as info:
        load_trace(path)
    _one_line_naming(path, info.value)


def test_load_trace_not_an_object(tmp_path):
    path = tmp_path / "list.json"
    path.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(TraceError) as info:
        load_trace(path)
    assert "expected an object" in _one_line_naming(path, info.value)


def test_load_trace_wrong_schema_version(tmp_path, traces):
    data = json.loads(traces["uses_helper"].read_text(encoding="utf-8"))
    data["schema_version"] = SCHEMA_VERSION + 1
    path = tmp_path / "future.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(TraceError) as info:
        load_trace(path)
    assert f"schema_version {SCHEMA_VERSION + 1}" in _one_line_naming(path, info.value)


def test_load_trace_schema_violation(tmp_path, traces):
    data = json.loads(traces["uses_helper"].read_text(encoding="utf-8"))
    data["status"] = "maybe"
    path = tmp_path / "invalid.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(TraceError) as info:
        load_trace(path)
    assert "invalid trace at status" in _one_line_naming(path, info.value)
    assert load_trace(path, validate=False)["status"] == "maybe"


def test_load_trace_missing_file(tmp_path):
    path = tmp_path / "absent.json"
    with pytest.raises(TraceError) as info:
        load_trace(path)
    assert "no such trace file" in _one_line_naming(path, info.value)


# -- the contract is written once: schema, TypedDicts and the writer's real output agree -------------
REPO = Path(__file__).resolve().parents[2]


def optional_keys(typed_dict: type) -> frozenset[str]:
    """Keys a TypedDict marks NotRequired (or all keys of a total=False one)."""
    if not typed_dict.__total__:  # type: ignore[attr-defined]
        return frozenset(typed_dict.__annotations__)
    hints = get_type_hints(typed_dict, include_extras=True)
    return frozenset(name for name, hint in hints.items() if get_origin(hint) is NotRequired)


def typed_keys(typed_dict) -> tuple[set[str], set[str]]:
    """(all keys, required keys) of a TypedDict."""
    keys = set(typed_dict.__annotations__)
    return keys, keys - optional_keys(typed_dict)


def schema_keys(node: dict) -> tuple[set[str], set[str]]:
    return set(node.get("properties", {})), set(node.get("required", []))


def real_traces(traces) -> list[dict]:
    produced = [json.loads(path.read_text(encoding="utf-8")) for path in traces.values()]
    committed = [upgrade(json.loads(p.read_text(encoding="utf-8"))) for p in sorted((REPO / "site" / "traces").glob("*.json"))]
    return produced + committed


def test_schema_and_typeddicts_name_the_same_fields():
    from tracer.contract import trace_format as tf
    from tracer.contract.trace_validation import schema

    s = schema()
    defs = s["$defs"]
    pairs = {
        "Trace": (tf.Trace, s),
        "Step": (tf.Step, defs["step"]),
        "Frame": (tf.Frame, defs["frame"]),
        "FramePosition": (tf.FramePosition, defs["frame_position"]),
        "ErrorInfo": (tf.ErrorInfo, defs["error"]),
        "Memory": (tf.Memory, defs["memory"]),
        "Compute": (tf.Compute, defs["compute"]),
        "Lecture": (tf.Lecture, s["properties"]["lecture"]),
        "Environment": (tf.Environment, s["properties"]["environment"]),
        "RanOn": (tf.RanOn, s["properties"]["ran_on"]),
        "RanksInfo": (tf.RanksInfo, defs["ranks"]),
        "Launch": (tf.Launch, defs["launch"]),
        "RankStream": (tf.RankStream, defs["stream"]),
        "Collective": (tf.Collective, defs["collective"]),
        "ShardInfo": (tf.ShardInfo, defs["shard"]),
        "Stats": (tf.Stats, defs["stats"]["oneOf"][1]),
        "FiniteStats": (tf.FiniteStats, defs["stats"]["oneOf"][1]["properties"]["finite"]),
        "Heatmap": (tf.Heatmap, defs["heatmap"]["oneOf"][1]),
    }
    for name, (typed, node) in pairs.items():
        keys, required = typed_keys(typed)
        schema_all, schema_required = schema_keys(node)
        assert keys == schema_all, f"{name}: TypedDict and schema disagree on fields: {keys ^ schema_all}"
        if typed.__total__:  # total=False TypedDicts (Environment) cannot say which keys are required
            assert required == schema_required, f"{name}: required fields differ: {required ^ schema_required}"
    # One Status: the schema's enums are the types' Literals.
    assert s["properties"]["status"]["enum"] == list(tf.STATUSES)
    assert defs["stream"]["properties"]["status"]["enum"] == list(get_args(tf.RankStatus))
    assert defs["shard"]["properties"]["status"]["enum"] == list(get_args(tf.ShardStatus))
    # Every rendering kind the types allow has a schema branch, and no other kind is valid.
    rendering = defs["rendering"]
    assert set(rendering["properties"]["type"]["enum"]) == set(tf.RENDERING_TYPES)
    branches = {b["if"]["properties"]["type"]["const"] for b in rendering["allOf"]}
    assert branches == set(tf.RENDERING_TYPES)
    rendering_fields = set().union(*(b["then"].get("properties", {}) for b in rendering["allOf"])) | set(rendering["properties"])
    assert rendering_fields == set(tf.Rendering.__annotations__)
    tensor = next(b["then"] for b in defs["value"]["allOf"] if b["if"]["properties"]["type"].get("const") == "tensor")
    keys, required = typed_keys(tf.TensorValue)
    assert set(KINDS["tensor"].required) | {"type", "stats"} == required
    assert (
        keys - required == {"quantized", "subclass", "heatmap", "rows"} <= set(tensor["properties"])
    )  # optional: quantized, subclasses, whole-tensor heatmaps, an @inspect's rows=N


def test_writer_output_uses_only_declared_fields(traces):
    from tracer.contract import trace_format as tf

    seen_step_keys: set[str] = set()
    for trace in real_traces(traces):
        trace_keys, trace_required = typed_keys(tf.Trace)
        assert trace_required <= set(trace) <= trace_keys, set(trace) ^ trace_keys
        assert set(trace["environment"]) <= set(tf.Environment.__annotations__)
        for step in trace["steps"]:
            keys, required = typed_keys(tf.Step)
            assert required <= set(step) <= keys, set(step) - keys
            seen_step_keys |= set(step)
            for rendering in step["renderings"]:
                assert rendering["type"] in tf.RENDERING_TYPES
                assert set(rendering) <= set(tf.Rendering.__annotations__), set(rendering)
            if "compute" in step:
                assert set(step["compute"]) <= set(tf.Compute.__annotations__)
    # the traces exercised every optional step field except compute (only @flops lines have it),
    # collectives (only rank steps have them: tests/capture/test_ranks.py checks those) and stack (never written)
    assert typed_keys(tf.Step)[0] - seen_step_keys <= {"compute", "collectives", "stack"}
    assert "stack" not in seen_step_keys


def test_read_side_accessors(traces):
    from tracer.contract import trace_access as access, trace_reading
    from tracer.contract.trace_format import RENDERING_TYPES
    from tracer.contract.trace_notes import trace_notes

    trace = load_trace(traces["renderings_demo"])
    kinds = {rendering["type"] for _i, rendering in access.iter_renderings(trace)}
    assert kinds <= set(RENDERING_TYPES) and "markdown" in kinds
    assert all(not p.startswith(("http:", "https:")) for p in access.local_images(trace))
    assert access.step_frame(trace["steps"][0])["path"] == "tests/lectures/renderings_demo.py"
    assert access.source_text(trace, "nowhere.py") == "" and access.source_text(trace, trace["lecture"]["path"])
    assert len(access.memory_nbytes(trace)) == len(trace["steps"])
    capped = load_trace(traces["many_steps"])
    assert trace_notes(capped)[-1] == "recording stopped after 60 steps"
    assert trace_reading.read_header(traces["uses_helper"])["lecture"]["name"] == "uses_helper"
    assert trace_reading.read_header(Path("/nonexistent.json")) is None


def test_rank_streams_say_what_their_output_budget_cut():
    from helpers.traced import traced

    trace = traced("ranks_allreduce")
    stream = trace["ranks"]["launches"][0]["streams"][0]
    stream["truncated"] = {"stdout_chars": 200_000, "stderr_chars": 300_000}
    assert validation_error(trace) is None
    stream["truncated"] = {"stdout_chars": "many"}
    assert validation_error(trace).endswith("'many' is not of type 'integer'")


# -- the frame table: a trace grows with its steps, not with their stack depth ------------------------
def _v1(trace: dict) -> dict:
    """``trace`` (as loaded) written as version 1 wrote it: each step with its whole stack."""
    old = json.loads(json.dumps({k: v for k, v in trace.items() if k != "frames"}))
    old["schema_version"] = 1
    for step in old["steps"]:
        del step["frame"]
    return old


def test_version_1_traces_load_as_the_current_version(tmp_path, traces):
    current = load_trace(traces["uses_helper"])
    path = tmp_path / "v1.json"
    path.write_text(json.dumps(_v1(current)), encoding="utf-8")
    old = load_trace(path)
    assert old["schema_version"] == SCHEMA_VERSION
    assert old["frames"] == current["frames"]  # numbered as the writer numbers them
    assert [s["frame"] for s in old["steps"]] == [s["frame"] for s in current["steps"]]
    assert [s["stack"] for s in old["steps"]] == [s["stack"] for s in current["steps"]]


def test_committed_version_1_traces_still_load():
    # CUDA traces made on a GPU machine cannot be re-made here: they are read as they are
    for name in ("hello.json", "gpu/lecture_02.json"):
        path = REPO / "site" / "traces" / name
        if json.loads(path.read_text(encoding="utf-8"))["schema_version"] != 1:
            continue  # re-made since on a GPU
        trace = load_trace(path)
        assert trace["environment"]["device"] == "cuda" and trace["steps"]
        assert all(
            s["stack"][-1] == {k: trace["frames"][s["frame"]][k] for k in ("path", "line", "function")} for s in trace["steps"]
        )


def test_version_1_stack_problems_name_the_step(tmp_path, traces):
    old = _v1(load_trace(traces["uses_helper"]))
    old["steps"][3]["stack"][0]["line"] = "seven"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(old), encoding="utf-8")
    with pytest.raises(TraceError) as info:
        load_trace(path)
    assert "invalid trace at steps/3/stack/0" in _one_line_naming(path, info.value)


def test_frames_that_point_nowhere_are_refused(tmp_path, traces):
    data = json.loads(traces["uses_helper"].read_text(encoding="utf-8"))
    for breakage, where in (
        (lambda d: d["steps"][2].update(frame=len(d["frames"])), "steps/2/frame"),
        (lambda d: d["frames"][1].update(parent=1), "frames/1/parent"),
    ):
        broken = json.loads(json.dumps(data))
        breakage(broken)
        path = tmp_path / "broken.json"
        path.write_text(json.dumps(broken), encoding="utf-8")
        with pytest.raises(TraceError) as info:
            load_trace(path)
        assert f"invalid trace at {where}" in _one_line_naming(path, info.value)
        with pytest.raises(TraceError) as info:  # unvalidated loads check the indexes too
            load_trace(path, validate=False)
        assert f"invalid trace at {where}" in _one_line_naming(path, info.value)


# -- loading is bounded: size before parsing, nesting depth before any reader recurses -------------
def test_a_trace_nested_past_the_limit_is_one_line(tmp_path):
    for depth in (MAX_TRACE_DEPTH + 1, 50_000):
        path = tmp_path / f"deep{depth}.json"
        path.write_text('{"schema_version": 2, "steps": [{"env": {"x": ' + "[" * depth + "]" * depth + "}}]}", encoding="utf-8")
        with pytest.raises(TraceError) as info:
            load_trace(path)
        message = _one_line_naming(path, info.value)
        assert f"nested deeper than the {MAX_TRACE_DEPTH}-level limit" in message


def test_nesting_is_refused_from_one_level_past_the_limit_and_named_there():
    from tracer.contract.trace_reading import nesting_problem

    def nested(levels):  # a trace-like object whose deepest list is at ``levels`` levels
        value = []
        for _ in range(levels - 5):
            value = [value]
        return {"steps": [{"env": {"x": value}}]}

    assert nesting_problem(nested(MAX_TRACE_DEPTH)) is None
    assert nesting_problem(nested(MAX_TRACE_DEPTH + 1)) == "at steps/0/env/x"
    assert nesting_problem({"a": [1, {"b": "c"}], "d": []}, limit=3) is None
    assert nesting_problem({"a": [1, {"b": [2]}], "d": []}, limit=3) == "at a/1/b"


def test_a_trace_over_the_size_limit_is_not_parsed(tmp_path, monkeypatch):
    path = tmp_path / "big.json"
    path.write_text('{"schema_version": 2}' + " " * 2000, encoding="utf-8")
    monkeypatch.setattr("tracer.contract.trace_reading.MAX_TRACE_NBYTES", 1000)
    monkeypatch.setattr("json.loads", lambda *a, **k: pytest.fail("parsed a trace over the size limit"))
    with pytest.raises(TraceError) as info:
        load_trace(path)
    assert "2,021 bytes, over the 1,000-byte limit" in _one_line_naming(path, info.value)
    assert MAX_TRACE_NBYTES >= 100 * 1024 * 1024


def test_version_1_float32_elements_load_as_the_shortest_decimal_in_their_dtype(tmp_path):
    import torch

    from tracer.contract.float_text import shorten_values

    x = torch.tensor([1000.1, -2.1152193546295166, 1 / 3, 1e-45, 123456789.0, 0.0], dtype=torch.float32)
    old = x.tolist()  # what version 1 wrote: each element as the float64 it converts to
    record = {
        "type": "tensor",
        "dtype": "float32",
        "values": [old],
        "stats": {"min": old[1], "max": old[4], "mean": float(x.double().mean()), "finite": {"min": old[1]}},
    }
    untouched = {"type": "tensor", "dtype": "bfloat16", "values": [0.10009765625]}
    shorten_values([{"env": {"x": record, "y": {"type": "list", "items": [untouched]}}}])
    assert record["values"] == [[1000.1, -2.1152194, 0.33333334, 1e-45, 123456792.0, 0.0]]
    assert record["stats"]["min"] == record["stats"]["finite"]["min"] == -2.1152194
    # each is the same float32 element, in the fewest digits that say so
    assert torch.equal(torch.tensor(record["values"][0], dtype=torch.float32), x)
    assert untouched["values"] == [0.10009765625]  # no dtype numpy or struct rounds to: as recorded


def test_the_committed_gpu_run_reads_with_short_floats():
    path = REPO / "site" / "traces" / "gpu" / "lecture_02.json"
    if json.loads(path.read_text(encoding="utf-8"))["schema_version"] != 1:
        pytest.skip("re-made since on a GPU: written short by the tracer itself")
    text = json.dumps(load_trace(path)["steps"])
    assert "-2.1152193546295166" in path.read_text(encoding="utf-8") and "-2.1152193546295166" not in text


def test_each_value_kinds_required_fields_come_from_the_registry_alone():
    from tracer.contract.trace_validation import SCHEMA_PATH, schema

    in_file = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))["$defs"]["value"]["allOf"]
    named = {b["if"]["properties"]["type"]["const"] for b in in_file}
    assert named <= set(KINDS) and all("required" not in b["then"] for b in in_file)  # shapes only
    loaded = schema()["$defs"]["value"]["allOf"]
    required = {b["if"]["properties"]["type"]["const"]: b["then"]["required"] for b in loaded if "required" in b["then"]}
    assert required == {kind.name: list(kind.required) for kind in VALUE_KINDS if kind.required}
    # and the validator applies them: a tensor without its dtype, a missing without its message
    assert validation_error({"schema_version": 2}) is not None
    value_schema = {**schema()["$defs"]["value"], "$defs": schema()["$defs"]}
    import jsonschema

    assert not jsonschema.Draft202012Validator(value_schema).is_valid({"type": "missing"})
    assert jsonschema.Draft202012Validator(value_schema).is_valid({"type": "missing", "message": "gone"})
