"""tracer/capture/api.py: the records that text(), note(), link() and system_text() make."""

from __future__ import annotations

import dataclasses
import functools
import sys
from collections import namedtuple
from pathlib import Path
from typing import Any

import pytest

import tracer
from tracer.capture import api

REPO = Path(__file__).resolve().parents[2]


class Collect:
    """A rendering sink that keeps what it is given (the runner's sink forwards to the recorder)."""

    def __init__(self, project_root: Path = REPO) -> None:
        self.renderings: list[dict[str, Any]] = []
        self.speaker_notes: list[str] = []
        self.project_root = project_root

    def add_rendering(self, rendering: dict[str, Any]) -> None:
        self.renderings.append(rendering)

    def add_speaker_note(self, markdown: str) -> None:
        self.speaker_notes.append(markdown)

    def relpath(self, path: Any) -> str | None:
        try:
            return Path(path).resolve().relative_to(self.project_root).as_posix()
        except ValueError:
            return None


@pytest.fixture
def sink():
    with api.rendering_sink(Collect()) as collect:
        yield collect


def only(sink: Collect) -> dict[str, Any]:
    (rendering,) = sink.renderings
    return rendering


# -- text() and note(): whitespace --------------------------------------------------------------------
@pytest.mark.parametrize(
    "given, recorded",
    [
        ("usage:\n    indented line", "usage:\n    indented line"),  # cleandoc would drop these 4 spaces
        (
            """
        A block indented with the code.
          - keeps its relative indentation

        Second paragraph.
    """,
            "A block indented with the code.\n  - keeps its relative indentation\n\nSecond paragraph.",
        ),
        ("  one line", "one line"),
        ("Tabs\n\tstay", "Tabs\n\tstay"),
        ("code:\n\n    x = 1\n    y = 2\n", "code:\n\n    x = 1\n    y = 2"),
    ],
)
def test_text_dedents_only_the_shared_indentation(sink, given, recorded):
    api.text(given)
    assert only(sink) == {"type": "markdown", "data": recorded}


def test_text_verbatim_records_the_text_exactly(sink):
    exact = "\n  $ ls -l\n  total 0\n\ttab\n\n"
    api.text(exact, verbatim=True)
    assert only(sink) == {"type": "markdown", "data": exact, "verbatim": True}


def test_text_style_and_note(sink):
    api.text("x", style={"color": "gray"})
    api.note("""
        An aside:
            indented
    """)
    assert sink.renderings == [
        {"type": "markdown", "data": "x", "style": {"color": "gray"}},
        {"type": "note", "data": "An aside:\n    indented"},
    ]


def test_text_rejects_non_strings():
    with pytest.raises(TypeError, match="takes a string"):
        api.text(3)  # type: ignore[arg-type]


# -- system_text() -------------------------------------------------------------------------------------
def test_system_text_records_stdout_verbatim_with_the_command(sink):
    api.system_text([sys.executable, "-c", "print('\\x1b[31mred\\x1b[0m  and\\n  indented')"])
    rendering = only(sink)
    assert rendering == {
        "type": "markdown",
        "data": "red  and\n  indented\n",
        "verbatim": True,
        "command": [sys.executable, "-c", "print('\\x1b[31mred\\x1b[0m  and\\n  indented')"],
    }


def test_system_text_takes_a_string_split_like_a_shell_without_a_shell(sink):
    api.system_text(f"{sys.executable} -c 'import sys; print(sys.argv[1:])' 'a b' '$HOME'")
    assert only(sink)["data"] == "['a b', '$HOME']\n"  # one argument with a space; no expansion


def test_system_text_runs_in_the_project_root(sink, tmp_path):
    sink.project_root = tmp_path
    api.system_text([sys.executable, "-c", "import os; print(os.getcwd())"])
    assert Path(only(sink)["data"].strip()) == tmp_path


def test_system_text_missing_command_is_a_clear_error(sink):
    with pytest.raises(api.SystemTextError, match=r"^system_text: command not found: no-such-command-xyz$"):
        api.system_text(["no-such-command-xyz", "--version"])
    assert sink.renderings == []


def test_system_text_failure_names_the_command_and_its_stderr(sink):
    command = [sys.executable, "-c", "import sys; print('out'); sys.exit('went wrong')"]
    with pytest.raises(api.SystemTextError, match=r"exited with status 1: went wrong$"):
        api.system_text(command)
    api.system_text(command, check=False)
    assert only(sink)["data"] == "out\n" and only(sink)["exit_status"] == 1


def test_system_text_timeout(sink):
    with pytest.raises(api.SystemTextError, match=r"ran past its 0.2 s timeout"):
        api.system_text([sys.executable, "-c", "import time; time.sleep(5)"], timeout_s=0.2)


def test_system_text_outside_a_traced_run_checks_input_and_runs_nothing(tmp_path):
    assert api.current_sink() is None
    marker = tmp_path / "ran"
    api.system_text([sys.executable, "-c", f"open({str(marker)!r}, 'w')"])
    assert not marker.exists()
    with pytest.raises(TypeError):
        api.system_text(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="empty command"):
        api.system_text("")


# -- link() --------------------------------------------------------------------------------------------
def local_function():
    return 1


class Callable:
    def __call__(self):
        return 2


def decorator(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    return wrapper


@decorator
def decorated():
    return 3


HERE = "tests/capture/test_api.py"


def line_of(fragment: str) -> int:
    (line,) = [i for i, text in enumerate(Path(__file__).read_text().splitlines(), 1) if text.startswith(fragment)]
    return line


@pytest.mark.parametrize(
    "target, title, line",
    [
        (local_function, "local_function", "def local_function"),
        (functools.partial(local_function), "local_function", "def local_function"),
        (functools.partial(functools.partial(local_function)), "local_function", "def local_function"),
        (Callable(), "Callable", "class Callable"),
        (Callable, "Callable", "class Callable"),
        (Callable().__call__, "Callable.__call__", "    def __call__"),
        (decorated, "decorated", "@decorator"),  # the unwrapped function; its code starts at its decorator
    ],
)
def test_link_to_code(sink, target, title, line):
    api.link(target)
    rendering = only(sink)
    assert rendering["title"] == title and rendering["url"] is None
    assert rendering["internal"]["path"] == HERE
    assert rendering["internal"]["line"] == line_of(line)


def test_link_to_a_builtin_has_a_title_and_no_internal_target(sink):
    api.link(len)
    assert only(sink) == {"type": "link", "internal": None, "url": None, "title": "len"}


def test_link_url_forms(sink):
    api.link("https://example.org/a", notes="read section 2", style={"color": "gray"})
    api.link(title="Docs", url="https://example.org/b")
    api.link("https://example.org/c", title="C")
    assert sink.renderings == [
        {
            "type": "link",
            "internal": None,
            "url": "https://example.org/a",
            "title": "https://example.org/a",
            "attrs": {"notes": "read section 2"},
            "style": {"color": "gray"},
        },
        {"type": "link", "internal": None, "url": "https://example.org/b", "title": "Docs"},
        {"type": "link", "internal": None, "url": "https://example.org/c", "title": "C"},
    ]


@dataclasses.dataclass(frozen=True)
class Reference:
    title: str | None = None
    authors: list[str] | None = None
    organization: str | None = None
    date: str | None = None
    url: str | None = None
    description: str | None = None
    notes: str | None = None


KAPLAN = Reference(
    title="Scaling Laws for Neural Language Models",
    authors=["Jared Kaplan", "Sam McCandlish"],
    organization="OpenAI",
    date="2020-01-23",
    url="https://arxiv.org/abs/2001.08361",
    description="Power laws in N, D and C.",
)


def test_link_citation_record_keeps_its_fields(sink):
    api.link(KAPLAN)
    api.link(KAPLAN, notes="the 6ND rule")  # keyword fields add to the record's own
    first, second = sink.renderings
    assert first == {
        "type": "link",
        "internal": None,
        "url": "https://arxiv.org/abs/2001.08361",
        "title": "Scaling Laws for Neural Language Models",
        "attrs": {
            "authors": ["Jared Kaplan", "Sam McCandlish"],
            "organization": "OpenAI",
            "date": "2020-01-23",
            "description": "Power laws in N, D and C.",
        },
    }
    assert second["attrs"] == {**first["attrs"], "notes": "the 6ND rule"}


def test_link_citation_from_keywords_and_other_record_kinds(sink):
    api.link(title="Adam", url="https://arxiv.org/abs/1412.6980", authors=["Kingma", "Ba"], date="2014-12")
    Paper = namedtuple("Paper", "title url authors")
    api.link(Paper("P", "https://p.org", "A, B"))

    class Slotted:
        __slots__ = ("title", "url", "date")

        def __init__(self):
            self.title, self.url, self.date = "S", "https://s.org", "2021"

    api.link(Slotted())
    assert [r.get("attrs") for r in sink.renderings] == [
        {"authors": ["Kingma", "Ba"], "date": "2014-12"},
        {"authors": "A, B"},
        {"date": "2021"},
    ]
    assert [r["title"] for r in sink.renderings] == ["Adam", "P", "S"]


def test_link_rejects_what_it_cannot_link():
    with pytest.raises(TypeError, match="cannot link to a int"):
        api.link(3)
    with pytest.raises(TypeError, match="needs a url"):
        api.link()
    with pytest.raises(TypeError):
        api.link("https://x.org", bogus=1)  # type: ignore[call-arg]


# -- the package root ----------------------------------------------------------------------------------
def test_star_import_is_the_whole_authoring_api():
    namespace: dict[str, Any] = {}
    exec("from tracer import *", namespace)
    exported = {name for name in namespace if not name.startswith("__")}
    assert (
        exported
        == {
            "text",
            "image",
            "video",
            "link",
            "note",
            "plot",
            "table",
            "graph",
            "make_graph",
            "system_text",
            "speaker_note",
            "code",
            "diff",
            "columns",
            "callout",
            "Reference",
            "url_reference",
        }
        == set(tracer.__all__)
    )
    assert namespace["system_text"] is api.system_text


# -- speaker_note() ------------------------------------------------------------------------------------
def test_speaker_note_goes_to_the_speaker_notes_not_the_renderings(sink):
    api.speaker_note("""
        Ask the room **first**.
          then wait
    """)
    assert sink.speaker_notes == ["Ask the room **first**.\n  then wait"] and sink.renderings == []


def test_speaker_note_rejects_non_strings_and_does_nothing_outside_a_run():
    with pytest.raises(TypeError, match=r"speaker_note\(\) takes a string"):
        api.speaker_note(3)  # type: ignore[arg-type]
    api.speaker_note("no run: nothing happens")


# -- building blocks: code(), diff(), columns(), callout(), image(focus=, markers=) ---------------------
def test_code_records_the_dedented_source_and_its_language_and_runs_nothing(sink):
    api.code(
        """
        rm -rf /tmp/never-run
        echo done
    """,
        language="bash",
        caption="cleanup.sh",
    )
    assert only(sink) == {"type": "code", "data": "rm -rf /tmp/never-run\necho done", "language": "bash", "caption": "cleanup.sh"}


def test_code_says_python_unless_told_and_refuses_what_is_no_language_name(sink):
    api.code("x = 1")
    assert only(sink)["language"] == "python"
    with pytest.raises(ValueError, match=r"code\(\): language='c; rm' is not a language name"):
        api.code("x = 1", language="c; rm")
    with pytest.raises(TypeError, match=r"code\(\): src takes a string, got int"):
        api.code(3)  # type: ignore[arg-type]


def test_diff_records_both_texts_and_their_names(sink):
    api.diff("a\nb", "a\nc", before="v1", after="v2")
    assert only(sink) == {"type": "diff", "a": "a\nb", "b": "a\nc", "language": None, "before": "v1", "after": "v2"}
    with pytest.raises(ValueError, match="is not a language name"):
        api.diff("a", "b", language="")
    with pytest.raises(TypeError, match=r"diff\(\): b takes a string, got list"):
        api.diff("a", ["b"])  # type: ignore[arg-type]


def test_columns_records_two_to_four_markdown_cells_and_their_widths(sink):
    api.columns(
        """
        ### Left
        text
    """,
        "right",
        widths=[2, 1],
    )
    assert only(sink) == {"type": "columns", "cells": ["### Left\ntext", "right"], "widths": [2.0, 1.0]}
    with pytest.raises(ValueError, match=r"two to four markdown cells, got 1"):
        api.columns("alone")
    with pytest.raises(ValueError, match=r"widths= takes one positive number per cell \(2\)"):
        api.columns("a", "b", widths=[1, 0])
    with pytest.raises(ValueError, match=r"widths="):
        api.columns("a", "b", widths=[1])


@pytest.mark.parametrize("tone", api.CALLOUT_TONES)
def test_callout_records_its_tone_and_title(sink, tone):
    api.callout("Mind the **shape**.", tone=tone, title="Shapes")
    assert only(sink) == {"type": "callout", "data": "Mind the **shape**.", "tone": tone, "title": "Shapes"}


def test_callout_refuses_an_unknown_tone(sink):
    with pytest.raises(ValueError, match=r"tone= is one of info, tip, warning, danger, got 'note'"):
        api.callout("x", tone="note")
    assert sink.renderings == []


GRID = "tests/lectures/images/blocks_grid.png"  # 240 x 160 pixels


def test_image_focus_and_markers_are_recorded_with_the_images_size_in_pixels(sink):
    api.image(GRID, alt="a grid", focus=(120, 20, 120, 120), markers=[(180, 40, "top"), (180, 120.5, "bottom")])
    rendering = only(sink)
    assert rendering["data"] == GRID and rendering["pixels"] == [240, 160]
    assert rendering["focus"] == [120.0, 20.0, 120.0, 120.0]
    assert rendering["markers"] == [{"x": 180.0, "y": 40.0, "label": "top"}, {"x": 180.0, "y": 120.5, "label": "bottom"}]


def test_markers_without_focus_are_placed_on_the_whole_image(sink):
    api.image(GRID, alt="a grid", markers=[(0, 0, "corner")])
    rendering = only(sink)
    assert "focus" not in rendering and rendering["pixels"] == [240, 160] and rendering["markers"][0]["label"] == "corner"


@pytest.mark.parametrize(
    "focus, markers, message",
    [
        ((200, 0, 100, 50), None, r"focus=\(200, 0, 100, 50\) is not inside the image \(240 x 160 pixels\)"),
        ((0, 0, 0, 10), None, r"is not inside the image"),
        ((0, 0, 10), None, r"focus= takes \(x, y, width, height\) in pixels"),
        ((0, 0, 100, 100), [(150, 10, "out")], r"marker 1 at \(150, 10\) is outside the focus"),
        (None, [(10, 170, "below")], r"marker 1 at \(10, 170\) is outside the image \(240 x 160 pixels\)"),
        (None, [(10, 10)], r"markers= takes a list of \(x, y, \"label\"\)"),
    ],
)
def test_a_focus_or_marker_off_the_image_fails_naming_it(sink, focus, markers, message):
    with pytest.raises(ValueError, match=message):
        api.image(GRID, alt="a grid", focus=focus, markers=markers)
    assert sink.renderings == []


def test_focus_needs_an_image_whose_size_can_be_read(sink):
    with pytest.raises(ValueError, match=r"focus= and markers= need a PNG, JPEG, GIF or WebP image"):
        api.image("tests/lectures/images/dot.svg", alt="a dot", focus=(0, 0, 1, 1))
