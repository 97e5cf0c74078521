"""The authoring API that lectures import: text, image, video, link, note, plot, table, graph, system_text, speaker_note.

Each call turns its arguments into a plain rendering record (see ``trace_format.Rendering``) and
hands it to the active recorder, which attaches it to the lecture line being executed (for a call
made inside an untraced helper: the lecture line that called the helper). Outside a traced run (a
lecture started with plain ``python``) the calls validate their input and do nothing else;
``system_text`` runs its command only while tracing, so that the site never runs anything. The
signatures accept what lectures written for ``execute_util`` pass. This module must not import
torch or know about the trace file: it only builds records.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import inspect
import os
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path
from types import FrameType
from typing import Any, Iterator, Protocol

from tracer.capture import graphs, media_cache, references, remote, tables
from tracer.contract.source_facts import read_source, source_facts


class RenderingSink(Protocol):
    def add_rendering(self, rendering: dict[str, Any]) -> None: ...
    def add_speaker_note(self, markdown: str) -> None: ...
    def relpath(self, path: str | os.PathLike[str]) -> str | None: ...
    @property
    def project_root(self) -> Path: ...


_sink: RenderingSink | None = None  # set only by rendering_sink(), for the duration of a traced run


@contextlib.contextmanager
def rendering_sink(sink: RenderingSink) -> Iterator[RenderingSink]:
    """Send renderings to ``sink`` inside the ``with`` block; the previous sink is back afterwards."""
    global _sink
    previous, _sink = _sink, sink
    try:
        yield sink
    finally:
        _sink = previous


def current_sink() -> RenderingSink | None:
    """The sink receiving renderings now (None outside a traced run)."""
    return _sink


def _emit(rendering: dict[str, Any]) -> None:
    if _sink is not None:
        _sink.add_rendering(rendering)


def _warn(message: str) -> None:
    warn = getattr(_sink, "warn", None)
    if warn is not None:
        warn(message)


def _is_url(target: str) -> bool:
    return "://" in target or target.startswith("data:")


def _dedent(markdown: str) -> str:
    """Remove only the indentation that every non-blank line shares, and leading/trailing blank
    lines: what a triple-quoted block indented with the code carries. (``inspect.cleandoc`` would
    also dedent the lines after the first one when the first has none, losing ``"usage:\\n    x"``.)"""
    lines = textwrap.dedent(markdown).split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines)


def text(markdown: str, style: dict[str, Any] | None = None, verbatim: bool = False) -> None:
    """Show ``markdown`` in place of this code line (headings become the page outline).

    The author's whitespace is kept, less the indentation every line shares. ``verbatim=True``
    records the text exactly as given, to be shown preformatted (not as markdown).
    """
    if not isinstance(markdown, str):
        raise TypeError(f"text() takes a string, got {type(markdown).__name__}")
    rendering: dict[str, Any] = {"type": "markdown", "data": markdown if verbatim else _dedent(markdown)}
    if style:
        rendering["style"] = dict(style)
    if verbatim:
        rendering["verbatim"] = True
    _emit(rendering)


def note(markdown: str) -> None:
    """An aside for the reader (rendered as an admonition), kept apart from the main prose."""
    if not isinstance(markdown, str):
        raise TypeError(f"note() takes a string, got {type(markdown).__name__}")
    _emit({"type": "note", "data": _dedent(markdown)})


def speaker_note(markdown: str) -> None:
    """A note for the presenter, recorded on this step: shown only in the speaker view (from this step
    until the next note), never on the page or in present mode; the line itself is left out of the
    page's code (``capture.directives`` hides a statement made of this call alone)."""
    if not isinstance(markdown, str):
        raise TypeError(f"speaker_note() takes a string, got {type(markdown).__name__}")
    if _sink is not None:
        _sink.add_speaker_note(_dedent(markdown))


_ANSI_ESCAPE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")
SYSTEM_TEXT_TIMEOUT_S = 60.0


class ImageOutsideProject(ValueError):
    """``image()`` of a local file outside the project: the run fails as bad input (exit 2)."""


class SystemTextError(RuntimeError):
    """A ``system_text`` command that is missing, failed or ran too long; str() is one line."""


def system_text(command: str | list[str], timeout_s: float = SYSTEM_TEXT_TIMEOUT_S, check: bool = True) -> None:
    """Run ``command`` while the lecture is traced and show its output, preformatted.

    ``command`` is a list of arguments or a string split like a shell would (``shlex``), never run
    through a shell. It runs in the project root, at trace time only: the output is recorded in the
    trace, so building the site runs nothing. ANSI colour codes are removed. A missing command, a
    non-zero exit (unless ``check=False``, which records the output and the exit status) or a run
    longer than ``timeout_s`` raises ``SystemTextError`` naming the command.
    """
    if isinstance(command, str):
        argv = shlex.split(command)
    elif isinstance(command, (list, tuple)) and all(isinstance(a, (str, os.PathLike)) for a in command):
        argv = [os.fspath(a) for a in command]
    else:
        raise TypeError(f"system_text() takes a command string or a list of arguments, got {command!r}")
    if not argv:
        raise ValueError("system_text() got an empty command")
    if _sink is None:
        return
    shown = shlex.join(argv)
    try:
        done = subprocess.run(argv, cwd=_sink.project_root, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout_s)
    except FileNotFoundError:
        raise SystemTextError(f"system_text: command not found: {argv[0]}") from None
    except PermissionError:
        raise SystemTextError(f"system_text: command not executable: {argv[0]}") from None
    except subprocess.TimeoutExpired:
        raise SystemTextError(f"system_text: `{shown}` ran past its {timeout_s:g} s timeout") from None
    output = _ANSI_ESCAPE.sub("", done.stdout.decode("utf-8", errors="replace"))
    if done.returncode != 0 and check:
        stderr = _ANSI_ESCAPE.sub("", done.stderr.decode("utf-8", errors="replace")).strip().splitlines()
        detail = f": {stderr[-1]}" if stderr else ""
        raise SystemTextError(f"system_text: `{shown}` exited with status {done.returncode}{detail}")
    rendering: dict[str, Any] = {"type": "markdown", "data": output, "verbatim": True, "command": argv}
    if done.returncode != 0:
        rendering["exit_status"] = done.returncode
    _emit(rendering)


_PACKAGE_DIR = str(Path(__file__).resolve().parent.parent) + os.sep


def _caller_dir() -> Path:
    # The first frame outside chalktrace (this module, the edtrace names) is the lecture line that called us.
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
    return Path(frame.f_code.co_filename).resolve().parent if frame else Path.cwd()


def _did_you_mean(missing: Path) -> str:
    """``; did you mean bpe_merges.png?`` when a file of its folder has a close name (else "")."""
    import difflib

    try:
        names = [p.name for p in missing.parent.iterdir() if p.is_file()]
    except OSError:
        return ""
    close = difflib.get_close_matches(missing.name, names, n=1, cutoff=0.6)
    return f"; did you mean {close[0]}?" if close else ""


def _local_file(target: str, what: str) -> tuple[Path, str | None]:
    """A local image or video: the file (relative to the calling lecture, then the project root)
    and its project-relative path (None outside a run)."""
    candidates = [_caller_dir() / target]
    if _sink is not None:
        candidates.append(_sink.project_root / target)
    found = next((c for c in candidates if c.is_file()), None)
    if found is None:
        raise FileNotFoundError(f"{what} not found: {target}{_did_you_mean(candidates[0])}")
    relative = _sink.relpath(found) if _sink is not None else None
    if _sink is not None and relative is None:
        # The site publishes files from the project only; say so now, not at build time.
        raise ImageOutsideProject(
            f"{what} {target}: the file is outside the project ({found.resolve()}); "
            "copy it under the project and show it from there"
        )
    return found, relative


def _remote_media(kind: str, url: str, rendering: dict[str, Any]) -> None:
    """A URL shown by image()/video(): the course cache's copy (fetched now if need be), else a link
    (over the size limit) or a placeholder (cannot be had, with a warning naming file:line)."""
    fetcher = remote.current()
    if _sink is None or fetcher is None or url.startswith("data:"):
        rendering.update(data=url, external=True)
        return
    got = media_cache.cached(url, fetcher, kind)
    relative = _sink.relpath(got.path) if got.path is not None else None
    if relative is not None:
        rendering.update(data=relative, external=False, source_url=url)
    elif got.too_large is not None:
        rendering.update(data=url, external=True, too_large=got.too_large)
    elif got.refused is not None:
        rendering.update(data=url, external=True, missing=True)
        fetcher.warn(f"{fetcher.where()}: {kind}({url}): refused: {got.refused}; the page shows a placeholder")
    else:
        rendering.update(data=url, external=True, missing=True)
        fetcher.warn(
            f"{fetcher.where()}: {kind}({url}): not in the course cache and cannot be fetched "
            f"({got.error or 'outside the project'}); the page shows a placeholder"
        )


def _media_rendering(
    kind: str,
    path_or_url: str | os.PathLike[str],
    width: float | str | None,
    style: dict[str, Any] | None,
    alt: str | None,
    caption: str | None,
) -> dict[str, Any]:
    target = os.fspath(path_or_url)
    rendering: dict[str, Any] = {"type": kind, "width": width}
    if style:
        rendering["style"] = dict(style)
    for key, value in (("alt", alt), ("caption", caption)):
        if value is not None:
            if not isinstance(value, str):
                raise TypeError(f"{kind}(): {key}= takes a string, got {type(value).__name__}")
            rendering[key] = value
    if _is_url(target):
        _remote_media(kind, target, rendering)
    else:
        _found, relative = _local_file(target, kind)
        rendering.update(data=relative if relative is not None else target, external=False)
    return rendering


def image(
    path_or_url: str | os.PathLike[str],
    width: float | str | None = None,
    style: dict[str, Any] | None = None,
    *,
    alt: str | None = None,
    caption: str | None = None,
) -> None:
    """Show an image: a local file or a URL.

    A local path is looked up relative to the calling lecture file, then to the project root. A URL
    is fetched when the lecture is traced into the course cache (``lectures/cache/``, committed)
    and the page shows that copy; one over the size limit is linked instead, and one that cannot
    be had shows as a placeholder (with a warning). ``alt`` is the text a screen reader reads
    (default: the caption); ``caption`` shows under the image.
    """
    _emit(_media_rendering("image", path_or_url, width, style, alt, caption))


def video(
    path_or_url: str | os.PathLike[str],
    width: float | str | None = None,
    style: dict[str, Any] | None = None,
    *,
    caption: str | None = None,
) -> None:
    """Show a video with playback controls: a local file (published with the site) or a URL
    (kept in the course cache, as for ``image()``). ``caption`` shows under it."""
    _emit(_media_rendering("video", path_or_url, width, style, None, caption))


def graph(spec: dict[str, Any] | None, style: dict[str, Any] | None = None) -> None:
    """Show a graph made by ``make_graph`` (nodes and edges, drawn as SVG when the site is built).
    ``None`` shows nothing."""
    if spec is None:
        return
    rendering: dict[str, Any] = {"type": "graph", "spec": graphs.checked_spec(spec)}
    if style:
        rendering["style"] = dict(style)
    _emit(rendering)


PLOT_DATA_POINTS = 5_000  # default cap (`chalktrace run --max-plot-points`): the spec keeps an even sample of data.values
_INT_BOUND = 10**300  # beyond a float's range, and JSON (and str()) would balk at thousands of digits


def _jsonable(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool) and not -_INT_BOUND < value < _INT_BOUND:
        return None
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return str(value)


CITATION_FIELDS = ("authors", "organization", "date", "description", "notes")


def _record_attrs(record: Any) -> dict[str, Any]:
    """A record's public fields other than title/url (a dataclass, a namedtuple, any object)."""
    if dataclasses.is_dataclass(record) and not isinstance(record, type):
        fields = {f.name: getattr(record, f.name) for f in dataclasses.fields(record)}
    elif hasattr(record, "_asdict"):
        fields = dict(record._asdict())
    elif hasattr(record, "__dict__"):
        fields = {k: v for k, v in vars(record).items() if not k.startswith("_")}
    else:  # __slots__ and the like: the citation fields it has
        fields = {k: getattr(record, k) for k in CITATION_FIELDS if hasattr(record, k)}
    return {k: _jsonable(v) for k, v in fields.items() if k not in ("title", "url") and v is not None}


@functools.lru_cache(maxsize=64)
def _class_lines(filename: str, _mtime_ns: int) -> dict[str, int]:
    """Qualified class name -> line of its ``class`` statement, parsed once per file."""
    return source_facts(read_source(filename)).class_lines


def _definition(obj: Any) -> tuple[str | None, int]:
    """(file, line) where a function or class is defined, without inspect's per-call file parse."""
    function = getattr(obj, "__func__", obj)
    code = getattr(function, "__code__", None)
    if code is not None:
        return code.co_filename, code.co_firstlineno
    module = sys.modules.get(getattr(obj, "__module__", ""), None)
    filename = getattr(module, "__file__", None)
    if filename and filename.endswith(".py"):
        try:
            line = _class_lines(filename, os.stat(filename).st_mtime_ns).get(obj.__qualname__)
        except (OSError, SyntaxError, UnicodeDecodeError):
            line = None
        if line is not None:
            return filename, line
    return None, 0


def _code_target(target: Any) -> Any:
    """The function or class that ``link(target)`` jumps to.

    Decorated functions are unwrapped (``functools.wraps``), ``functools.partial`` objects lead to
    their function, and other callable objects (instances with ``__call__``) to their class.
    """
    while isinstance(target, functools.partial):
        target = target.func
    if inspect.isfunction(target) or inspect.ismethod(target):
        return inspect.unwrap(getattr(target, "__func__", target))
    if inspect.isclass(target) or inspect.isroutine(target):
        return target
    return type(target)


def link(
    target: Any = None,
    *,
    title: str | None = None,
    url: str | None = None,
    style: dict[str, Any] | None = None,
    authors: str | list[str] | None = None,
    organization: str | None = None,
    date: str | None = None,
    description: str | None = None,
    notes: str | None = None,
) -> None:
    """Link to a URL, to code of the lecture (jumps to it), or cite a reference.

    * ``link(url)``, ``link(url, title=..., notes=...)``, ``link(title=..., url=...)``;
    * ``link(fn)``: a function, class or method (its code), also a decorated function, a
      ``functools.partial`` (its function) or a callable object (its class);
    * ``link(record)``: any object with ``title`` and/or ``url`` attributes, such as a paper record
      with ``authors``, ``organization``, ``date``, ``description``, ``notes``: those fields are kept
      (``attrs``) so that the site can show a compact citation (``[Kaplan+ 2020]``) with the details
      in a panel. The keyword fields add to (or override) a record's own; ``style`` is CSS for the
      link, as for ``text()``.
    """
    given = {"authors": authors, "organization": organization, "date": date, "description": description, "notes": notes}
    given = {k: _jsonable(v) for k, v in given.items() if v is not None}
    rendering: dict[str, Any] = {"type": "link", "internal": None}
    if target is None or isinstance(target, str):
        address = url if target is None else target
        if address is None:
            raise TypeError("link() needs a url, a function or class, or a record with title/url")
        paper = references.arxiv_fields(address) if _sink is not None else {}  # arXiv: title, authors, date
        paper_title = paper.pop("title", None)
        rendering.update(url=address, title=title or paper_title or address)
        given = {**{k: _jsonable(v) for k, v in paper.items()}, **given}
    elif (
        inspect.isclass(target)
        or inspect.isroutine(target)
        or isinstance(target, functools.partial)
        or (callable(target) and not (hasattr(target, "url") or hasattr(target, "title")))
    ):
        code = _code_target(target)
        source_file, line = _definition(code)
        relative = _sink.relpath(source_file) if (_sink is not None and source_file) else None
        name = getattr(code, "__name__", type(code).__name__)
        rendering.update(url=url, title=title or getattr(code, "__qualname__", name))
        if relative is not None:
            rendering["internal"] = {"path": relative, "line": line, "function": name}
    elif hasattr(target, "url") or hasattr(target, "title"):
        record_url = getattr(target, "url", None) or url
        rendering.update(url=record_url, title=title or getattr(target, "title", None) or record_url or "link")
        given = {**_record_attrs(target), **given}
    else:
        raise TypeError(f"link() cannot link to a {type(target).__name__}")
    if given:
        rendering["attrs"] = given
    if style:
        rendering["style"] = dict(style)
    _emit(rendering)


def plot(spec: Any) -> None:
    """Record a chart: a Vega-Lite spec (plain data; the site draws it), or a matplotlib figure
    (drawn to SVG now, while traced: the site needs no matplotlib)."""
    if tables.is_figure(spec):
        if _sink is None:
            return
        too_big = tables.figure_too_big(spec)
        if too_big:
            raise ValueError(too_big)
        svg = tables.figure_svg(spec)
        if len(svg) > tables.MAX_FIGURE_SVG_CHARS:
            raise ValueError(
                f"plot(): the figure is {len(svg):,} characters as SVG (at most "
                f"{tables.MAX_FIGURE_SVG_CHARS:,}); plot fewer points or rasterize the artists"
            )
        suptitle = getattr(spec, "_suptitle", None)
        title = suptitle.get_text() if suptitle is not None else ""
        _emit({"type": "plot", "svg": svg, "title": title or "matplotlib figure"})
        return
    if not isinstance(spec, dict):
        raise TypeError(f"plot() takes a Vega-Lite spec dict or a matplotlib figure, got {type(spec).__name__}")
    rendering: dict[str, Any] = {"type": "plot", "spec": _jsonable(spec)}
    data = rendering["spec"].get("data")
    values = data.get("values") if isinstance(data, dict) else None
    limit = max(1, getattr(_sink, "max_plot_points", PLOT_DATA_POINTS))
    if isinstance(values, list) and len(values) > limit:
        step = -(-len(values) // limit)
        data["values"] = values[::step]
        rendering["truncated"] = {"data_points": len(values)}
        _warn(
            f"plot(): {len(values):,} data points; kept every {step:,}th ({len(data['values']):,}), "
            f"a plot keeps at most {limit:,}"
        )
    _emit(rendering)


def table(data: Any, max_rows: int = tables.MAX_TABLE_ROWS) -> None:
    """Show data as a table: a pandas DataFrame or Series, a 1-D or 2-D array or tensor, a list of
    records (dicts or dataclasses) or of rows. The first ``max_rows`` rows are kept, with the count."""
    rendering = tables.table_rendering(data, max_rows)
    if rendering["total_rows"] > len(rendering["rows"]):
        _warn(f"table(): {rendering['total_rows']:,} rows; the page shows the first {len(rendering['rows']):,}")
    _emit(rendering)
