"""A lecture's files in the built site: the local images it shows, its ``data.js``, ``exact.js``,
``plot()`` charts and heatmaps; its speaker notes beside the site, never in it; and, while ``chalktrace
serve`` serves, the link to its re-trace status.

This module must not render anything (``render_cache.Entry`` holds what was rendered) or publish a
lecture's speaker notes.
"""

from __future__ import annotations

import os
from pathlib import Path

from tracer.contract import paths
from mkdocs.exceptions import PluginError

from tracer.contract.files import write_atomic
from tracer.contract.trace_access import local_images
from tracer.contract.trace_format import Trace
from tracer.site.render_cache import Entry


def published_images(trace: Trace, project_root: Path) -> list[str]:
    """The local images and videos a lecture shows, each published at ``assets/PATH``; a path that
    leaves the project, is missing, or is not a media file by its name is refused."""
    found = local_images(trace)
    for path in found:
        if ".." in Path(path).parts or Path(path).is_absolute():
            raise PluginError(f"image path {path!r} leaves the project")
        if not (project_root / path).is_file():
            raise PluginError(f"image {path} not found under {project_root}")
        if Path(path).suffix.lower() not in paths.PUBLISHED_MEDIA_SUFFIXES:
            raise PluginError(
                f"image {path}: not an image or video file by its name; the site publishes only "
                f"{', '.join(sorted(paths.PUBLISHED_MEDIA_SUFFIXES))}"
            )
    return found


def write_rendered(site_dir: Path, name: str, rendered: Entry) -> None:
    """Write lecture ``name``'s step data, exact grids, charts and heatmaps under ``site_dir``."""
    if rendered.data_js is not None:
        out = paths.data_js_path(site_dir, name)
        write_atomic(out, rendered.data_js)
        out.chmod(0o644)  # a web server must read it, whatever the umask of the build
    if rendered.exact_js is not None:
        out = paths.exact_js_path(site_dir, name)
        write_atomic(out, rendered.exact_js)
        out.chmod(0o644)
    # plot() charts drawn by the read page and the step data (equal charts share one file)
    for chart, svg in rendered.charts.items():
        path = site_dir / paths.PLOTS_URL / chart
        if not path.exists():
            write_atomic(path, svg)
    # tensor heatmaps, each named by its content: a file already there is this very map. A long lecture
    # draws thousands, so the folder is listed once rather than each file looked up (100,005-step bench)
    if rendered.heatmaps:
        folder = site_dir / paths.HEATMAPS_URL
        folder.mkdir(parents=True, exist_ok=True)
        present = set(os.listdir(folder))
        for heatmap, png in rendered.heatmaps.items():
            if heatmap not in present:
                (folder / heatmap).write_bytes(png)


def link_retrace_status(site_dir: Path) -> None:
    """While ``chalktrace serve`` serves: its file of lectures away on a runner, linked into the
    served site (never into a built one) for the reload script to poll."""
    status = os.environ.get(paths.RETRACE_STATUS_ENV)
    if not status:
        return
    link = site_dir / paths.RETRACE_STATUS_URL
    link.parent.mkdir(parents=True, exist_ok=True)
    link.unlink(missing_ok=True)
    link.symlink_to(Path(status).resolve())


def write_notes(out: Path, site_dir: Path, text: str) -> bool:
    """A lecture's speaker notes, to their file beside the site (``chalktrace present`` serves them
    to the presenter alone); never inside ``site_dir``, which is published whole: False, nothing
    written, when ``out`` is there."""
    if out.resolve().is_relative_to(site_dir.resolve()):
        return False
    write_atomic(out, text)
    return True
