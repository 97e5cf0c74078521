"""Local network helpers for tests: a free port, fetching a page from a local server (None when it
does not answer), and waiting for a server process to answer."""

from __future__ import annotations


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def fetch(url: str) -> str | None:
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.read().decode("utf-8")
    except (urllib.error.URLError, OSError):
        return None


def wait_until_served(url: str, server, seconds: float) -> None:
    """Poll ``url`` until it answers 200; fail the test (with the server's stderr, when piped) if the
    ``server`` process exits first or ``seconds`` pass."""
    import time
    import urllib.request

    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                if response.status == 200:
                    return
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"serve did not come up: {server.stderr.read().decode() if server.stderr else ''}")
            time.sleep(0.5)
