"""``chalktrace init DIR``: a new course repository, ready to trace, build and test.

It copies the package's ``course_template/`` (shipped as package data) into ``DIR``: ``mkdocs.yml``
with the chalktrace plugin, ``lectures/hello.py``, ``site/docs/index.md``, an empty ``site/traces/``,
``requirements.txt`` (chalktrace, with the ``torch`` extra by default: what traces the lectures,
pinned to a VCS URL at a commit when one can be found, never a local path), ``constraints.txt``
(torch's CPU build on CI),
``requirements-site.txt`` (the same chalktrace without extras: what publishes the site), ``.gitignore``,
the CI script ``.ci/run``, a GitHub Actions workflow (``.ci/run``, then build without torch and
deploy to Pages, with the README's commands) and a README that opens with the set-up-and-build and
test commands. ``COURSE_NAME`` (only in ``mkdocs.yml``'s ``site_name``) becomes the course's title. It
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
from urllib.parse import unquote, urlparse

from tracer.contract import course_layout, paths
from tracer.exit_codes import ExitCode

TEMPLATE_DIR = paths.PACKAGE_DIR / "course_template"
PLACEHOLDER = "COURSE_NAME"
REQUIREMENT_PLACEHOLDER = "CHALKTRACE_REQUIREMENT"
TORCH_PLACEHOLDER = "CHALKTRACE_TORCH_CONSTRAINTS\n"
SITE_REQUIREMENT_PLACEHOLDER = "CHALKTRACE_SITE_REQUIREMENT"
DISTRIBUTION = "chalktrace"
# Package data cannot hold dotfiles portably: these template names become the dotted ones.
RENAMED = {"gitignore": ".gitignore", "ci/run": ".ci/run", "github/workflows/site.yml": ".github/workflows/site.yml"}
_EXTRAS = re.compile(r"^(\s*[A-Za-z0-9._-]+)\[[^\]]*\]")


def site_requirement(requirement: str) -> str:
    """``requirement`` without extras: chalktrace as the publishing job installs it (no torch)."""
    return _EXTRAS.sub(r"\1", requirement, count=1)


EXECUTABLE = {".ci/run"}


def pinned_requirement(extras: str = "[torch]") -> tuple[str, str | None]:
    """Where CI installs chalktrace from, as a requirement line, and a sentence when it is only a version.

    A bare name would install whatever the package index serves under that name, and a local path
    exists only on this machine, so the line is a VCS URL at a commit: the one this copy was installed
    from (PEP 610 ``direct_url.json``), or the ``origin`` remote and ``HEAD`` of the git checkout it was
    installed from (editable or as a directory). A copy installed from an index is pinned to its
    version. Anything else (a wheel file, a checkout without a remote) gives ``>=VERSION`` from the
    index, with the sentence saying so."""
    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        url = checkout_vcs_url(PACKAGE_ROOT)
        if url:
            return f"{DISTRIBUTION}{extras} @ {url}", None
        from tracer import __version__

        return (
            f"{DISTRIBUTION}{extras}>={__version__}",
            f"chalktrace runs from {PACKAGE_ROOT}, not a git checkout with a remote: requirements.txt asks the index "
            f"for chalktrace>={__version__}; `--requirement` names a VCS URL at a commit instead",
        )
    origin = dist.read_text("direct_url.json")
    if not origin:
        return f"{DISTRIBUTION}{extras}=={dist.version}", None
    info = json.loads(origin)
    vcs = info.get("vcs_info")
    if vcs and not info["url"].startswith("file:"):
        return f"{DISTRIBUTION}{extras} @ {vcs['vcs']}+{info['url']}@{vcs['commit_id']}", None
    if info["url"].startswith("file:") and "dir_info" in info:
        url = checkout_vcs_url(Path(unquote(urlparse(info["url"]).path)))
        if url:
            return f"{DISTRIBUTION}{extras} @ {url}", None
    return (
        f"{DISTRIBUTION}{extras}>={dist.version}",
        f"chalktrace was not installed from a git checkout with a remote: requirements.txt asks the index for "
        f"chalktrace>={dist.version}; `--requirement 'chalktrace[torch] @ git+https://HOST/OWNER/chalktrace@COMMIT'` pins a commit",
    )


def checkout_vcs_url(directory: Path) -> str | None:
    """``git+URL@COMMIT`` for the git checkout at ``directory`` (its ``origin`` remote, its ``HEAD``), or
    None: not a checkout, no remote, or a remote that is a local path (CI could not reach it)."""
    import subprocess

    def git(*words: str) -> str | None:
        try:
            done = subprocess.run(["git", "-C", str(directory), *words], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else None

    remote, commit = git("remote", "get-url", "origin"), git("rev-parse", "HEAD")
    if not remote or not commit:
        return None
    scp = re.fullmatch(r"([\w.-]+@[\w.-]+):(?!//)(.+)", remote)  # git@github.com:owner/name.git
    if scp:
        remote = f"ssh://{scp[1]}/{scp[2]}"
    if not remote.startswith(("https://", "http://", "ssh://", "git://")):
        return None
    return f"git+{remote}@{commit}"


def is_local_path(requirement: str) -> bool:
    """Whether ``requirement`` installs from a path on this machine (``file:`` URL or a bare path)."""
    spec = requirement.split(" @ ", 1)[1] if " @ " in requirement else requirement
    spec = spec.strip()
    return spec.startswith(("file:", "/", "./", "../", "~")) or spec.endswith((".whl", ".tar.gz", ".zip")) and "://" not in spec


TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def torch_constraints() -> str:
    """The lines of ``constraints.txt``: PyTorch's CPU index, and this machine's torch version (its public
    part: ``==2.13.0`` matches the CPU index's ``2.13.0+cpu``, which pip prefers as the higher version)."""
    try:
        version = metadata.version("torch").split("+")[0]
    except metadata.PackageNotFoundError:
        return f"--extra-index-url {TORCH_CPU_INDEX}\n"
    return f"--extra-index-url {TORCH_CPU_INDEX}\ntorch=={version}\n"


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


class LocalRequirement(Exception):
    """A ``--requirement`` that names a path on this machine, which CI cannot install; str() says so."""


def course_title(directory: Path) -> str:
    """The title a course gets from its folder's name: ``intro-to-ml`` -> ``Intro to ml``."""
    words = directory.resolve().name.replace("-", " ").replace("_", " ").split()
    title = " ".join(words) or "Lectures"
    return title[:1].upper() + title[1:]


def create_course(directory: Path, name: str | None = None, requirement: str | None = None) -> list[str]:
    """Write a new course into ``directory``; returns the paths written (relative, sorted).

    ``requirement`` is the line ``requirements.txt`` installs chalktrace from: a version spec or a VCS
    URL at a commit, never a local path (LocalRequirement); by default, where this copy of chalktrace
    came from (:func:`pinned_requirement`). The title (``name``, else from the folder's name) is
    written once, as ``site_name`` in ``mkdocs.yml``: every page reads it from there."""
    requirement = requirement or pinned_requirement()[0]
    if is_local_path(requirement):
        raise LocalRequirement(
            f"--requirement {requirement!r}: a local path exists only on this machine, so CI could not install it; "
            "give a VCS URL at a commit (chalktrace[torch] @ git+https://HOST/OWNER/chalktrace@COMMIT) or a version "
            "(chalktrace[torch]>=VERSION); .ci/run installs a local wheel instead when CHALKTRACE_PACKAGE names it"
        )
    directory = Path(directory)
    problem = existing_path_problem(directory)
    if problem:
        raise CourseExists(f"{directory}: {problem}")
    title = name.strip() if name and name.strip() else course_title(directory)
    written = []
    for source in template_files():
        relative = source.relative_to(TEMPLATE_DIR).as_posix()
        relative = RENAMED.get(relative, relative)
        target = directory / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        text = source.read_text(encoding="utf-8").replace(PLACEHOLDER, json.dumps(title))  # a YAML string
        text = text.replace(TORCH_PLACEHOLDER, torch_constraints())
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
    requirement, pin_note = (args.requirement, None) if args.requirement else pinned_requirement()
    try:
        written = create_course(Path(args.directory), name=args.name, requirement=requirement)
    except (CourseExists, LocalRequirement) as exc:
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
    if pin_note:
        print(f"chalktrace: {pin_note}", file=sys.stderr)
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
