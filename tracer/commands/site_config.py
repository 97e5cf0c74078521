"""The MkDocs configuration a course's site is built with: its own ``mkdocs.yml``, or one made for it.

A chalktrace course has its ``mkdocs.yml``. An edtrace course used in its own layout usually has
none, and none is asked of it: ``mkdocs_config`` writes one under ``var/chalktrace/`` (ignored by
git, as all of ``var/``), with a home page listing the lectures, the traces read from the course's
traces folder and the site written to ``var/site/``. A course that wants its own pages adds a
``mkdocs.yml`` at its root, which is then used as it is. This module must not trace or build.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from tracer.contract import paths
from tracer.contract.course_layout import CourseLayout
from tracer.contract.files import write_atomic

HOME_PAGE = """# {title}

Each lecture below is a Python program: read it as a document, or step through it line by line.

<!-- chalktrace:lectures -->
"""
# The template course's theme and Markdown settings, with this course's paths (JSON is YAML).
SETTINGS = {
    "theme": {
        "name": "material",
        "font": False,
        "icon": {"edit": "material/file-code-outline"},
        "features": ["navigation.top", "toc.follow", "content.code.copy", "content.action.edit"],
    },
    "markdown_extensions": [
        "tracer.site.markdown_ext.mathml",
        "admonition",
        "attr_list",
        "md_in_html",
        "tables",
        "footnotes",
        {"toc": {"permalink": True}},
        "pymdownx.details",
        {"pymdownx.highlight": {"anchor_linenums": True}},
        "pymdownx.inlinehilite",
        "pymdownx.superfences",
    ],
}


def course_title(root: Path) -> str:
    """The course's name: its pyproject's ``[project] name``, else its folder's."""
    try:
        name = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8")).get("project", {}).get("name")
    except (OSError, tomllib.TOMLDecodeError):
        name = None
    text = name if isinstance(name, str) and name.strip() else root.resolve().name
    return text.replace("-", " ").replace("_", " ").strip() or "Lectures"


def mkdocs_config(layout: CourseLayout) -> tuple[Path, Path]:
    """(the MkDocs configuration file to build with, the folder the site is built into)."""
    own = layout.mkdocs_config
    if own is not None:
        return own, layout.root / paths.BUILD_DIR
    folder = layout.work_dir
    docs = folder / "docs"
    title = course_title(layout.root)
    home = docs / "index.md"
    text = HOME_PAGE.format(title=title)
    if not home.is_file() or home.read_text(encoding="utf-8") != text:  # unchanged: serve does not rebuild for it
        write_atomic(home, text)
    config = {
        "site_name": title,
        "docs_dir": str(docs),
        "site_dir": str(layout.site_dir),
        "plugins": [
            "search",
            {"chalktrace": {"traces_dir": str(layout.traces_dir), "project_root": str(layout.root)}},
        ],
        **SETTINGS,
    }
    path = folder / "mkdocs.yml"
    text = "# Made by chalktrace for this edtrace course (a mkdocs.yml at the course root replaces it).\n"
    text += json.dumps(config, indent=2) + "\n"
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        write_atomic(path, text)
    return path, layout.site_dir
