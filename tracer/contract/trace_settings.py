"""The course's trace options: ``[tool.chalktrace]`` defaults for ``chalktrace run``, and what a trace records of them.

A course sets them in its ``pyproject.toml``::

    [tool.chalktrace]
    preview_elements = 64     # --preview-elements
    preview_rows = 16         # --preview-rows: value grid rows shown before the fold
    max_steps = 200000        # --max-steps
    max_output_chars = 20000  # --max-output-chars
    flops = false             # --no-flops
    seed = 1                  # --seed

``run`` (and so ``build``, ``check`` and ``serve``, which trace through it) takes them as the defaults of
the matching options; an option on the command line still wins. A trace records the options it was
made with (``Trace.options``, ``environment.seed``), and ``check`` re-traces with those, so a trace made
with ``run --preview-elements 64`` shows no drift. Shared by both sides: standard library only; it
reads settings and must not trace or write.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from tracer.contract.helper_files import SettingsError

# setting -> (the run option it sets, its type): an int setting must be a whole number (above 0 but for
# max_output_chars and seed, which may be 0); flops is true or false
SETTINGS: dict[str, tuple[str, type]] = {
    "preview_elements": ("--preview-elements", int),
    "preview_rows": ("--preview-rows", int),
    "max_steps": ("--max-steps", int),
    "max_output_chars": ("--max-output-chars", int),
    "flops": ("--flops", bool),
    "seed": ("--seed", int),
}
_ZERO_ALLOWED = {"max_output_chars", "seed"}
# A value grid shows this many rows, the rest behind a fold ("120 more rows"), unless the course's
# ``preview_rows``, ``run --preview-rows`` or ``# @inspect x rows=N`` says otherwise.
DEFAULT_PREVIEW_ROWS = 8


def course_trace_settings(project_root: Path) -> dict[str, Any]:
    """The trace options the course's ``pyproject.toml`` sets (only those it sets); SettingsError names
    the file and the key of a bad value."""
    path = project_root / "pyproject.toml"
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return {}
    try:
        table = tomllib.loads(text).get("tool", {}).get("chalktrace", {})
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path.name}: not valid TOML ({exc})") from None
    settings: dict[str, Any] = {}
    for key, (_option, kind) in SETTINGS.items():
        if key not in table:
            continue
        value = table[key]
        if kind is bool:
            if not isinstance(value, bool):
                raise SettingsError(f"{path.name}: [tool.chalktrace] {key} must be true or false, got {value!r}")
        else:
            least = 0 if key in _ZERO_ALLOWED else 1
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise SettingsError(
                    f"{path.name}: [tool.chalktrace] {key} must be a whole number of at least {least}, got {value!r}"
                )
        settings[key] = value
    return settings


def run_arguments(options: dict[str, Any]) -> list[str]:
    """The ``chalktrace run`` arguments that trace with ``options`` (keys of SETTINGS; others are left out)."""
    arguments: list[str] = []
    for key, value in options.items():
        if key not in SETTINGS:
            continue
        option, kind = SETTINGS[key]
        if kind is bool:
            arguments.append("--flops" if value else "--no-flops")
        else:
            arguments += [option, str(value)]
    return arguments


def recorded_options(header: Any) -> dict[str, Any]:
    """The options a trace (its header) records it was made with: ``options`` and ``environment.seed``
    (empty for an older trace that records none)."""
    recorded: dict[str, Any] = dict(header.get("options") or {})
    seed = (header.get("environment") or {}).get("seed")
    if isinstance(seed, int):
        recorded["seed"] = seed
    return recorded


def changed_settings(header: Any, course: dict[str, Any]) -> list[str]:
    """``KEY: A in the trace, B in pyproject.toml`` for each option the course sets that the trace was made
    without (an option the course leaves unset may be anything: check re-traces with the trace's)."""
    recorded = recorded_options(header)
    return [
        f"{key}: {_shown(recorded[key])} in the trace, {_shown(value)} in pyproject.toml"
        for key, value in course.items()
        if key in recorded and recorded[key] != value
    ]


def _shown(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
