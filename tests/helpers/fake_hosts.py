"""A local HTTP server standing in for arXiv's API and for image and video hosts (tests never touch the network).

``hosts()`` serves on 127.0.0.1 (a free port, in a thread) and yields a ``Hosts`` whose ``url`` is
what ``CHALKTRACE_FETCH_VIA`` takes: a fetch of ``https://HOST/PATH`` arrives as ``/HOST/PATH``.
``/export.arxiv.org/api/query?id_list=ID,ID`` answers an Atom feed built from ``PAPERS`` (made-up
papers with ids no real paper has, and any ``9903.NNNNN``), ``/images.example.org/figures/poster.png`` is a file larger than
the fixture course's ``max_media_bytes``, ``/busy.example.org/...`` answers 503 twice before the
file, ``/busy-arxiv.example.org/api/query`` is arXiv's API answering 503 (Retry-After: 7) once, and any other path is a file under ``tests/hosted/HOST/``.
Every request's path is kept in ``Hosts.requests``.
"""

from __future__ import annotations

import contextlib
import http.server
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator
from urllib.parse import parse_qs, urlsplit
from xml.sax.saxutils import escape

HOSTED = Path(__file__).resolve().parents[1] / "hosted"
POSTER_NBYTES = 400_000  # over the fixture course's 300,000-byte limit

PAPERS = {
    "9901.00001": {
        "title": "Stepping Through\n  Lectures Like a Debugger",
        "authors": ["Ada Example", "Grace Placeholder", "Alan Sample"],
        "published": "2099-01-05T18:00:00Z",
        "summary": "We step through lectures one line at a time.",
    },
    "9901.00002": {
        "title": "Tracing Without Tears",
        "authors": ["Edsger Fictional"],
        "published": "2099-01-20T09:30:00Z",
        "summary": "A tracer that records values on demand.",
    },
    "9902.00003": {
        "title": "Sites That Read Like Documents",
        "authors": ["Barbara Madeup", "Ken Invented"],
        "published": "2099-02-11T12:00:00Z",
        "summary": "Read mode and step mode from one trace.",
    },
}


MADE_UP_PREFIX = "9903."  # any id 9903.NNNNN is a made-up paper too (made_up_paper): courses cite many


def made_up_paper(paper: str) -> dict | None:
    """``PAPERS[paper]``, or for an id ``9903.NNNNN`` a made-up paper numbered NNNNN; None otherwise."""
    if paper in PAPERS:
        return PAPERS[paper]
    if paper.startswith(MADE_UP_PREFIX) and paper[len(MADE_UP_PREFIX) :].isdigit():
        number = int(paper[len(MADE_UP_PREFIX) :])
        return {
            "title": f"Made-up Paper Number {number}",
            "authors": ["Nora Madeup", f"Co Author{number}"],
            "published": f"2099-03-{1 + number % 28:02d}T10:00:00Z",
            "summary": f"The abstract of made-up paper {number}.",
        }
    return None


def atom_feed(ids: str) -> bytes:
    """arXiv's answer for ``id_list`` (ids separated by commas): one entry per known paper."""
    entries = ""
    for paper in [i for i in ids.split(",") if i]:
        found = made_up_paper(paper)
        if found is None:
            continue
        authors = "".join(f"<author><name>{escape(name)}</name></author>" for name in found["authors"])
        entries += (
            f"<entry><id>http://arxiv.org/abs/{paper}v1</id><published>{found['published']}</published>"
            f"<title>{escape(found['title'])}</title><summary>{escape(found['summary'])}</summary>{authors}</entry>"
        )
    return (
        '<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom">'
        f"<title>arXiv Query</title>{entries}</feed>"
    ).encode()


@dataclass
class Hosts:
    url: str
    requests: list[str] = field(default_factory=list)


def _handler(hosts: Hosts) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the base class's name)
            pass

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            hosts.requests.append(self.path)
            parts = urlsplit(self.path)
            if parts.path == "/export.arxiv.org/api/query":
                paper = parse_qs(parts.query).get("id_list", [""])[0]
                return self._send(atom_feed(paper), "application/atom+xml")
            if parts.path == "/busy-arxiv.example.org/api/query":  # busy once, asking for a 7 s pause
                if sum(p.startswith("/busy-arxiv.example.org/") for p in hosts.requests) == 1:
                    self.send_response(503)
                    self.send_header("Retry-After", "7")
                    self.end_headers()
                    return None
                return self._send(atom_feed(parse_qs(parts.query).get("id_list", [""])[0]), "application/atom+xml")
            if parts.path.startswith("/busy.example.org/"):  # busy twice, then the file (as arXiv when asked too fast)
                if sum(p == self.path for p in hosts.requests) <= 2:
                    self.send_response(503)
                    self.send_header("Retry-After", "0")
                    self.end_headers()
                    return None
                return self._send(b"finally", "text/plain")
            if parts.path == "/images.example.org/figures/poster.png":
                return self._send(b"\x89PNG" + b"\0" * (POSTER_NBYTES - 4), "image/png")
            path = (HOSTED / parts.path.lstrip("/")).resolve()
            if not path.is_relative_to(HOSTED) or not path.is_file():
                self.send_error(404)
                return
            kind = {".png": "image/png", ".webm": "video/webm", ".svg": "image/svg+xml"}.get(
                path.suffix, "application/octet-stream"
            )
            self._send(path.read_bytes(), kind)

        def _send(self, body: bytes, content_type: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


@contextlib.contextmanager
def hosts() -> Iterator[Hosts]:
    """The stand-in hosts, served until the block ends."""
    found = Hosts(url="")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(found))
    found.url = f"http://127.0.0.1:{server.server_port}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield found
    finally:
        server.shutdown()
        server.server_close()
