"""``chalktrace execute -m lecture_01`` (and ``python -m tracer.execute -m lecture_01``): try one
lecture of an edtrace course in place, as ``python -m edtrace.execute -m lecture_01`` runs it.

It traces that one lecture with ``chalktrace run`` (in a process of its own, as every run is),
builds the site from the traces there are (no other lecture is traced), and opens the lecture's
page in the browser (``--no-open``: prints its path). This module must not trace or render by
itself: it dispatches to ``run`` and to ``build``'s site build.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import webbrowser
from pathlib import Path

from tracer.commands.build import build_site
from tracer.commands.course import course_root
from tracer.commands.site_config import mkdocs_config
from tracer.contract.course_layout import quiet_layout_of
from tracer.exit_codes import ExitCode


def main(args: argparse.Namespace) -> int:
    root = course_root("execute", site=True)
    if root is None:
        return ExitCode.BAD_INPUT
    layout = quiet_layout_of(root)
    lecture = layout.lectures_dir / (args.module.replace(".", os.sep) + ".py")
    if not lecture.is_file():
        shown = os.path.relpath(lecture, Path.cwd())
        print(f"chalktrace execute: -m {args.module}: no lecture file {shown}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    traced = subprocess.run([sys.executable, "-m", "tracer", "run", os.path.relpath(lecture, Path.cwd())])
    if traced.returncode not in (ExitCode.OK, ExitCode.LECTURE_FAILED):  # a lecture that raised still has a page
        return traced.returncode
    code = build_site(root, lectures=[lecture])
    if code:
        return code
    _config, site_dir = mkdocs_config(layout)
    page = site_dir / "lectures" / lecture.stem / "index.html"
    print(f"chalktrace: {os.path.relpath(page, Path.cwd())}", file=sys.stderr)
    if not args.no_open:
        webbrowser.open(page.as_uri())
    return traced.returncode
