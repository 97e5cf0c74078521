"""What a published page may show students besides the lecture: the one policy ``check``, ``build``,
``run``, ``serve`` and the page itself consult.

Every warning a trace carries (``trace_notes``: the run's warnings, and notes on what a cap cut) and
every image without alt text would reach students as a warning box. :func:`student_warnings` names
each by a kind (``KINDS``), and marks it accepted when the author said so, either

* with ``# @accept KIND`` on the statement the warning names (any physical line of it), or
* in the course's ``pyproject.toml``: ``[tool.chalktrace] accept_warnings = ["metadata",
  "lectures/bpe.py:truncated"]`` (a kind for every lecture, or ``PATH:KIND`` for one).

``check`` and ``build`` fail on each warning not accepted, naming ``file:line``; an accepted one is
shown on the page as the author's note. A lenient course (an edtrace course switched in place:
``contract.course_layout``) has no warning box for an image without alt text, as under edtrace
(``missing_alt`` lists them, and ``check`` says them as warnings), and an ``@inspect`` of a name
that does not exist is accepted (its note is shown, as edtrace warns); alt text it gives in
``chalktrace.toml``'s ``[alt_text]`` is recorded with the image. Reads the trace and the course settings only (standard
library): it must not run lectures or render pages.
"""

from __future__ import annotations

import io
import re
import tokenize
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tracer.contract.course_layout import quiet_layout_of
from tracer.contract.helper_files import SettingsError
from tracer.contract.source_facts import parse_directive_comment, source_facts
from tracer.contract.trace_notes import trace_notes

# kind -> what it names (the guide's table lists the same)
KINDS: dict[str, str] = {
    "unencodable": "a value chalktrace could not encode (its card is empty)",
    "directive": "a directive chalktrace does not support, or one written wrongly",
    "metadata": "citation metadata that could not be fetched and is not in the course's cache",
    "media": "a remote image or video that could not be fetched and is not in the course's cache",
    "alt-text": "an image with no alt text",
    "truncated": "a cap stopped recording or cut printed output or plot data",
    "other": "any other trace warning",
}
ACCEPT_SETTING = "accept_warnings"

# The first pattern that matches a warning's text names its kind ("other" when none does).
_KIND_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # the value encoder's problems: "CLASS: cannot encode: ...", "CLASS: repr() raised ...", ...
    ("unencodable", re.compile(r"^[\w.<>\[\], ]+: (cannot encode|\w+\(\) raised |int with [\d,]+ digits|[\d,]+ lone surrogate)")),
    ("directive", re.compile(r"unknown directive @|^@\w+ |@inspect/@clear takes|@ask ")),
    ("metadata", re.compile(r"arXiv metadata unavailable|arXiv has no paper|cannot read the arXiv cache")),
    ("media", re.compile(r"not in the course cache and cannot be fetched")),
    (
        "truncated",
        re.compile(r"^recording stopped after|^rank \d+: recording stopped|^step cap reached|kept in part|^plot data sampled"),
    ),
)
MISSING_NAME = re.compile(r"^@inspect [\w.]+: (NameError|AttributeError)\b")  # a name that does not exist there
_LOCATED = re.compile(r"^(?P<path>[^\s:]+\.py):(?P<line>\d+): (?P<message>.*)$", re.DOTALL)


@dataclass(frozen=True)
class StudentWarning:
    kind: str
    message: str  # without its location
    path: str  # the file it names (the lecture when it names none)
    line: int | None
    accepted: bool

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}" if self.line is not None else self.path

    @property
    def text(self) -> str:
        """``path:line: message``, as terminals and the page show it."""
        return f"{self.where}: {self.message}"

    def problem(self) -> str:
        """The line ``check`` and ``build`` print for it, saying how to accept it."""
        how = (
            f"`# @accept {self.kind}` on its line" if self.line is not None else f'{ACCEPT_SETTING} = ["{self.path}:{self.kind}"]'
        )
        return f"{self.text} (a warning box students would see: fix it, or accept it with {how})"


def warning_kind(message: str) -> str:
    """The kind (a key of ``KINDS``) of a warning's message (its location left off)."""
    for kind, pattern in _KIND_PATTERNS:
        if pattern.search(message):
            return kind
    return "other"


def accepted_settings(project_root: Path | None) -> tuple[str, ...]:
    """``[tool.chalktrace] accept_warnings`` of the course (``KIND`` or ``PATH:KIND`` entries).

    Raises :class:`SettingsError` for a setting that is not a list of such entries."""
    if project_root is None:
        return ()
    path = project_root / "pyproject.toml"
    try:
        settings = tomllib.loads(path.read_text(encoding="utf-8")).get("tool", {}).get("chalktrace", {})
    except (FileNotFoundError, NotADirectoryError):
        return ()
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path.name}: not valid TOML ({exc})") from None
    entries = settings.get(ACCEPT_SETTING, [])
    if not isinstance(entries, list) or not all(isinstance(e, str) and e.rpartition(":")[2] in KINDS for e in entries):
        raise SettingsError(
            f"{path.name}: [tool.chalktrace] {ACCEPT_SETTING} must be a list of warning kinds ({', '.join(KINDS)}), "
            'each alone or after a lecture\'s path ("lectures/bpe.py:metadata")'
        )
    return tuple(entries)


def _accept_marks(source: str) -> dict[int, set[str]]:
    """Statement start line -> the kinds its ``# @accept`` comments name."""
    facts = source_facts(source)
    marks: dict[int, set[str]] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT:
                kinds = parse_directive_comment(token.string)[0].get("accept")
                if kinds is not None:
                    marks.setdefault(facts.owner.get(token.start[0], token.start[0]), set()).update(kinds)
    except (SyntaxError, tokenize.TokenError):
        return {}
    return marks


def missing_alt(trace: Any) -> list[tuple[str, int, str]]:
    """(path, line, message) for each image a screen reader could not describe: no ``alt=`` and no
    ``caption=`` (the page reads a caption as the alt); ``alt=""`` marks an image as decorative."""
    found: list[tuple[str, int, str]] = []
    seen: set[tuple[str, int, str]] = set()
    for step in trace.get("steps") or []:
        for rendering in step.get("renderings") or []:
            if not isinstance(rendering, dict) or rendering.get("type") != "image" or not step.get("stack"):
                continue
            if rendering.get("alt") is not None or rendering.get("caption"):
                continue
            frame = step["stack"][-1]
            target = str(rendering.get("source_url") or rendering.get("data") or "")  # a remote one by its URL
            key = (frame["path"], frame["line"], target)
            if key not in seen:
                seen.add(key)
                message = f'image {target} has no alt text; pass alt="what it shows" (or alt="" if it is decorative)'
                found.append((frame["path"], frame["line"], message))
    return found


def student_warnings(trace: Any, project_root: Path | None = None) -> list[StudentWarning]:
    """Every warning box ``trace``'s page would show, in page order, each with its kind and whether
    the author accepted it (``# @accept KIND`` in the recorded source, or the course's
    ``accept_warnings`` under ``project_root``). ``check`` and ``build`` fail on those not accepted.

    Raises :class:`SettingsError` when the course's setting cannot be used."""
    lecture = str((trace.get("lecture") or {}).get("path") or "lecture")
    course = accepted_settings(project_root)
    marks: dict[str, dict[int, set[str]]] = {}

    def accepted(kind: str, path: str, line: int | None) -> bool:
        if kind in course or f"{path}:{kind}" in course or (path != lecture and f"{lecture}:{kind}" in course):
            return True
        if line is None:
            return False
        if path not in marks:
            marks[path] = _accept_marks((trace.get("files") or {}).get(path) or "")
        owner = source_facts((trace.get("files") or {}).get(path) or "").owner.get(line, line)
        return kind in marks[path].get(owner, set())

    found: list[StudentWarning] = []
    raw: list[tuple[str, int | None, str, str]] = []
    for note in trace_notes(trace):
        located = _LOCATED.match(note)
        if located:
            message = located["message"]
            raw.append((located["path"], int(located["line"]), message, warning_kind(message)))
        else:
            raw.append((lecture, None, note, warning_kind(note)))
    lenient = project_root is not None and quiet_layout_of(project_root).lenient
    if not lenient:
        raw.extend((path, line, message, "alt-text") for path, line, message in missing_alt(trace))
    for path, line, message, kind in raw:
        as_edtrace = lenient and bool(MISSING_NAME.match(message))  # a warning under edtrace, shown as one
        found.append(StudentWarning(kind, message, path, line, as_edtrace or accepted(kind, path, line)))
    return found
