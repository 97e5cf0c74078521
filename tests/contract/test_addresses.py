"""tracer/contract/addresses.py: only the addresses inside default reprs are masked; other hex stays."""

from __future__ import annotations

import re
import struct
import textwrap
import weakref

import pytest

from helpers.projects import make_project
from helpers.site import trace_ok
from tracer.contract.addresses import mask_addresses


class Plain:
    pass


def test_default_reprs_lose_their_addresses():
    thing = Plain()
    for text in (repr(thing), repr(main_function), repr(weakref.ref(thing)), repr(main_function.__code__)):
        assert "0x…" in mask_addresses(text), text
        assert re.findall(r"0x\S*?(?=[>;,\s]|$)", mask_addresses(text)) == ["0x…"] * text.count("0x"), text


def main_function():
    pass


@pytest.mark.parametrize(
    "text",
    [
        "0xdeadbeef",
        (1.5).hex(),
        hex(struct.unpack("<Q", struct.pack("<d", 1.0))[0]),
        "sign 0 | exponent 0x3ff | mantissa 0x0000000000000",
        "jump at 0x7fff1234 in the table",
        "<tag> 0x7f3a12345678",
    ],
)
def test_other_hex_is_content(text):
    assert mask_addresses(text) == text


def test_hex_in_strings_and_printed_output_is_traced_as_is(tmp_path):
    root = make_project(
        tmp_path,
        {
            "hexes.py": textwrap.dedent(
                """
                import struct


                class Box:
                    pass


                def main():
                    bits = hex(struct.unpack("<Q", struct.pack("<d", 1.0))[0])  # @inspect bits
                    word = "0xdeadbeef"  # @inspect word
                    print("bits", bits, "word", word)
                    box = Box()  # @inspect box
                    print(box)
                """
            )
        },
    )
    trace = trace_ok(root / "lectures" / "hexes.py", tmp_path)
    shown = {name: value for step in trace["steps"] for name, value in (step.get("env") or {}).items()}
    assert shown["bits"]["value"] == "0x3ff0000000000000"
    assert shown["word"]["value"] == "0xdeadbeef"
    assert "0x…" in shown["box"]["repr"]
    printed = "".join(step.get("stdout", "") for step in trace["steps"])
    assert "bits 0x3ff0000000000000 word 0xdeadbeef" in printed
    assert "Box object at 0x…>" in printed
