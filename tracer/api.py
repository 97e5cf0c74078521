"""The authoring API that lectures import: text, image, link, note, plot.

Each call turns its arguments into a plain rendering record (see ``trace_format.Rendering``) and
hands it to the active recorder, which attaches it to the lecture line being executed. Outside a
traced run (a lecture started with plain ``python``) the calls validate their input and do nothing
else. This module must not import torch or know about the trace file: it only builds records.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import sys
from pathlib import Path
from typing import Any, Callable, Protocol


class RenderingSink(Protocol):
    def add_rendering(self, rendering: dict[str, Any]) -> None: ...
    def relpath(self, path: str | os.PathLike[str]) -> str | None: ...
    @property
    def project_root(self) -> Path: ...


_sink: RenderingSink | None = None


def set_sink(sink: RenderingSink | None) -> RenderingSink | None:
    """Install the recorder that receives renderings; returns the previous one."""
    global _sink
    previous, _sink = _sink, sink
    return previous


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
        try:
            source_file = inspect.getsourcefile(obj)
            _, line = inspect.getsourcelines(obj)
        except (TypeError, OSError):  # defined outside any file we can read: link by name only
            source_file, line = None, 0
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
