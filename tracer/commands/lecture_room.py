"""The lecture room of ``chalktrace present``: an aiohttp server for the built site and one WebSocket room.

``room_app(settings)`` builds the app. It serves the files under the built site (never the notes
beside it), marking every HTML page with ``<meta name="chalktrace-room">`` so the viewer's follow
controller (``assets/viewer-follow.js``) joins the room. The room is one WebSocket endpoint,
``/__room/ws?lecture=NAME``, speaking JSON messages ``{"t": ...}``:

- server to client: ``hello`` {role, step (the lecture's live step or null), link (the audience
  link; presenters only)}, ``step``
  {step}, ``audience`` {audience: how many follow; presenters only}, ``notes`` {notes: [[step, html]]}
  (presenters only, read from the notes file the build wrote beside the site), ``full``;
- client to server: ``step`` {step} (obeyed from a presenter only), ``ping``.

Roles are the server's: a connection is the presenter's only when it carries the presenter cookie,
which ``/__room/present/TOKEN`` sets for the token ``present`` made with ``secrets``. A connection
whose Origin is not this server, or whose Host is not one this server was started for, is refused
(DNS rebinding too). Each client has a message size limit, a token bucket for its message rate, and
a bounded send buffer (a client that lets it fill is dropped; it reconnects and catches up); the
number of audience connections has a cap, and a page asked for over it is the "room full" page, in
the language the site was built in (its home page's ``<html lang>``).
This module must not build the site, parse command lines or print: ``commands/present.py`` does.
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from tracer.site.cards.interface_strings import ENGLISH, language_of, load
from tracer.site.cards.templates import template_env

ROOM_PATH = "/__room"
COOKIE = "chalktrace_presenter"
ROOM_META = b'<meta name="chalktrace-room" content="' + ROOM_PATH.encode() + b'/ws">'
CLOSE_ROOM_FULL = 4001  # WebSocket close codes 4000-4999 are the application's own
CLOSE_TOO_MANY = 4008
CLOSE_TOO_SLOW = 4009
HTML_LANG = re.compile(r"<html\b[^>]*\blang=\"([A-Za-z0-9-]+)\"")
MAX_STEP = 10_000_000  # a step index beyond any trace's (traces stop at max_steps)


@dataclass
class RoomSettings:
    site_dir: Path
    notes_dir: Path
    presenter_token: str
    hosts: frozenset[str]  # the Host headers (host:port) this server answers: its own addresses only
    audience_url: str
    start_path: str = "/"  # where the presenter link lands
    max_audience: int = 1000
    max_message_bytes: int = 1024
    messages_per_second: float = 20.0  # refill of each client's token bucket
    message_burst: float = 40.0  # the bucket's size
    # A client whose unsent bytes pass this is dropped (it reconnects and catches up). Below asyncio's
    # 64 KiB high-water mark, so a send never waits on a client that stopped reading, and one slow
    # phone never holds up the room's broadcast.
    send_buffer_bytes: int = 32 * 1024
    heartbeat_seconds: float = 20.0


class Client:
    """One WebSocket connection: its role, its lecture, its rate bucket. Small and fixed in size."""

    __slots__ = ("ws", "presenter", "lecture", "tokens", "refilled", "transport")

    def __init__(self, ws: web.WebSocketResponse, presenter: bool, lecture: str, burst: float, transport: Any) -> None:
        self.ws = ws
        self.presenter = presenter
        self.lecture = lecture
        self.tokens = burst
        self.refilled = time.monotonic()
        self.transport = transport

    def allow(self, per_second: float, burst: float) -> bool:
        """Take one token from the bucket; False when it is empty (the client sends too fast)."""
        now = time.monotonic()
        self.tokens = min(burst, self.tokens + (now - self.refilled) * per_second)
        self.refilled = now
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True


@dataclass
class Room:
    settings: RoomSettings
    steps: dict[str, int] = field(default_factory=dict)  # lecture -> the presenter's live step
    clients: dict[str, set[Client]] = field(default_factory=dict)  # lecture -> its connections
    audience: int = 0  # audience connections, all lectures

    def is_presenter(self, request: web.Request) -> bool:
        given = request.cookies.get(COOKIE, "")
        return bool(given) and secrets.compare_digest(given, self.settings.presenter_token)

    def full(self) -> bool:
        return self.audience >= self.settings.max_audience

    async def broadcast(self, lecture: str, text: str, *, presenters_only: bool = False, skip: Client | None = None) -> None:
        """Send ``text`` to the lecture's clients; a client whose send buffer is full is dropped instead."""
        sends: list[Any] = []
        for client in list(self.clients.get(lecture, ())):
            if client is skip or (presenters_only and not client.presenter) or client.ws.closed:
                continue
            buffered = client.transport.get_write_buffer_size() if client.transport is not None else 0
            if buffered > self.settings.send_buffer_bytes:
                sends.append(client.ws.close(code=CLOSE_TOO_SLOW, message=b"too slow"))
                continue
            sends.append(client.ws.send_str(text))
        if sends:
            await asyncio.gather(*sends, return_exceptions=True)

    async def tell_presenters(self) -> None:
        text = json.dumps({"t": "audience", "audience": self.audience})
        await asyncio.gather(*(self.broadcast(lecture, text, presenters_only=True) for lecture in list(self.clients)))


ROOM = web.AppKey("room", Room)
FULL_PAGE = web.AppKey("full_page", bytes)


def _lecture_name(text: str) -> str | None:
    """A lecture name as the site's URLs hold it (``NAME`` or ``NAME/gpu``), else None."""
    if not text or len(text) > 200 or text.startswith("/") or ".." in text:
        return None
    return text if all(c.isalnum() or c in "_-./" for c in text) else None


def _notes(settings: RoomSettings, lecture: str) -> list[Any]:
    path = settings.notes_dir / f"{lecture}.json"
    try:
        return list(json.loads(path.read_text(encoding="utf-8")).get("notes", []))
    except (OSError, ValueError):
        return []


async def _room_socket(request: web.Request) -> web.StreamResponse:
    room: Room = request.app[ROOM]
    settings = room.settings
    origin = request.headers.get("Origin", "")
    if origin != f"{request.scheme}://{request.host}":
        raise web.HTTPForbidden(text="chalktrace present: connections from another origin are refused\n")
    lecture = _lecture_name(request.query.get("lecture", ""))
    if lecture is None:
        raise web.HTTPBadRequest(text="chalktrace present: ?lecture=NAME is missing or not a lecture name\n")
    presenter = room.is_presenter(request)
    ws = web.WebSocketResponse(
        max_msg_size=settings.max_message_bytes, compress=False, heartbeat=settings.heartbeat_seconds, writer_limit=16 * 1024
    )
    await ws.prepare(request)
    if not presenter and room.full():
        await ws.send_str(json.dumps({"t": "full"}))
        await ws.close(code=CLOSE_ROOM_FULL, message=b"room full")
        return ws
    client = Client(ws, presenter, lecture, settings.message_burst, request.transport)
    room.clients.setdefault(lecture, set()).add(client)
    if not presenter:
        room.audience += 1
    try:
        hello: dict[str, Any] = {"t": "hello", "role": "presenter" if presenter else "audience", "step": room.steps.get(lecture)}
        if presenter:
            hello["link"] = settings.audience_url  # for the presenter's room panel
        await ws.send_str(json.dumps(hello))
        if presenter:
            await ws.send_str(json.dumps({"t": "notes", "notes": _notes(settings, lecture)}))
        await room.tell_presenters()
        async for message in ws:
            if message.type != WSMsgType.TEXT:
                break  # binary frames are not part of the protocol; errors end the connection
            if not client.allow(settings.messages_per_second, settings.message_burst):
                await ws.close(code=CLOSE_TOO_MANY, message=b"too many messages")
                break
            await _obey(room, client, message.data)
    finally:
        room.clients.get(lecture, set()).discard(client)
        if not room.clients.get(lecture):
            room.clients.pop(lecture, None)
        if not presenter:
            room.audience -= 1
            await room.tell_presenters()
    return ws


async def _obey(room: Room, client: Client, text: str) -> None:
    """A client's message: a presenter's ``step`` moves the room; anything else changes nothing."""
    try:
        message = json.loads(text)
    except ValueError:
        return
    if not (client.presenter and isinstance(message, dict) and message.get("t") == "step"):
        return  # the audience cannot move the room; pings need no answer
    step = message.get("step")
    if not isinstance(step, int) or isinstance(step, bool) or not 0 <= step < MAX_STEP:
        return
    if room.steps.get(client.lecture) == step:
        return
    room.steps[client.lecture] = step
    await room.broadcast(client.lecture, json.dumps({"t": "step", "step": step}), skip=client)


async def _present_link(request: web.Request) -> web.StreamResponse:
    room: Room = request.app[ROOM]
    if not secrets.compare_digest(request.match_info["token"], room.settings.presenter_token):
        raise web.HTTPForbidden(text="chalktrace present: this presenter link is not valid (the server prints the link)\n")
    response = web.HTTPSeeOther(room.settings.start_path)
    response.set_cookie(COOKIE, room.settings.presenter_token, httponly=True, samesite="Strict", path="/")
    raise response


async def _qr_svg(request: web.Request) -> web.StreamResponse:
    import segno

    room: Room = request.app[ROOM]
    out = io.BytesIO()
    segno.make(room.settings.audience_url, error="m").save(
        out, kind="svg", scale=8, border=4, title=f"QR code: {room.settings.audience_url}"
    )
    return web.Response(body=out.getvalue(), content_type="image/svg+xml", headers={"Cache-Control": "no-store"})


def site_language(site_dir: Path) -> str:
    """The interface catalogue of the built site: its home page's ``<html lang>`` (Material writes
    ``theme.language`` there), English when there is none or no catalogue for it."""
    try:
        head = (site_dir / "index.html").read_text(encoding="utf-8", errors="replace")[:2000]
    except OSError:
        return ENGLISH
    found = HTML_LANG.search(head)
    return language_of(found.group(1))[0] if found else ENGLISH


def _full_page(settings: RoomSettings) -> bytes:
    """The "room is full" page, in the course's language (read from the built site)."""
    env = template_env(strings=load(site_language(settings.site_dir)))
    return env.get_template("room_full.html.j2").render(max_audience=settings.max_audience).encode()


async def _site_file(request: web.Request) -> web.StreamResponse:
    """A file of the built site; an HTML page marked for the room (and over the cap: the room full page)."""
    room: Room = request.app[ROOM]
    site = room.settings.site_dir
    target = (site / request.match_info["path"].lstrip("/")).resolve()
    if not target.is_relative_to(site):
        raise web.HTTPNotFound()
    if target.is_dir():
        if not request.path.endswith("/"):
            raise web.HTTPMovedPermanently(request.path + "/")
        target = target / "index.html"
    if not target.is_file():
        raise web.HTTPNotFound()
    if target.suffix != ".html":
        return web.FileResponse(target)
    if room.full() and not room.is_presenter(request):
        return web.Response(body=request.app[FULL_PAGE], status=503, content_type="text/html", headers={"Retry-After": "30"})
    page = target.read_bytes()
    at = page.find(b"<head>")
    if at >= 0:
        page = page[: at + 6] + ROOM_META + page[at + 6 :]
    return web.Response(body=page, content_type="text/html", charset="utf-8", headers={"Cache-Control": "no-store"})


@web.middleware
async def _guard(request: web.Request, handler: Any) -> web.StreamResponse:
    """Only this server's own Host names (DNS rebinding); no referrer leaves a page."""
    if request.host not in request.app[ROOM].settings.hosts:
        raise web.HTTPMisdirectedRequest(text="chalktrace present: unknown host\n")
    response: web.StreamResponse = await handler(request)
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


def room_app(settings: RoomSettings) -> web.Application:
    settings.site_dir = settings.site_dir.resolve()
    app = web.Application(middlewares=[_guard], client_max_size=settings.max_message_bytes)
    app[ROOM] = Room(settings)
    app[FULL_PAGE] = _full_page(settings)
    app.router.add_get(ROOM_PATH + "/ws", _room_socket)
    app.router.add_get(ROOM_PATH + "/present/{token}", _present_link)
    app.router.add_get(ROOM_PATH + "/qr.svg", _qr_svg)
    app.router.add_get("/{path:.*}", _site_file)

    async def close_sockets(app: web.Application) -> None:
        for clients in list(app[ROOM].clients.values()):
            for client in list(clients):
                await client.ws.close(code=1001, message=b"server shutting down")

    app.on_shutdown.append(close_sockets)
    return app
