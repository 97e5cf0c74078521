"""``chalktrace present [LECTURE]``: the lecture room, live on the lecturer's machine.

It builds the site first when a trace or the site is stale, makes a presenter token with
``secrets``, starts the room (``commands/lecture_room.py``) on localhost (on every interface with
``--lan``), and prints two links: the presenter's (it carries the token) and the audience's, with the
audience link's QR code drawn in the terminal (``segno``). It serves until Ctrl-C or SIGTERM and
leaves nothing running behind it. This module must not decide what the room allows
(``lecture_room.py`` does) or parse its command line (``cli.py`` does).
"""

from __future__ import annotations

import argparse
import asyncio
import io
import secrets
import signal
import socket
import sys
from pathlib import Path

from tracer.contract.paths import shown_path
from tracer.commands.build import build, plan_build
from tracer.commands.course import course_root
from tracer.commands.freshness import course_lectures
from tracer.commands.site_config import mkdocs_config
from tracer.contract.course_layout import CourseLayout, quiet_layout_of
from tracer.contract import paths
from tracer.exit_codes import ExitCode


def notes_dir(layout: CourseLayout) -> Path:
    """Where the site build wrote the speaker notes: beside the site, in the course's work folder."""
    return layout.work_dir / "notes"


def site_is_stale(layout: CourseLayout, config: Path, site_dir: Path) -> bool:
    """Whether the built site is older than what it is built from (the traces, the docs, the MkDocs
    configuration, this chalktrace's templates and viewer), or misses its notes."""
    built = site_dir / "index.html"
    if not built.is_file() or not notes_dir(layout).is_dir():
        return True
    stamp = built.stat().st_mtime
    inputs = [config, layout.traces_dir, layout.root / paths.DOCS_DIR, paths.ASSETS_DIR, paths.TEMPLATES_DIR]
    for path in inputs:
        files = [path] if path.is_file() else (p for p in path.rglob("*") if p.is_file())
        if any(p.stat().st_mtime > stamp for p in files):
            return True
    return False


def lan_address() -> str:
    """This machine's address on its network (the one a route out would use); no packet is sent."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))  # UDP connect only picks a route
            return str(probe.getsockname()[0])
        except OSError:
            return "127.0.0.1"


def port_in_use(host: str, port: int) -> str | None:
    """Why the room cannot listen on ``host:port``, in a few words, or None when it can."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds
        try:
            probe.bind((host, port))
        except OSError as exc:
            return exc.strerror or str(exc)
    return None


def terminal_qr(url: str) -> str:
    import segno

    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue()


def lecture_path(layout: CourseLayout, name: str | None) -> str | None:
    """The site path of lecture ``name`` (``/lectures/NAME/``), ``/`` without one; None when there is no such lecture."""
    if name is None:
        return "/"
    stem = Path(name).stem if name.endswith(".py") else name
    if not any(p.stem == stem for p in course_lectures(layout)):
        return None
    return "/" + paths.lecture_url(stem)


async def _serve(settings: object, host: str, port: int, ready: str) -> None:
    from aiohttp import web

    from tracer.commands.lecture_room import RoomSettings, room_app

    assert isinstance(settings, RoomSettings)
    runner = web.AppRunner(room_app(settings), access_log=None, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    print(ready, flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    try:
        await stop.wait()
    finally:
        await runner.cleanup()


def present(
    project_root: Path, lecture: str | None, *, port: int, lan: bool, max_audience: int, timeout: float, force: bool
) -> int:
    from tracer.commands.lecture_room import ROOM_PATH, RoomSettings

    layout = quiet_layout_of(project_root)
    start = lecture_path(layout, lecture)
    if start is None:
        print(f"chalktrace present: no lecture {lecture!r} in {shown_path(layout.lectures_dir, project_root)}/", file=sys.stderr)
        return ExitCode.BAD_INPUT
    bind = "0.0.0.0" if lan else "127.0.0.1"
    busy = port_in_use(bind, port)
    if busy:
        print(
            f"chalktrace present: port {port} is in use ({busy}): is another server running there? "
            f"Stop it, or pass another port: --port {port + 1}",
            file=sys.stderr,
        )
        return ExitCode.BAD_INPUT
    todo = plan_build(project_root, course_lectures(layout), force=force)[0]
    config, site_dir = mkdocs_config(layout)
    if todo or site_is_stale(layout, config, site_dir):
        code = build(project_root, jobs=1, timeout=timeout, force=force, site=True)
        if code:
            print("chalktrace present: the site did not build; nothing is served", file=sys.stderr)
            return code
    token = secrets.token_urlsafe(18)
    shown_host = lan_address() if lan else "127.0.0.1"
    hosts = {f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", f"{shown_host}:{port}"}
    audience_url = f"http://{shown_host}:{port}{start}"
    presenter_url = f"http://127.0.0.1:{port}{ROOM_PATH}/present/{token}"
    settings = RoomSettings(
        site_dir=site_dir,
        notes_dir=notes_dir(layout),
        presenter_token=token,
        hosts=frozenset(hosts),
        audience_url=audience_url,
        start_path=start,
        max_audience=max_audience,
    )
    where = "on your network" if lan else "on this machine only (--lan lets phones and laptops in the room join)"
    ready = (
        f"chalktrace present: serving {shown_path(site_dir, project_root)}/ {where}\n\n"
        f"  presenter (keep it to yourself: it moves the room and shows your notes):\n    {presenter_url}\n\n"
        f"  audience:\n    {audience_url}\n\n{terminal_qr(audience_url)}\nCtrl-C stops the room."
    )
    try:
        asyncio.run(_serve(settings, bind, port, ready))
    except KeyboardInterrupt:
        pass
    return ExitCode.OK


def main(args: argparse.Namespace) -> int:
    root = course_root("present", site=True)
    if root is None:
        return ExitCode.BAD_INPUT
    return present(
        root,
        args.lecture,
        port=args.port,
        lan=args.lan,
        max_audience=args.max_audience,
        timeout=args.timeout,
        force=args.force,
    )
