"""The authoring API that lectures import: text, image, link, note, plot.

Each call turns its arguments into a plain rendering record (see ``trace_format.Rendering``) and
hands it to the active recorder, which attaches it to the lecture line being executed. Outside a
traced run (a lecture started with plain ``python``) the calls validate their input and do nothing
else. This module must not import torch or know about the trace file: it only builds records.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import functools
import inspect
import os
import sys
from pathlib import Path
from typing import Any, Callable, Iterator, Protocol


class RenderingSink(Protocol):
    def add_rendering(self, rendering: dict[str, Any]) -> None: ...
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


def _is_url(target: str) -> bool:
    return "://" in target or target.startswith("data:")


def text(markdown: str, style: dict[str, Any] | None = None, verbatim: bool = False) -> None:
    """Show ``markdown`` in place of this code line (headings become the page outline)."""
    if not isinstance(markdown, str):
        raise TypeError(f"text() takes a string, got {type(markdown).__name__}")
    rendering: dict[str, Any] = {"type": "markdown", "data": inspect.cleandoc(markdown) if "\n" in markdown else markdown}
    if style:
        rendering["style"] = dict(style)
    if verbatim:
        rendering["verbatim"] = True
    _emit(rendering)


def note(markdown: str) -> None:
    """An aside for the reader (rendered as an admonition), kept apart from the main prose."""
    if not isinstance(markdown, str):
        raise TypeError(f"note() takes a string, got {type(markdown).__name__}")
    _emit({"type": "note", "data": inspect.cleandoc(markdown)})


def _caller_dir() -> Path:
    # The first frame outside this module is the lecture line that called us.
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
    return Path(frame.f_code.co_filename).resolve().parent if frame else Path.cwd()


def image(path_or_url: str | os.PathLike[str], width: float | str | None = None, style: dict[str, Any] | None = None) -> None:
    """Show an image: a URL (recorded as is, never fetched) or a local file.

    A local path is looked up relative to the calling lecture file, then to the project root.
    """
    target = os.fspath(path_or_url)
    rendering: dict[str, Any] = {"type": "image", "width": width}
    if style:
        rendering["style"] = dict(style)
    if _is_url(target):
        rendering.update(data=target, external=True)
        _emit(rendering)
        return
    candidates = [_caller_dir() / target]
    if _sink is not None:
        candidates.append(_sink.project_root / target)
    found = next((c for c in candidates if c.is_file()), None)
    if found is None:
        raise FileNotFoundError(f"image not found: {target}")
    relative = _sink.relpath(found) if _sink is not None else None
    rendering.update(data=relative if relative is not None else target, external=False)
    _emit(rendering)


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return str(value)


def _record_attrs(record: Any) -> dict[str, Any]:
    if dataclasses.is_dataclass(record) and not isinstance(record, type):
        fields = {f.name: getattr(record, f.name) for f in dataclasses.fields(record)}
    else:
        fields = {k: v for k, v in vars(record).items() if not k.startswith("_")}
    return {k: _jsonable(v) for k, v in fields.items() if k not in ("title", "url") and v is not None}


@functools.lru_cache(maxsize=64)
def _class_lines(filename: str, _mtime_ns: int) -> dict[str, int]:
    """Qualified class name -> line of its ``class`` statement, parsed once per file."""
    lines: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                lines.setdefault(prefix + child.name, child.lineno)
                visit(child, prefix + child.name + ".")
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, prefix + child.name + ".<locals>.")

    visit(ast.parse(Path(filename).read_text(encoding="utf-8")), "")
    return lines


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


def link(target: Any = None, *, title: str | None = None, url: str | None = None) -> None:
    """Link to a URL, to a function or class of the lecture (jumps to its code), or to a record.

    ``link(url)``, ``link(title=..., url=...)``, ``link(fn)``, ``link(record)`` where the record has
    ``title`` and ``url`` attributes (its other attributes, e.g. authors and date, are kept).
    """
    rendering: dict[str, Any] = {"type": "link", "internal": None}
    if target is None:
        if url is None:
            raise TypeError("link() needs a url, a function or class, or a record with title/url")
        rendering.update(url=url, title=title or url)
    elif isinstance(target, str):
        rendering.update(url=target, title=title or target)
    elif inspect.isfunction(target) or inspect.isclass(target) or inspect.ismethod(target):
        obj: Callable[..., Any] = target
        source_file, line = _definition(obj)
        relative = _sink.relpath(source_file) if (_sink is not None and source_file) else None
        rendering.update(url=None, title=title or getattr(obj, "__qualname__", obj.__name__))
        if relative is not None:
            rendering["internal"] = {"path": relative, "line": line, "function": obj.__name__}
    elif hasattr(target, "url") or hasattr(target, "title"):
        record_url = getattr(target, "url", None) or url
        rendering.update(url=record_url, title=title or getattr(target, "title", None) or record_url or "link")
        rendering["attrs"] = _record_attrs(target)
    else:
        raise TypeError(f"link() cannot link to a {type(target).__name__}")
    _emit(rendering)


def plot(spec: dict[str, Any]) -> None:
    """Record a chart as a Vega-Lite spec (plain data; the site draws it)."""
    if not isinstance(spec, dict):
        raise TypeError(f"plot() takes a Vega-Lite spec dict, got {type(spec).__name__}")
    _emit({"type": "plot", "spec": _jsonable(spec)})
