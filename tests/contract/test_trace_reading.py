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
