"""Trace lectures/hello.py and check that it exercises every authoring call and directive."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.site import trace_ok


LECTURE = Path(__file__).resolve().parent.parent / "lectures" / "hello.py"


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    return trace_ok(LECTURE, tmp_path_factory.mktemp("hello"))


def renderings(trace, kind: str) -> list[dict]:
    return [r for step in trace["steps"] for r in step["renderings"] if r["type"] == kind]


def test_completes_with_title(trace):
    assert trace["status"] == "ok"
    assert trace["lecture"]["title"] == "Hello, chalktrace"


def test_every_api_call_renders(trace):
    assert any(r["data"].startswith("# Hello") for r in renderings(trace, "markdown"))
    assert renderings(trace, "note")
    (image,) = renderings(trace, "image")
    assert image["data"] == "lectures/images/bfloat16.svg" and not image["external"]
    assert renderings(trace, "plot")[0]["spec"]["mark"] == "bar"


def test_all_four_link_forms(trace):
    links = renderings(trace, "link")
    internal = [l for l in links if l.get("internal")]
    assert internal and internal[0]["internal"]["function"] == "double"
    assert any(l["url"] == "https://pytorch.org/docs/stable/tensors.html" for l in links)
    assert any(l["title"] == "einops" and l["url"] == "https://einops.rocks" for l in links)
    record = [l for l in links if l.get("attrs")]
    assert record and record[0]["attrs"]["authors"] == "Paszke et al."


def test_view_shares_storage(trace):
    step = next(s for s in trace["steps"] if "row" in s["env"] and "x" in s["env"])
    assert step["env"]["row"]["storage_id"] == step["env"]["x"]["storage_id"]


def test_call_is_traced_into_and_stepover_is_not(trace):
    functions = [s["stack"][-1]["function"] for s in trace["steps"]]
    call_steps = [s for s in trace["steps"] if s.get("call")]
    assert len(call_steps) == 1  # y = double(row); the @stepover line makes no call step
    assert functions.count("double") == 2  # its two lines, once
    y_step = next(s for s in trace["steps"] if "y" in s["env"])
    assert y_step["env"]["y"]["values"] == [6.0, 8.0, 10.0] and "row" in y_step["env"]
    ones = next(s for s in trace["steps"] if "ones" in s["env"])
    assert ones["env"]["ones"]["values"] == [2.0, 2.0, 2.0]


def test_stdout_clear_and_hide(trace):
    assert any(s["stdout"] == "z has shape (2, 2)\n" for s in trace["steps"])
    assert any(s.get("clear") == ["row"] for s in trace["steps"])
    source = trace["files"]["lectures/hello.py"].splitlines()
    (hidden,) = trace["hidden_lines"]["lectures/hello.py"]
    assert "secret = 42" in source[hidden - 1]
