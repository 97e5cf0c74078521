"""``chalktrace export LECTURE (--html | --pdf) -o FILE``: one lecture as one file to share.

It builds the site first when a trace or the site is stale (as ``present`` does), then makes the
file from the real build of the lecture's page: ``--html`` one self-contained page
(``commands/single_file.py``), ``--pdf`` a book handout or slides printed by headless Chromium
(``commands/pdf_export.py``, from the lecture's trace for the slides' steps). The file is written atomically: a failure leaves no half-written file
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
    if not pdf and (layout_name != "book" or notes):
        _say("--layout and --notes go with --pdf; nothing written")
        return ExitCode.BAD_INPUT
    if notes and layout_name != "slides":
        _say("--notes goes with --layout slides (a handout never holds speaker notes); nothing written")
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
        if pdf:
            data = _pdf(layout, source.stem, site_dir, page, layout_name, notes)
        else:
            data = single_file_html(site_dir, page).encode("utf-8")
    except ExportError as exc:
        _say(f"{exc}; nothing written")
        return ExitCode.BAD_INPUT
    write_atomic(output, data)
    print(f"chalktrace export: wrote {output} ({len(data):,} bytes)")
    return ExitCode.OK


def _pdf(layout: CourseLayout, name: str, site_dir: Path, page: Path, layout_name: str, notes: bool) -> bytes:
    from tracer.commands.pdf_export import PdfError, pdf_bytes
    from tracer.commands.present import notes_dir
    from tracer.commands.single_file import ExportError
    from tracer.contract.trace_reading import TraceError, load_trace
    from tracer.site.model.animate import expand_animations

    trace_path = layout.traces_dir / f"{name}.json"
    try:
        trace = expand_animations(load_trace(trace_path))  # step numbers as the site counts them
        return pdf_bytes(
            site_dir, page, layout_name, trace=trace, notes_file=notes_dir(layout) / f"{name}.json" if notes else None
        )
    except (TraceError, PdfError) as exc:
        raise ExportError(str(exc)) from None


def main(args: argparse.Namespace) -> int:
    root = course_root("export", site=True)
    if root is None:
        return ExitCode.BAD_INPUT
    return export(
        root,
        args.lecture,
        Path(args.output),
        pdf=args.pdf,
        layout_name=args.layout,
        notes=args.notes,
    )
