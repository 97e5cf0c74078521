"""The authoring API that lectures import: text, image, video, link, note, plot, table, graph, system_text, speaker_note,
code, diff, columns, callout.

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
    focus: tuple[float, float, float, float] | list[float] | None = None,
    markers: list[tuple[float, float, str]] | None = None,
) -> None:
    """Show an image: a local file or a URL.

    A local path is looked up relative to the calling lecture file, then to the project root. A URL
    is fetched when the lecture is traced into the course cache (``lectures/cache/``, committed)
    and the page shows that copy; one over the size limit is linked instead, and one that cannot
    be had shows as a placeholder (with a warning). ``alt`` is the text a screen reader reads
    (default: the caption); ``caption`` shows under the image.

    ``focus=(x, y, w, h)`` shows only that region of the image (in the image's pixels, from its top
    left corner), enlarged to the width; ``markers=[(x, y, "label"), ...]`` puts numbered marks at
    those pixels, and lists the labels under the image by number (the text a screen reader reads).
    """
    rendering = _media_rendering("image", path_or_url, width, style, alt, caption)
    if focus is not None or markers is not None:
        _add_focus(rendering, path_or_url, focus, markers)
    _emit(rendering)


def _image_pixels(rendering: dict[str, Any], target: str | os.PathLike[str]) -> tuple[int, int] | None:
    """(width, height) in pixels of the image file a rendering shows (None: not a file we have)."""
    if rendering.get("external"):
        return None
    path = _sink.project_root / rendering["data"] if _sink is not None else _local_file(os.fspath(target), "image")[0]
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as opened:  # reads the header only
            return opened.size
    except (UnidentifiedImageError, OSError):
        raise ValueError(f"image({os.fspath(target)}): focus= and markers= need a PNG, JPEG, GIF or WebP image") from None


def _number_pair(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value


def _add_focus(rendering: dict[str, Any], target: str | os.PathLike[str], focus: Any, markers: Any) -> None:
    """Record focus= and markers= (checked against the image's size) with that size, on ``rendering``."""
    where = f"image({os.fspath(target)})"
    if focus is not None and (not isinstance(focus, (list, tuple)) or len(focus) != 4 or not all(_number_pair(v) for v in focus)):
        raise ValueError(f"{where}: focus= takes (x, y, width, height) in pixels, got {focus!r}")
    if markers is not None and (
        not isinstance(markers, (list, tuple))
        or not all(
            isinstance(m, (list, tuple)) and len(m) == 3 and _number_pair(m[0]) and _number_pair(m[1]) and isinstance(m[2], str)
            for m in markers
        )
    ):
        raise ValueError(f'{where}: markers= takes a list of (x, y, "label") in pixels, got {markers!r}')
    pixels = _image_pixels(rendering, target)
    if pixels is None:
        _warn(f"{where}: not a file of the course, so focus= and markers= are left out (the whole image shows)")
        return
    width_px, height_px = pixels
    x, y, w, h = focus if focus is not None else (0, 0, width_px, height_px)
    if not (0 <= x and 0 <= y and w > 0 and h > 0 and x + w <= width_px and y + h <= height_px):
        raise ValueError(f"{where}: focus=({x}, {y}, {w}, {h}) is not inside the image ({width_px} x {height_px} pixels)")
    rendering["pixels"] = [width_px, height_px]
    if focus is not None:
        rendering["focus"] = [float(v) for v in focus]
    if markers is not None:
        for number, (mx, my, _label) in enumerate(markers, 1):
            if not (x <= mx <= x + w and y <= my <= y + h):
                shown = "the focus" if focus is not None else f"the image ({width_px} x {height_px} pixels)"
                raise ValueError(f"{where}: marker {number} at ({mx}, {my}) is outside {shown}")
        rendering["markers"] = [{"x": float(mx), "y": float(my), "label": label} for mx, my, label in markers]


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


# --- building blocks for prose: code(), diff(), columns(), callout() --------------------------------

CALLOUT_TONES = ("info", "tip", "warning", "danger")


_LANGUAGE_NAME = re.compile(r"^[A-Za-z0-9][\w+#.-]{0,39}$")


def _language(language: str | None, call: str) -> str | None:
    """A language name as Pygments spells them (``python``, ``c``, ``bash``); the site highlights the
    ones its Pygments knows and shows any other as plain text (capture does not load Pygments)."""
    if language is None:
        return None
    if not isinstance(language, str):
        raise TypeError(f"{call}(): language= takes a string, got {type(language).__name__}")
    if not _LANGUAGE_NAME.match(language):
        raise ValueError(f"{call}(): language={language!r} is not a language name (python, c, bash, json, ...)")
    return language


def _text_argument(value: Any, call: str, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{call}(): {what} takes a string, got {type(value).__name__}")
    return value


def code(src: str, language: str = "python", *, caption: str | None = None) -> None:
    """Show ``src`` as highlighted code in ``language`` (a Pygments name: ``"c"``, ``"bash"``,
    ``"cuda"``...); it is shown, never run. The indentation every line shares is removed."""
    rendering: dict[str, Any] = {
        "type": "code",
        "data": _dedent(_text_argument(src, "code", "src")),
        "language": _language(language, "code"),
    }
    if caption is not None:
        rendering["caption"] = _text_argument(caption, "code", "caption=")
    _emit(rendering)


def diff(a: str, b: str, *, language: str | None = None, before: str = "before", after: str = "after") -> None:
    """Show how text ``b`` differs from text ``a``, line by line: removed lines marked ``-``, added
    lines ``+`` (and said so to screen readers, not by colour alone). ``language`` highlights both as
    code; ``before``/``after`` name the two versions."""
    rendering: dict[str, Any] = {
        "type": "diff",
        "a": _dedent(_text_argument(a, "diff", "a")),
        "b": _dedent(_text_argument(b, "diff", "b")),
        "language": _language(language, "diff"),
        "before": _text_argument(before, "diff", "before="),
        "after": _text_argument(after, "diff", "after="),
    }
    _emit(rendering)


def columns(*cells: str, widths: list[float] | tuple[float, ...] | None = None) -> None:
    """Show markdown ``cells`` side by side (two to four), each column as wide as its share of
    ``widths`` (equal by default); on a narrow screen they stack, first on top."""
    if not 2 <= len(cells) <= 4:
        raise ValueError(f"columns() takes two to four markdown cells, got {len(cells)}")
    rendering: dict[str, Any] = {
        "type": "columns",
        "cells": [_dedent(_text_argument(cell, "columns", f"cell {k + 1}")) for k, cell in enumerate(cells)],
    }
    if widths is not None:
        if (
            not isinstance(widths, (list, tuple))
            or len(widths) != len(cells)
            or not all(isinstance(w, (int, float)) and not isinstance(w, bool) and 0 < w < 1e6 for w in widths)
        ):
            raise ValueError(f"columns(): widths= takes one positive number per cell ({len(cells)}), got {widths!r}")
        rendering["widths"] = [float(w) for w in widths]
    _emit(rendering)


def callout(markdown: str, tone: str = "info", *, title: str | None = None) -> None:
    """A boxed message set apart from the prose: ``tone`` is ``"info"``, ``"tip"``, ``"warning"`` or
    ``"danger"``, shown by a word (and an optional ``title``) as well as by its colour."""
    if tone not in CALLOUT_TONES:
        raise ValueError(f"callout(): tone= is one of {', '.join(CALLOUT_TONES)}, got {tone!r}")
    rendering: dict[str, Any] = {
        "type": "callout",
        "data": _dedent(_text_argument(markdown, "callout", "the text")),
        "tone": tone,
    }
    if title is not None:
        rendering["title"] = _text_argument(title, "callout", "title=")
    _emit(rendering)
