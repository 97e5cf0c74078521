"""A lecture room (``tracer.commands.lecture_room``) running on 127.0.0.1 for a test: a tiny built site
and notes folder, the room's app on a free port, and WebSocket clients that speak for a browser
(an Origin header; the presenter's cookie when asked)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from helpers.network import free_port

TOKEN = "test-presenter-token-0123456789"


def tiny_site(root: Path, notes: list[list[Any]] | None = None, lang: str | None = None) -> tuple[Path, Path]:
    """``root/site`` with a home page and lecture ``demo``'s page; ``root/notes/demo.json``. ``lang``:
    the home page's ``<html lang>``, as Material writes the course's ``theme.language`` (none without it)."""
    site, notes_dir = root / "site", root / "notes"
    (site / "lectures" / "demo").mkdir(parents=True)
    notes_dir.mkdir()
    page = "<!doctype html><html><head><title>{}</title></head><body>{}</body></html>"
    home = page.replace("<html>", f'<html lang="{lang}" class="no-js">') if lang else page
    (site / "index.html").write_text(home.format("home", "home"), encoding="utf-8")
    (site / "lectures" / "demo" / "index.html").write_text(page.format("demo", "demo"), encoding="utf-8")
    (site / "lectures" / "demo" / "data.js").write_text("window.CHALKTRACE_DATA = {};\n", encoding="utf-8")
    (notes_dir / "demo.json").write_text(json.dumps({"version": 1, "lecture": "demo", "notes": notes or []}), encoding="utf-8")
    return site, notes_dir


@contextlib.asynccontextmanager
async def running_room(root: Path, **settings: Any) -> AsyncIterator[tuple[str, Any]]:
    """Start a room over ``tiny_site(root)`` (``notes`` and ``lang`` go to it); yields (base URL, the Room object)."""
    from aiohttp import web

    from tracer.commands.lecture_room import ROOM, RoomSettings, room_app

    site, notes_dir = tiny_site(root, settings.pop("notes", None), settings.pop("lang", None))
    port = free_port()
    app = room_app(
        RoomSettings(
            site_dir=site,
            notes_dir=notes_dir,
            presenter_token=TOKEN,
            hosts=frozenset({f"127.0.0.1:{port}", f"localhost:{port}"}),
            audience_url=f"http://127.0.0.1:{port}/lectures/demo/",
            start_path="/lectures/demo/",
            **settings,
        )
    )
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        yield f"http://127.0.0.1:{port}", app[ROOM]
    finally:
        await runner.cleanup()


async def connect(session: Any, base: str, *, presenter: bool = False, origin: str | None = None, lecture: str = "demo") -> Any:
    """A WebSocket to the room as a browser page of ``base`` opens it (``origin``: another page's)."""
    headers = {"Origin": origin if origin is not None else base}
    if presenter:
        headers["Cookie"] = f"chalktrace_presenter={TOKEN}"
    return await session.ws_connect(f"{base}/__room/ws?lecture={lecture}", headers=headers, autoping=True)


async def receive(ws: Any, timeout: float = 5.0) -> dict[str, Any]:
    """The next JSON message (skipping none); fails on close or after ``timeout`` seconds."""
    from aiohttp import WSMsgType

    message = await ws.receive(timeout=timeout)
    assert message.type == WSMsgType.TEXT, (message.type, message.data, message.extra)
    return json.loads(message.data)


async def receive_kind(ws: Any, kind: str, timeout: float = 5.0) -> dict[str, Any]:
    """The next message of kind ``kind`` ({"t": kind}), skipping others (audience counts)."""
    while True:
        message = await receive(ws, timeout)
        if message["t"] == kind:
            return message


async def nothing_more(ws: Any, seconds: float = 0.3, skip: tuple[str, ...] = ("audience",)) -> list[dict[str, Any]]:
    """The messages ``ws`` gets within ``seconds``, other than ``skip``'s kinds (expected: none)."""
    import asyncio

    from aiohttp import WSMsgType

    got = []
    try:
        while True:
            message = await ws.receive(timeout=seconds)
            if message.type != WSMsgType.TEXT:
                return got + [{"closed": message.type.name}]
            data = json.loads(message.data)
            if data["t"] not in skip:
                got.append(data)
    except asyncio.TimeoutError:
        return got
