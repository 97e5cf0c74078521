"""tracer/commands/lecture_room.py: the room's roles and limits, with real WebSocket clients over
127.0.0.1: only the presenter moves the room, notes reach presenters alone, other origins and hosts
are refused, and message size, message rate and the audience cap are enforced."""

from __future__ import annotations

import asyncio
import json

import pytest

pytest.importorskip("aiohttp")

from aiohttp import ClientSession, WSMsgType, WSServerHandshakeError  # noqa: E402

from helpers.room import connect, nothing_more, receive, receive_kind, running_room  # noqa: E402

NOTES = [[0, "<p>SECRET-NOTE-1</p>"], [3, "<p>SECRET-NOTE-2</p>"]]


def run(scenario):
    return asyncio.run(scenario)


def test_the_presenter_moves_every_audience_and_late_joiners_land_on_the_live_step(tmp_path):
    async def scenario():
        async with running_room(tmp_path) as (base, room), ClientSession() as session:
            presenter = await connect(session, base, presenter=True)
            hello = await receive(presenter)
            assert hello == {"t": "hello", "role": "presenter", "step": None, "link": f"{base}/lectures/demo/"}
            one, two = await connect(session, base), await connect(session, base)
            assert (await receive(one))["role"] == "audience" and (await receive(two))["step"] is None
            await presenter.send_str(json.dumps({"t": "step", "step": 7}))
            assert await receive_kind(one, "step") == {"t": "step", "step": 7}
            assert await receive_kind(two, "step") == {"t": "step", "step": 7}
            late = await connect(session, base)
            assert await receive(late) == {"t": "hello", "role": "audience", "step": 7}
            other = await connect(session, base, lecture="elsewhere")  # another lecture's page
            assert (await receive(other))["step"] is None
            await presenter.send_str(json.dumps({"t": "step", "step": 8}))
            assert (await receive_kind(late, "step"))["step"] == 8
            assert await nothing_more(other) == []
            assert room.audience == 4

    run(scenario())


def test_audience_messages_never_move_the_room(tmp_path):
    async def scenario():
        async with running_room(tmp_path) as (base, room), ClientSession() as session:
            presenter = await connect(session, base, presenter=True)
            await receive(presenter)
            student, watcher = await connect(session, base), await connect(session, base)
            await receive(student), await receive(watcher)
            for message in ({"t": "step", "step": 3}, {"t": "step", "step": 5, "role": "presenter"}, {"t": "notes"}):
                await student.send_str(json.dumps(message))
            await student.send_str("not json")
            assert await nothing_more(watcher) == [] and await nothing_more(presenter, skip=("audience", "notes")) == []
            assert room.steps == {}
            # a bad step from the presenter is ignored too
            for step in (-1, "4", True, 1.5, 10**9):
                await presenter.send_str(json.dumps({"t": "step", "step": step}))
            assert await nothing_more(watcher) == [] and room.steps == {}

    run(scenario())


def test_notes_go_to_presenters_only(tmp_path):
    async def scenario():
        async with running_room(tmp_path, notes=NOTES) as (base, _room), ClientSession() as session:
            student = await connect(session, base)
            presenter = await connect(session, base, presenter=True)
            assert (await receive(presenter))["role"] == "presenter"
            assert await receive_kind(presenter, "notes") == {"t": "notes", "notes": NOTES}
            await presenter.send_str(json.dumps({"t": "step", "step": 3}))
            seen = [await receive(student), await receive(student)]
            seen += await nothing_more(student, skip=())
            assert [m["t"] for m in seen] == ["hello", "step"]
            assert "SECRET-NOTE" not in json.dumps(seen)

    run(scenario())


def test_a_wrong_token_is_refused_and_gives_no_presenter_role(tmp_path):
    async def scenario():
        async with running_room(tmp_path) as (base, room), ClientSession() as session:
            async with session.get(f"{base}/__room/present/not-the-token", allow_redirects=False) as response:
                assert response.status == 403 and "Set-Cookie" not in response.headers
            async with session.get(f"{base}/__room/present/test-presenter-token-0123456789", allow_redirects=False) as response:
                assert response.status == 303 and response.headers["Location"] == "/lectures/demo/"
                cookie = response.headers["Set-Cookie"]
                assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
            session.cookie_jar.clear()
            forged = await session.ws_connect(
                f"{base}/__room/ws?lecture=demo", headers={"Origin": base, "Cookie": "chalktrace_presenter=guess"}
            )
            assert (await receive(forged))["role"] == "audience"
            await forged.send_str(json.dumps({"t": "step", "step": 2}))
            await asyncio.sleep(0.2)
            assert room.steps == {}

    run(scenario())


def test_other_origins_and_other_hosts_are_refused(tmp_path):
    async def scenario():
        async with running_room(tmp_path) as (base, room), ClientSession() as session:
            for origin in ("http://evil.example", "null", ""):
                with pytest.raises(WSServerHandshakeError) as refused:
                    await connect(session, base, presenter=True, origin=origin)
                assert refused.value.status == 403
            port = base.rsplit(":", 1)[1]
            async with session.get(f"{base}/lectures/demo/", headers={"Host": f"rebound.example:{port}"}) as response:
                assert response.status == 421  # DNS rebinding: a name this server was not started for
            assert room.audience == 0 and room.clients == {}

    run(scenario())


def test_an_oversized_message_closes_the_connection(tmp_path):
    async def scenario():
        async with running_room(tmp_path, max_message_bytes=1024) as (base, room), ClientSession() as session:
            presenter = await connect(session, base, presenter=True)
            await receive(presenter)
            await presenter.send_str(json.dumps({"t": "step", "step": 1, "pad": "x" * 2000}))
            closed = await receive_kind_or_close(presenter)
            assert closed == 1009  # message too big
            assert room.steps == {}

    run(scenario())


async def receive_kind_or_close(ws):
    while True:
        message = await ws.receive(timeout=5)
        if message.type in (WSMsgType.CLOSE, WSMsgType.CLOSED, WSMsgType.CLOSING):
            return ws.close_code
        if message.type == WSMsgType.ERROR:
            return ws.close_code


def test_a_flood_of_messages_closes_the_connection(tmp_path):
    async def scenario():
        async with running_room(tmp_path, messages_per_second=5, message_burst=10) as (base, room), ClientSession() as session:
            student = await connect(session, base)
            await receive(student)
            for _ in range(50):
                await student.send_str('{"t":"ping"}')
            assert await receive_kind_or_close(student) == 4008
            await asyncio.sleep(0.1)
            assert room.audience == 0
            calm = await connect(session, base)  # a client within the rate stays
            await receive(calm)
            for _ in range(8):
                await calm.send_str('{"t":"ping"}')
            assert await nothing_more(calm) == []

    run(scenario())


def test_the_audience_cap_gives_room_full_and_the_presenter_still_gets_in(tmp_path):
    async def scenario():
        async with running_room(tmp_path, max_audience=2) as (base, room), ClientSession() as session:
            first, second = await connect(session, base), await connect(session, base)
            await receive(first), await receive(second)
            third = await connect(session, base)
            assert await receive(third) == {"t": "full"}
            assert await receive_kind_or_close(third) == 4001
            async with session.get(f"{base}/lectures/demo/") as response:
                assert response.status == 503 and "The room is full" in await response.text()
            presenter = await connect(session, base, presenter=True)
            assert (await receive(presenter))["role"] == "presenter"
            async with session.get(
                f"{base}/lectures/demo/", headers={"Cookie": "chalktrace_presenter=test-presenter-token-0123456789"}
            ) as response:
                assert response.status == 200
            await first.close()
            await asyncio.sleep(0.1)
            assert room.audience == 1
            async with session.get(f"{base}/lectures/demo/") as response:
                assert response.status == 200  # a seat is free again
                assert '<meta name="chalktrace-room"' in await response.text()

    run(scenario())


@pytest.mark.parametrize(
    ("lang", "html_lang", "title", "followers"),
    [
        ("zh", "zh-Hans", "教室已满", "本讲已有 1 位听众，已达到讲师允许的上限。"),
        ("en", "en", "The room is full", "This lecture already has 1 follower, as many as the lecturer allowed."),
        ("fr", "en", "The room is full", "This lecture already has 1 follower"),  # no catalogue: English
    ],
)
def test_the_room_full_page_speaks_the_language_the_site_was_built_in(tmp_path, lang, html_lang, title, followers):
    async def scenario():
        async with running_room(tmp_path, max_audience=1, lang=lang) as (base, _room), ClientSession() as session:
            first = await connect(session, base)
            await receive(first)
            async with session.get(f"{base}/lectures/demo/") as response:
                page = await response.text()
            assert response.status == 503
            assert f'<html lang="{html_lang}">' in page and f"<title>{title} · chalktrace</title>" in page
            assert f"<h1>{title}</h1>" in page and followers in page
            assert "<code>chalktrace present --max-audience N</code>" in page
            if lang == "zh":
                assert "room" not in page.replace("chalktrace", "") and "follower" not in page

    run(scenario())


def test_only_the_built_site_is_served(tmp_path):
    async def scenario():
        async with running_room(tmp_path, notes=NOTES) as (base, _room), ClientSession() as session:
            for path in ("/../notes/demo.json", "/%2e%2e/notes/demo.json", "/lectures/../../notes/demo.json"):
                async with session.get(base + path) as response:
                    assert response.status == 404 and "SECRET" not in await response.text()
            async with session.get(f"{base}/lectures/demo/data.js") as response:
                assert response.status == 200 and response.headers["Referrer-Policy"] == "no-referrer"
            async with session.get(f"{base}/lectures/demo") as response:  # followed to the folder's page
                assert response.status == 200 and str(response.url).endswith("/lectures/demo/")

    run(scenario())
