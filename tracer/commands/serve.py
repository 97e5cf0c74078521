"""``chalktrace serve``: the authoring loop.

It brings stale traces up to date, then runs ``mkdocs serve`` in a child process while a file
watcher re-traces a lecture whenever it (or a helper, or an image) is saved. Re-written traces are
picked up by the MkDocs plugin's own ``on_serve`` watch (so plain ``mkdocs serve`` reloads on a new
trace too). This module must not trace or render by itself: it calls ``build.build`` and MkDocs,
and it never leaves the server running behind it.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from tracer.contract.paths import shown_path
from tracer.commands.build import build
from tracer.commands.draft_traces import DraftTraces
from tracer.commands.retrace_status import RetraceStatus
from tracer.commands.course import course_root
from tracer.commands.site_config import mkdocs_config
from tracer.contract import paths
from tracer.contract.course_layout import quiet_layout_of
from tracer.exit_codes import ExitCode

WATCHED_SUFFIXES = (".py", ".svg", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".webm", ".mp4")  # videos too (video())
DEBOUNCE_SECONDS = 0.4


def address_in_use(address: str) -> str | None:
    """Why ``mkdocs serve`` cannot listen on ``address`` (HOST:PORT), in one line, or None when it can."""
    host, _, port_text = address.rpartition(":")
    try:
        port = int(port_text)
    except ValueError:
        return f"-a {address}: expected HOST:PORT, e.g. 127.0.0.1:8000"
    host = host.strip("[]") or "127.0.0.1"
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        return f"-a {address}: unknown host {host!r} ({exc.strerror})"
    family, kind, proto, _name, where = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds
        try:
            probe.bind(where)
        except OSError as exc:
            return (
                f"{address} is in use ({exc.strerror}): is another server running there? "
                f"Stop it, or pass another address: -a {host}:{port + 1}"
            )
    return None


def serve(project_root: Path, *, address: str, timeout: float, force: bool = False, runner: str | None = None) -> int:
    """``mkdocs serve``, plus re-tracing a lecture whenever its file (or a helper) is saved."""
    from watchdog.events import FileSystemEventHandler
    from watchdog.observers import Observer

    busy = address_in_use(address)
    if busy:
        print(f"chalktrace serve: {busy}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    jobs = os.cpu_count() or 1
    layout = quiet_layout_of(project_root)
    # open pages show which lectures are away on a runner (the plugin serves this file)
    # and a lecture saved with a syntax error is served from an error-only draft trace, at the failing line
    drafts = DraftTraces(layout.work_dir / paths.DRAFT_TRACES_DIR)
    status = RetraceStatus(layout.work_dir / paths.RETRACE_STATUS_FILE, drafts, project_root)
    build(project_root, jobs=jobs, timeout=timeout, force=force, site=False, runner=runner, status=status)

    class Retrace(FileSystemEventHandler):
        """Re-trace once the editor has finished saving (events come in bursts, files half-written)."""

        def __init__(self) -> None:
            self._timer: threading.Timer | None = None
            self._lock = threading.Lock()

        def on_any_event(self, event: Any) -> None:
            # Only changes count: reading a lecture (as tracing does) raises opened/closed events.
            if event.event_type not in ("modified", "created", "moved", "deleted") or event.is_directory:
                return
            path = str(getattr(event, "dest_path", "") or event.src_path)
            if not path.lower().endswith(WATCHED_SUFFIXES):
                return
            with self._lock:
                if self._timer is not None:
                    self._timer.cancel()
                self._timer = threading.Timer(DEBOUNCE_SECONDS, self._retrace, args=(Path(path),))
                self._timer.daemon = True
                self._timer.start()

        def _retrace(self, changed: Path) -> None:
            print(f"chalktrace: {shown_path(changed, project_root)} changed; re-tracing stale lectures", file=sys.stderr)
            build(project_root, jobs=jobs, timeout=timeout, force=force, site=False, show=False, runner=runner, status=status)

    observer = Observer()
    if layout.edtrace:  # its root holds the lectures and helpers; of its folders, only images/ is the lectures'
        observer.schedule(Retrace(), str(project_root), recursive=False)
        if (project_root / "images").is_dir():
            observer.schedule(Retrace(), str(project_root / "images"), recursive=True)
    else:
        observer.schedule(Retrace(), str(layout.lectures_dir), recursive=True)
    observer.start()
    config, _site = mkdocs_config(layout)
    command = [sys.executable, "-m", "mkdocs", "serve", "--dev-addr", address, "-f", str(config)]
    child = subprocess.Popen(
        command,
        cwd=project_root,
        env=dict(
            os.environ,
            NO_MKDOCS_2_WARNING="1",
            **{paths.RETRACE_STATUS_ENV: str(status.path), paths.DRAFT_TRACES_ENV: str(drafts.directory)},
        ),
    )

    def stop_serving(signum: int, _frame: Any) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop_serving)
    try:
        return child.wait()
    except KeyboardInterrupt:
        return ExitCode.OK
    finally:
        if child.poll() is None:  # never leave the mkdocs server running behind us
            child.terminate()
            try:
                child.wait(10)
            except subprocess.TimeoutExpired:
                child.kill()
        observer.stop()
        observer.join()
        drafts.clear()  # a draft is for this server's pages only


def main(args: argparse.Namespace) -> int:
    root = course_root("serve", site=True)
    if root is None:
        return ExitCode.BAD_INPUT
    return serve(root, address=args.address, timeout=args.timeout, force=args.force, runner=args.runner)
