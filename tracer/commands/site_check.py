"""Around ``mkdocs build``: the configuration is checked before, and every lecture's page after.

``chalktrace build`` runs MkDocs with ``--quiet``, which hides warnings, and a mistyped plugin option
is only a warning until ``--strict`` turns it into "Aborted with 1 configuration warnings", with the
line naming the key hidden. ``config_problems`` loads the configuration as MkDocs resolves it
(``INHERIT``, ``!ENV``) and returns each warning and error as one line naming its key, and a line
when the chalktrace plugin is not loaded (the site would build "successfully" with no lecture
pages). ``missing_pages`` names each traced lecture whose page the build did not write. This module
must not trace or render.
"""

from __future__ import annotations

import logging
from pathlib import Path

PLUGIN = "chalktrace"


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(" ".join(record.getMessage().split()))


def config_problems(config_file: Path, shown: str) -> tuple[list[str], Path | None]:
    """(each problem of the MkDocs configuration ``config_file`` as ``shown: what``, the site folder
    it builds into, or None when it cannot be loaded)."""
    from mkdocs import exceptions
    from mkdocs.config import load_config

    logger = logging.getLogger("mkdocs")
    lines = _Lines()
    propagate = logger.propagate
    logger.addHandler(lines)
    logger.propagate = False  # said here, once, with the file's name
    try:
        config = load_config(str(config_file))
    except (exceptions.MkDocsException, OSError, ValueError) as exc:  # Abort, ConfigurationError, YAML errors
        said = lines.lines or [" ".join(str(exc).split()) or type(exc).__name__]
        return [f"{shown}: {line}" for line in said], None
    finally:
        logger.removeHandler(lines)
        logger.propagate = propagate
    problems = [f"{shown}: {line}" for line in lines.lines]
    if PLUGIN not in config["plugins"]:
        problems.append(
            f"{shown}: the {PLUGIN} plugin is not loaded (add `- {PLUGIN}` under `plugins:`); "
            "the site would have no lecture pages"
        )
    return problems, Path(config["site_dir"])


def missing_pages(site_dir: Path, traced: list[tuple[str, str]]) -> list[str]:
    """``shown: ...`` for each ``(lecture name, trace as shown)`` whose page is not in ``site_dir``."""
    from tracer.contract import paths

    return [
        f"{shown}: the site build wrote no page for it (no {paths.lecture_url(name)}index.html)"
        for name, shown in traced
        if not (site_dir / paths.lecture_url(name) / "index.html").is_file()
    ]
