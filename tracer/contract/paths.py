"""The project layout and the site's URLs, in one place.

A chalktrace course repository holds ``lectures/NAME.py`` (plus helpers and images), committed traces
in ``site/traces/NAME.json``, MkDocs pages in ``site/docs/`` and builds into ``build/site/``. The site
serves each lecture at ``lectures/NAME/`` with its traced source at ``lectures/NAME/source.html``
and the step data at ``lectures/NAME/data.js``. A lecture whose CUDA trace was replaced by a CPU one
keeps that GPU run in ``site/traces/gpu/NAME.json``, published at ``lectures/NAME/gpu/``. Templates and the viewer's JS/CSS ship inside the
package (``tracer/site/templates``, ``tracer/site/assets``), so an installed wheel builds a site
with no source checkout. Every module asks this one for paths and URLs; it must stay free of
imports beyond the standard library.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # tracer/

# Inside a course repository, relative to its root.
LECTURES_DIR = "lectures"
TRACES_DIR = "site/traces"
GPU_RUNS_SUBDIR = "gpu"  # under TRACES_DIR: the last CUDA trace of a lecture re-traced without a GPU
DOCS_DIR = "site/docs"
BUILD_DIR = "build/site"

# Shipped with the package.
TEMPLATES_DIR = PACKAGE_DIR / "site" / "templates"
ASSETS_DIR = PACKAGE_DIR / "site" / "assets"
ASSETS_URL = "assets/chalktrace/"  # where the package's assets land in the built site
PLOTS_URL = ASSETS_URL + "plots/"  # plot() charts drawn at build time, one SVG file each
HEATMAPS_URL = "assets/hm/"  # tensor heatmaps drawn at build time, one PNG each (short: every card names it)

DEFAULT_MAX_STEPS = 100_000
DEFAULT_TIMEOUT_SECONDS = 300.0  # per lecture, for check/build/serve

# A course repository's root is the nearest directory holding one of these.
PROJECT_MARKERS = ("mkdocs.yml", "pyproject.toml", "chalktrace.toml", ".git")


def find_project_root(start: Path) -> Path:
    for directory in [start, *start.parents]:
        if any((directory / marker).exists() for marker in PROJECT_MARKERS):
            return directory
    return start


def project_relpath(path: str | Path, root: Path) -> str | None:
    """``path`` relative to the project ``root``, forward slashes; None when outside it. The one place
    a project-relative path is computed (what traces, messages and freshness name files by)."""
    try:
        return Path(path).resolve().relative_to(root).as_posix()
    except ValueError:
        if root.is_absolute() and root == root.resolve():
            return None
        return project_relpath(path, root.resolve())  # an unresolved root (a symlink, a relative path)


def shown_path(path: str | Path, root: Path) -> str:
    """``path`` as messages name it: project-relative, else as given."""
    return project_relpath(path, root) or str(path)


def gpu_run_slug(name: str) -> str:
    """The page name of a kept GPU run: its URL is ``lecture_url(gpu_run_slug(name))``."""
    return f"{name}/{GPU_RUNS_SUBDIR}"


# Set (to anything) in the environment of `mkdocs build`: a lecture page that could not be built
# fails the build instead of only showing its error card (`chalktrace build` sets it).
FAIL_ON_BROKEN_PAGES_ENV = "CHALKTRACE_FAIL_ON_BROKEN_PAGES"

# Set by a runner (tracer/runners) in the environment of the `chalktrace run` it launches: the runner's
# name. The traced process records it, its host name and its Slurm job in the trace's `ran_on`.
RUNNER_ENV = "CHALKTRACE_RUNNER"
# `chalktrace serve` writes which lectures are away on a runner (commands/retrace_status.py) into
# RETRACE_STATUS_FILE of the course's work folder and names it in RETRACE_STATUS_ENV for `mkdocs serve`;
# the plugin links it into the served site at RETRACE_STATUS_URL, which the reload script polls.
RETRACE_STATUS_FILE = "retrace-status.json"
RETRACE_STATUS_ENV = "CHALKTRACE_RETRACE_STATUS"
RETRACE_STATUS_URL = ASSETS_URL + "retrace-status.json"
# `chalktrace serve` writes an error-only trace of a lecture saved with a syntax error into
# DRAFT_TRACES_DIR of the work folder (commands/draft_traces.py) and names that folder in
# DRAFT_TRACES_ENV for `mkdocs serve`: the plugin renders such a lecture from its draft, not its trace.
DRAFT_TRACES_DIR = "draft-traces"
DRAFT_TRACES_ENV = "CHALKTRACE_DRAFT_TRACES"
# A number of processes for step mode's per-card work (tracer/site/pages/card_workers.py), whatever
# the lecture's length: "1" keeps it in the build's own process. Unset: the usable CPUs, for long lectures.
CARD_WORKERS_ENV = "CHALKTRACE_CARD_WORKERS"

# Lecture names the site cannot give a page of its own (compared without case: a course may be
# built on a case-insensitive disk): MkDocs serves lectures/index.md and lectures/README.md as the
# lectures/ directory itself, so lectures/NAME/ would lead nowhere; the others are the names of the
# site's own folders and files (assets, search, the sitemap, the 404 page), which a lecture's page or
# trace must never stand beside or be mistaken for. lecture_files.lecture_name_problem refuses them.
RESERVED_LECTURE_NAMES = ("index", "README", "assets", "search", "sitemap", "404", "lectures", "traces")


# The only files the site publishes for image() and video(): a course's own, and the remote ones the
# media cache kept under the extension their bytes give (never .html, .js or .xml beside the pages).
PUBLISHED_MEDIA_SUFFIXES = frozenset(
    (".png", ".jpg", ".jpeg", ".gif", ".webp", ".avif", ".bmp", ".ico", ".svg", ".tif", ".tiff")
    + (".mp4", ".m4v", ".webm", ".ogv", ".ogg", ".mov")
)


def lecture_url(name: str) -> str:
    return f"lectures/{name}/"


def lecture_src_uri(name: str) -> str:
    """The MkDocs source URI of the generated page (served at :func:`lecture_url`)."""
    return f"lectures/{name}.md"


def source_url(name: str) -> str:
    return f"lectures/{name}/source.html"


def data_js_path(site_dir: Path, name: str) -> Path:
    return site_dir / "lectures" / name / "data.js"


def exact_js_path(site_dir: Path, name: str) -> Path:
    """The exact values of a read page's big rounded grids, beside the page (loaded on first hover)."""
    return site_dir / "lectures" / name / "exact.js"


# Speaker notes, one JSON file per lecture, written by the site build beside the built site and never
# inside it (every file under BUILD_DIR is published); `chalktrace present` serves them to the presenter.
NOTES_DIR = "build/notes"


def notes_path(project_root: Path, name: str) -> Path:
    return project_root / NOTES_DIR / f"{name}.json"
