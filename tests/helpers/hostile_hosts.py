"""A local HTTP host that answers image URLs with what a hostile or broken host might: a page, a
script-laden SVG, a lie about the content type, or a file dripped a byte at a time."""

from __future__ import annotations

import contextlib
import http.server
import threading
import time
from typing import Iterator

PNG = b"\x89PNG\r\n\x1a\n" + b"\0\0\0\rIHDR" + b"\0" * 40
SCRIPTED_SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" onload="alert(1)">'
    b"<script>alert(2)</script><rect width='4' height='4' onclick='alert(3)'/>"
    b'<a xlink:href="javascript:alert(4)"><circle r="2"/></a><image href="https://tracker.example/p.png"/>'
    b'<set attributeName="href" to="javascript:alert(5)"/><foreignObject><p>x</p></foreignObject></svg>'
)
PAGE = b"<!doctype html><html><body><script>alert(document.cookie)</script></body></html>"
# path -> (content type, body)
ANSWERS = {
    "/plain.png": ("image/png", PNG),
    "/page.png": ("text/html", PAGE),
    "/lying.png": ("image/png", PAGE),
    "/scripted.svg": ("image/svg+xml", SCRIPTED_SVG),
    "/entity.svg": ("image/svg+xml", b'<!DOCTYPE svg [<!ENTITY a "aaaa">]><svg xmlns="http://www.w3.org/2000/svg">&a;</svg>'),
    "/png-as-video.webm": ("video/webm", PNG),
}
DRIP_NBYTES = 10_000
DRIP_PAUSE_SECONDS = 0.05


def _handler(requests: list[str]) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the base class's name)
            pass

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            requests.append(self.path)
            path = "/" + self.path.split("/", 2)[-1]  # fetch_via sends /HOST/PATH
            if path == "/drip.png":  # a PNG that takes minutes: a byte every DRIP_PAUSE_SECONDS
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(DRIP_NBYTES))
                self.end_headers()
                with contextlib.suppress(OSError):
                    for k in range(DRIP_NBYTES):
                        self.wfile.write(PNG[k : k + 1] or b"\0")
                        self.wfile.flush()
                        time.sleep(DRIP_PAUSE_SECONDS)
                return
            if path not in ANSWERS:
                self.send_error(404)
                return
            kind, body = ANSWERS[path]
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


@contextlib.contextmanager
def hostile_host() -> Iterator[str]:
    """The host's base URL (for ``CHALKTRACE_FETCH_VIA`` / ``Remote.fetch_via``), served until the block ends."""
    requests: list[str] = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(requests))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
