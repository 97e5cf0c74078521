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
