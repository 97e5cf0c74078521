"""``lectrace init DIR``: a new course repository, ready to trace, build and test.

It copies the package's ``course_template/`` (shipped as package data) into ``DIR``: ``mkdocs.yml``
with the lectrace plugin, ``lectures/hello.py``, ``site/docs/index.md``, an empty ``site/traces/``,
``requirements.txt`` (lectrace, with the ``torch`` extra by default: what traces the lectures),
``requirements-site.txt`` (the same lectrace without extras: what publishes the site), ``.gitignore``,
the CI script ``.ci/run``, a GitHub Actions workflow (``.ci/run``, then build without torch and
deploy to Pages, with the README's commands) and a README that opens with the set-up-and-build and
test commands. ``COURSE_NAME`` in the files becomes the course's name. It
refuses to write into a directory that already holds files, so nothing is ever overwritten. This
module must not trace or build anything.
"""

from __future__ import annotations

import re
from pathlib import Path

from tracer import layout

TEMPLATE_DIR = layout.PACKAGE_DIR / "course_template"
PLACEHOLDER = "COURSE_NAME"
REQUIREMENT_PLACEHOLDER = "LECTRACE_REQUIREMENT"
SITE_REQUIREMENT_PLACEHOLDER = "LECTRACE_SITE_REQUIREMENT"
DEFAULT_REQUIREMENT = "lectrace[torch]"
# Package data cannot hold dotfiles portably: these template names become the dotted ones.
RENAMED = {"gitignore": ".gitignore", "ci/run": ".ci/run", "github/workflows/site.yml": ".github/workflows/site.yml"}
_EXTRAS = re.compile(r"^(\s*[A-Za-z0-9._-]+)\[[^\]]*\]")


def site_requirement(requirement: str) -> str:
    """``requirement`` without extras: lectrace as the publishing job installs it (no torch)."""
    return _EXTRAS.sub(r"\1", requirement, count=1)
EXECUTABLE = {".ci/run"}


class CourseExists(Exception):
    """The target directory already holds files; str() says which directory."""


def template_files() -> list[Path]:
    return sorted(p for p in TEMPLATE_DIR.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def create_course(directory: Path, name: str | None = None, requirement: str = DEFAULT_REQUIREMENT) -> list[str]:
    """Write a new course into ``directory``; returns the paths written (relative, sorted).

    ``requirement`` is the line ``requirements.txt`` installs lectrace from: a version spec, a wheel's
    path or URL (``lectrace @ file:///.../lectrace-0.1.0-py3-none-any.whl``), or a VCS URL."""
    directory = Path(directory)
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise CourseExists(f"{directory}: already exists and is not empty; choose a new directory")
    title = name or directory.resolve().name.replace("-", " ").replace("_", " ").strip() or "Lectures"
    written = []
    for source in template_files():
        relative = source.relative_to(TEMPLATE_DIR).as_posix()
        relative = RENAMED.get(relative, relative)
        target = directory / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        text = source.read_text(encoding="utf-8").replace(PLACEHOLDER, title)
        text = text.replace(SITE_REQUIREMENT_PLACEHOLDER, site_requirement(requirement))
        target.write_text(text.replace(REQUIREMENT_PLACEHOLDER, requirement), encoding="utf-8")
        if relative in EXECUTABLE:
            target.chmod(0o755)
        written.append(relative)
    (directory / layout.TRACES_DIR).mkdir(parents=True, exist_ok=True)
    return sorted(written)
