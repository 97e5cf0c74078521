"""``chalktrace init DIR``: a new course repository, ready to trace, build and test.

It copies the package's ``course_template/`` (shipped as package data) into ``DIR``: ``mkdocs.yml``
with the chalktrace plugin, ``lectures/hello.py``, ``site/docs/index.md``, an empty ``site/traces/``,
``requirements.txt`` (chalktrace, with the ``torch`` extra by default: what traces the lectures,
pinned to the source this copy was installed from, never a bare name an index could serve),
``requirements-site.txt`` (the same chalktrace without extras: what publishes the site), ``.gitignore``,
the CI script ``.ci/run``, a GitHub Actions workflow (``.ci/run``, then build without torch and
deploy to Pages, with the README's commands) and a README that opens with the set-up-and-build and
test commands. ``COURSE_NAME`` in the files becomes the course's name. It
refuses to write into a directory that already holds files, so nothing is ever overwritten.

``chalktrace init --here`` instead keeps the course in the current folder as it is (a course written
for edtrace: lectures at its root, traces in ``var/traces/``) and writes only ``chalktrace.toml``
(``HERE_CONFIG``, read by ``contract.course_layout``). This module must not trace or build anything.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from importlib import metadata
from pathlib import Path

from tracer.contract import course_layout, paths
from tracer.exit_codes import ExitCode

TEMPLATE_DIR = paths.PACKAGE_DIR / "course_template"
PLACEHOLDER = "COURSE_NAME"
REQUIREMENT_PLACEHOLDER = "CHALKTRACE_REQUIREMENT"
SITE_REQUIREMENT_PLACEHOLDER = "CHALKTRACE_SITE_REQUIREMENT"
DISTRIBUTION = "chalktrace"
# Package data cannot hold dotfiles portably: these template names become the dotted ones.
RENAMED = {"gitignore": ".gitignore", "ci/run": ".ci/run", "github/workflows/site.yml": ".github/workflows/site.yml"}
_EXTRAS = re.compile(r"^(\s*[A-Za-z0-9._-]+)\[[^\]]*\]")


def site_requirement(requirement: str) -> str:
    """``requirement`` without extras: chalktrace as the publishing job installs it (no torch)."""
    return _EXTRAS.sub(r"\1", requirement, count=1)


EXECUTABLE = {".ci/run"}


def pinned_requirement(extras: str = "[torch]") -> str:
    """Where the running chalktrace came from, as a requirement line that installs exactly it.

    A bare name would install whatever the package index serves under that name, so the default
    pins the source this copy was installed from (PEP 610 ``direct_url.json``): a VCS URL at its
    commit, or the wheel, archive or directory it came from. A copy installed from an index is
    pinned to its version."""
    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return f"{DISTRIBUTION}{extras} @ file://{PACKAGE_ROOT.as_posix()}"
    origin = dist.read_text("direct_url.json")
    if not origin:
        return f"{DISTRIBUTION}{extras}=={dist.version}"
    info = json.loads(origin)
    url = info["url"]
    vcs = info.get("vcs_info")
    if vcs:
        url = f"{vcs['vcs']}+{url}@{vcs['commit_id']}"
    return f"{DISTRIBUTION}{extras} @ {url}"


# The checkout this module runs from, when it is not installed as a distribution (PYTHONPATH).
PACKAGE_ROOT = paths.PACKAGE_DIR.parent


class CourseExists(Exception):
    """The target directory already holds files; str() says which directory."""


def template_files() -> list[Path]:
    return sorted(p for p in TEMPLATE_DIR.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def existing_path_problem(directory: Path) -> str | None:
    """Why a new course cannot be written at ``directory`` as it is now, or None (absent, or an empty folder)."""
    if directory.is_symlink() and not directory.exists():
        return f"is a link to {os.readlink(directory)}, which does not exist; remove the link or choose a new directory"
    if not directory.exists():
        parent = next((p for p in directory.parents if p.exists()), None)
        if parent is not None and not parent.is_dir():
            return f"{parent} is a file, not a folder; choose a new directory"
        return None
    if not directory.is_dir():
        return "already exists and is a file, not a folder; choose a new directory"
    try:
        if any(directory.iterdir()):
            return "already exists and is not empty; choose a new directory"
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc}); choose a new directory"
    return None


def create_course(directory: Path, name: str | None = None, requirement: str | None = None) -> list[str]:
    """Write a new course into ``directory``; returns the paths written (relative, sorted).

    ``requirement`` is the line ``requirements.txt`` installs chalktrace from: a version spec, a wheel's
    path or URL (``chalktrace @ file:///.../chalktrace-0.1.0-py3-none-any.whl``), or a VCS URL; by
    default, the source this copy of chalktrace was installed from (:func:`pinned_requirement`)."""
    requirement = requirement or pinned_requirement()
    directory = Path(directory)
    problem = existing_path_problem(directory)
    if problem:
        raise CourseExists(f"{directory}: {problem}")
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
    (directory / paths.TRACES_DIR).mkdir(parents=True, exist_ok=True)
    return sorted(written)


HERE_CONFIG = """\
# chalktrace uses this course where it is, in edtrace's layout: no file moved.
layout = "edtrace"      # the lectures are the root-level *.py files that define main()
traces = "var/traces"   # where traces are kept (edtrace's viewer reads them there too)
lenient = true          # as edtrace: an @inspect of a name that does not exist, and an image without
                        # alt text, are warnings, not `chalktrace check` failures

# Alt text for images, by the path or URL the lecture passes to image() (edtrace's image() takes no alt=):
# [alt_text]
# "images/diagram.png" = "What the diagram shows"
"""


def init_here(directory: Path) -> Path:
    """Write ``chalktrace.toml`` into ``directory`` (CourseExists when it has one already)."""
    target = directory / course_layout.CONFIG_FILE
    if target.exists():
        raise CourseExists(f"{target}: already exists; edit it instead")
    with open(target, "x", encoding="utf-8") as handle:
        handle.write(HERE_CONFIG)
    return target


def main(args: argparse.Namespace) -> int:
    if args.here == bool(args.directory):
        print("chalktrace init: give a new course's DIR, or --here to use the course in this folder", file=sys.stderr)
        return ExitCode.BAD_INPUT
    if args.here:
        try:
            config = init_here(Path.cwd())
        except (CourseExists, OSError) as exc:
            print(f"chalktrace: {exc}", file=sys.stderr)
            return ExitCode.BAD_INPUT
        if not args.quiet:
            print(
                f"chalktrace: wrote {config.name}; next: `chalktrace build` traces the lectures into var/traces/ "
                "and builds the site into var/site/",
                file=sys.stderr,
            )
        return ExitCode.OK
    try:
        written = create_course(Path(args.directory), name=args.name, requirement=args.requirement)
    except CourseExists as exc:
        print(f"chalktrace: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    except OSError as exc:  # a folder that cannot be made or written (permissions, a full disk)
        print(f"chalktrace: {exc.filename or args.directory}: cannot create the course ({exc.strerror or exc})", file=sys.stderr)
        return ExitCode.BAD_INPUT
    git = git_init(Path(args.directory))
    if not args.quiet:
        print(f"chalktrace: created {args.directory}/ ({', '.join(written)}); next: see its README.md", file=sys.stderr)
        if git:
            print(f"chalktrace: {git}", file=sys.stderr)
    return ExitCode.OK


def git_init(directory: Path) -> str | None:
    """Make the new course a git repository (its CI and Pages workflow need one), unless it already
    lies inside one or git is missing; what was done, or why not, as a sentence (None: nothing to say)."""
    import shutil
    import subprocess

    if shutil.which("git") is None:
        return "git not found: run `git init` in the course before its first commit"
    inside = subprocess.run(["git", "-C", str(directory), "rev-parse", "--is-inside-work-tree"], capture_output=True, text=True)
    if inside.returncode == 0 and inside.stdout.strip() == "true":
        return None  # a course inside an existing repository is part of it
    done = subprocess.run(["git", "init", "-q", str(directory)], capture_output=True, text=True)
    if done.returncode != 0:
        return f"git init failed ({done.stderr.strip()}); run it in the course before its first commit"
    return f"initialised a git repository in {directory}/"
