"""``chalktrace export LECTURE (--html | --pdf) -o FILE``: one lecture as one file to share.

It builds the site first when a trace or the site is stale (as ``present`` does), then makes the
file from the real build of the lecture's page: ``--html`` one self-contained page
(``commands/single_file.py``), ``--pdf`` a handout or slides printed by headless Chromium
(``commands/pdf_export.py``). The file is written atomically: a failure leaves no half-written file
and keeps a previous one. This module must not parse its command line (``cli.py`` does) or change
what the page shows (the build did that).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tracer.commands.build import build, plan_build
from tracer.commands.course import course_root
from tracer.commands.freshness import course_lectures
from tracer.commands.present import site_is_stale
from tracer.commands.site_config import mkdocs_config
from tracer.contract import paths
from tracer.contract.course_layout import CourseLayout, quiet_layout_of
from tracer.contract.files import write_atomic
from tracer.contract.paths import shown_path
from tracer.exit_codes import ExitCode


def _say(line: str) -> None:
    print(f"chalktrace export: {line}", file=sys.stderr)


def lecture_named(layout: CourseLayout, lecture: str) -> Path | None:
    """The lecture file ``lecture`` names (NAME, NAME.py or a path to it), None when the course has no such lecture."""
    stem = Path(lecture).stem
    return next((p for p in course_lectures(layout) if p.stem == stem), None)


def built_page(project_root: Path, layout: CourseLayout, name: str, timeout: float) -> Path | int:
    """The built page of lecture ``name`` (building the site first when stale), or an exit code after saying why not."""
    todo = plan_build(project_root, course_lectures(layout), force=False)[0]
    config, site_dir = mkdocs_config(layout)
    if todo or site_is_stale(layout, config, site_dir):
        code = build(project_root, jobs=1, timeout=timeout, force=False, site=True)
        if code:
            _say("the site did not build; nothing written")
            return code
    page = site_dir / paths.lecture_url(name) / "index.html"
    if not page.is_file() or "lt-page-error" in page.read_text(encoding="utf-8"):
        _say(f"{shown_path(page, project_root)}: the lecture's page did not build (see `chalktrace build`); nothing written")
        return ExitCode.BAD_INPUT
    return page


def export(project_root: Path, lecture: str, output: Path, *, pdf: bool, layout_name: str, notes: bool) -> int:
    layout = quiet_layout_of(project_root)
    source = lecture_named(layout, lecture)
    if source is None:
        _say(f"{lecture}: no such lecture in {shown_path(layout.lectures_dir, project_root)}/; nothing written")
        return ExitCode.BAD_INPUT
    if output.is_dir():
        _say(f"{output}: is a folder; -o takes the file to write (e.g. {source.stem}.{'pdf' if pdf else 'html'})")
        return ExitCode.BAD_INPUT
    page = built_page(project_root, layout, source.stem, paths.DEFAULT_TIMEOUT_SECONDS)
    if isinstance(page, int):
        return page
    site_dir = mkdocs_config(layout)[1]
    from tracer.commands.single_file import ExportError, single_file_html

    try:
        data = single_file_html(site_dir, page)
    except ExportError as exc:
        _say(f"{exc}; nothing written")
        return ExitCode.BAD_INPUT
    write_atomic(output, data)
    print(f"chalktrace export: wrote {output} ({len(data.encode('utf-8')):,} bytes)")
    return ExitCode.OK


def main(args: argparse.Namespace) -> int:
    root = course_root("export", site=True)
    if root is None:
        return ExitCode.BAD_INPUT
    return export(
        root,
        args.lecture,
        Path(args.output),
        pdf=False,
        layout_name="book",
        notes=False,
    )
