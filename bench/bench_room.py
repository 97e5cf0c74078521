"""The lecture room under a full hall: 500 real WebSocket audience clients in one process, one presenter.

Starts the room of ``chalktrace present`` (``tracer.commands.lecture_room``) in a child process over
a tiny built site, connects ``--clients`` audience WebSockets to it from this process (aiohttp's
client, each with the Origin header a browser sends), then has the presenter move ``--steps``
times, ``--every`` seconds apart. For every step it records, for every client, the time from the
presenter's send to that client's receipt (both clocks are this process's), and prints p50, p99 and
the worst delivery, the server's RSS before and after the clients joined, and the RSS per client.
Target: every step delivered to all clients within 1 s at p99.

    .venv/bin/python bench/bench_room.py [--clients 500] [--steps 30] [--every 0.5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOKEN = "bench-presenter-token"
SERVER = """
import asyncio, sys
from pathlib import Path
from aiohttp import web
from tracer.commands.lecture_room import RoomSettings, room_app

site, notes, port, cap = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])

async def main():
    settings = RoomSettings(site_dir=site, notes_dir=notes, presenter_token=%r,
                            hosts=frozenset({f"127.0.0.1:{port}"}), audience_url=f"http://127.0.0.1:{port}/",
                            max_audience=cap)
    runner = web.AppRunner(room_app(settings), access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port, backlog=1024).start()
    print("ready", flush=True)
    await asyncio.Event().wait()

asyncio.run(main())
""" % (TOKEN,)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def bench(base: str, clients: int, steps: int, every: float, server_pid: int) -> None:
    from aiohttp import ClientSession, TCPConnector, WSMsgType

    sent: dict[int, float] = {}
    delays: list[float] = []
    per_step: dict[int, list[float]] = {}
    url = f"{base}/__room/ws?lecture=demo"

    async def audience(session: ClientSession, ready: asyncio.Event, joined: list[int]) -> None:
        ws = await session.ws_connect(url, headers={"Origin": base}, autoping=True)
        hello = json.loads((await ws.receive()).data)
        assert hello["t"] == "hello" and hello["role"] == "audience", hello
        joined.append(1)
        if len(joined) == clients:
            ready.set()
        async for message in ws:
            if message.type != WSMsgType.TEXT:
                break
            data = json.loads(message.data)
            if data.get("t") == "step":
                arrived = time.perf_counter()
                delay = arrived - sent[data["step"]]
                delays.append(delay)
                per_step.setdefault(data["step"], []).append(delay)

    rss_before = rss_bytes(server_pid)
    connector = TCPConnector(limit=0)
    async with ClientSession(connector=connector) as session:
        ready, joined = asyncio.Event(), []
        started = time.perf_counter()
        tasks = [asyncio.create_task(audience(session, ready, joined)) for _ in range(clients)]
        await asyncio.wait_for(ready.wait(), timeout=120)
        join_seconds = time.perf_counter() - started
        await asyncio.sleep(1.0)  # let the server settle before measuring
        rss_after = rss_bytes(server_pid)
        presenter = await session.ws_connect(url, headers={"Origin": base, "Cookie": f"chalktrace_presenter={TOKEN}"})
        for step in range(1, steps + 1):
            sent[step] = time.perf_counter()
            await presenter.send_str(json.dumps({"t": "step", "step": step}))
            await asyncio.sleep(every)
        await asyncio.sleep(1.0)
        rss_end = rss_bytes(server_pid)
        await presenter.close()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    expected = clients * steps
    worst_steps = sorted(max(v) for v in per_step.values())
    print(f"clients {clients}, steps {steps} every {every:g} s; all joined in {join_seconds:.2f} s")
    print(f"deliveries: {len(delays)} of {expected}" + ("" if len(delays) == expected else "  (MISSING)"))
    print(
        f"delivery  p50 {1000 * percentile(delays, 0.50):.1f} ms   p99 {1000 * percentile(delays, 0.99):.1f} ms   "
        f"worst {1000 * max(delays):.1f} ms   (target: p99 <= 1000 ms)"
    )
    print(f"a step's last client: median {1000 * percentile(worst_steps, 0.5):.1f} ms, worst {1000 * worst_steps[-1]:.1f} ms")
    print(
        f"server RSS  before {rss_before / 2**20:.1f} MiB   with {clients} clients {rss_after / 2**20:.1f} MiB   "
        f"after the steps {rss_end / 2**20:.1f} MiB   per client {(rss_after - rss_before) / clients / 1024:.1f} KiB"
    )
    print("p99 within 1 s:", "yes" if percentile(delays, 0.99) <= 1.0 and len(delays) == expected else "NO")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=500)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--every", type=float, default=0.5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-room-") as tmp:
        site, notes = Path(tmp) / "site", Path(tmp) / "notes"
        (site / "lectures" / "demo").mkdir(parents=True)
        notes.mkdir()
        (site / "index.html").write_text("<html><head></head><body>bench</body></html>", encoding="utf-8")
        port = free_port()
        server = subprocess.Popen(
            [sys.executable, "-c", SERVER, str(site), str(notes), str(port), str(args.clients + 10)],
            stdout=subprocess.PIPE,
            text=True,
            env=dict(os.environ),
        )
        try:
            assert server.stdout is not None and server.stdout.readline().strip() == "ready"
            asyncio.run(bench(f"http://127.0.0.1:{port}", args.clients, args.steps, args.every, server.pid))
        finally:
            server.terminate()
            server.wait(10)


if __name__ == "__main__":
    main()
