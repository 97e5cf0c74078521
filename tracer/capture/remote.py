"""What a traced run may fetch from the network, and the course cache that keeps what it fetched.

A lecture's ``url_reference("https://arxiv.org/abs/...")``, ``link(arxiv_url)``, ``image(url)`` and
``video(url)`` reach out while it is traced, never when the site is built. What they get is kept in
the course's cache, a folder beside the lectures (``CACHE_DIR``: ``lectures/cache/``) that the
course commits, so later runs and CI need no network: ``arxiv.json`` (paper metadata, see
``capture.arxiv``) and ``media/`` (images and videos, see ``capture.media_cache``).

The runner opens one :class:`Remote` per run (:func:`opened`); the authoring API asks
:func:`current` (None outside a traced run: nothing is fetched then). Settings come from the
course's ``[tool.chalktrace]`` (``max_media_bytes``, ``arxiv_api``), and the environment can
override them (``CHALKTRACE_ARXIV_API``; ``CHALKTRACE_ARXIV_PACE_S``, the least time between arXiv
calls, 3 s by default; ``CHALKTRACE_OFFLINE=1`` fetches nothing, as tests do;
``CHALKTRACE_FETCH_VIA=http://host:port`` sends every fetch there, the original host and path
appended, as to a mirror: tests stand in for remote hosts with a local server this way).
A host that fails once is not asked again during the run. This module only fetches bytes and
keeps warnings; it must not build renderings or know the trace format.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
import tomllib
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator
from urllib.parse import urlsplit

from tracer.contract import paths

CACHE_DIR = "cache"  # beside the lecture files: lectures/cache/
DEFAULT_MAX_MEDIA_BYTES = 20_000_000  # a remote image or video larger than this is linked, not embedded
DEFAULT_ARXIV_API = "https://export.arxiv.org/api/query"
FETCH_TIMEOUT_SECONDS = 15.0  # for each read: a host silent this long has failed
FETCH_DEADLINE_SECONDS = 60.0  # for a whole download: a host that drips bytes is given up on
RETRIES = 4  # a busy answer (429/503) is asked again this many times, after the wait it names
MAX_WAIT_SECONDS = 60.0  # the longest Retry-After waited out; a longer one fails the fetch
ARXIV_PACE_SECONDS = 3.0  # arXiv asks for a few seconds between API calls
USER_AGENT = "chalktrace (lecture tracer; fetches each file once into the course cache)"
_PACKAGE_DIR = str(paths.PACKAGE_DIR) + os.sep


class FetchError(Exception):
    """A fetch that did not give the file; str() says why in a few words."""


class TooLarge(FetchError):
    def __init__(self, nbytes: int | None, limit: int) -> None:
        self.nbytes = nbytes  # None when the server did not say and the download passed the limit
        self.limit = limit
        super().__init__(f"larger than {limit:,} bytes" if nbytes is None else f"{nbytes:,} bytes, over the {limit:,}-byte limit")


class _Busy(Exception):
    def __init__(self, code: int, wait_s: float) -> None:
        self.code = code
        self.wait_s = wait_s


@dataclass
class Fetched:
    body: bytes
    content_type: str | None


def _settings(project_root: Path) -> dict[str, object]:
    try:
        text = (project_root / "pyproject.toml").read_text(encoding="utf-8")
        return dict(tomllib.loads(text).get("tool", {}).get("chalktrace", {}))
    except (OSError, tomllib.TOMLDecodeError):
        return {}  # an unreadable pyproject is reported by the runner's own settings check


@dataclass
class Remote:
    """One run's access to the network and to the course cache."""

    project_root: Path
    cache_dir: Path
    arxiv_api: str = DEFAULT_ARXIV_API
    max_media_bytes: int = DEFAULT_MAX_MEDIA_BYTES
    offline: bool = False
    fetch_via: str | None = None  # a mirror: GET {fetch_via}/{host}{path}?{query} instead of the URL
    timeout_s: float = FETCH_TIMEOUT_SECONDS
    deadline_s: float = FETCH_DEADLINE_SECONDS  # the whole download's, [tool.chalktrace] fetch_deadline_s
    arxiv_pace_s: float = ARXIV_PACE_SECONDS  # least time between two arXiv API calls (capture.arxiv)
    sleep: Callable[[float], None] = time.sleep  # how waits are waited (tests pass their own)
    warnings: list[str] = field(default_factory=list)  # said once each; the runner passes them on
    warn_hook: Callable[[str], None] | None = None  # the recorder's warn_once, once it exists
    _failed_hosts: dict[str, str] = field(default_factory=dict)
    _said: set[str] = field(default_factory=set)

    @classmethod
    def for_lecture(cls, lecture: Path, project_root: Path) -> "Remote":
        settings = _settings(project_root)
        max_bytes = settings.get("max_media_bytes", DEFAULT_MAX_MEDIA_BYTES)
        deadline = settings.get("fetch_deadline_s", FETCH_DEADLINE_SECONDS)
        api = os.environ.get("CHALKTRACE_ARXIV_API") or settings.get("arxiv_api") or DEFAULT_ARXIV_API
        try:
            pace_s = float(os.environ.get("CHALKTRACE_ARXIV_PACE_S") or ARXIV_PACE_SECONDS)
        except ValueError:
            pace_s = ARXIV_PACE_SECONDS
        return cls(
            project_root=project_root,
            cache_dir=lecture.parent / CACHE_DIR,
            arxiv_api=str(api),
            max_media_bytes=max_bytes if isinstance(max_bytes, int) and max_bytes > 0 else DEFAULT_MAX_MEDIA_BYTES,
            offline=os.environ.get("CHALKTRACE_OFFLINE", "") not in ("", "0"),
            fetch_via=os.environ.get("CHALKTRACE_FETCH_VIA") or None,
            arxiv_pace_s=max(pace_s, 0.0),
            deadline_s=float(deadline)
            if isinstance(deadline, (int, float)) and not isinstance(deadline, bool) and deadline > 0
            else FETCH_DEADLINE_SECONDS,
        )

    # -- warnings ----------------------------------------------------------------------------------
    def warn(self, message: str) -> None:
        """Say ``message`` once in this run (kept for the trace's warnings)."""
        if message in self._said:
            return
        self._said.add(message)
        if self.warn_hook is not None:
            self.warn_hook(message)
        else:
            self.warnings.append(message)

    def where(self) -> str:
        """``path:line`` of the lecture code that called into chalktrace (for warnings)."""
        frame = sys._getframe(1)
        while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
            frame = frame.f_back  # type: ignore[assignment]
        if frame is None:
            return "lecture"
        path = paths.project_relpath(frame.f_code.co_filename, self.project_root) or frame.f_code.co_filename
        return f"{path}:{frame.f_lineno}"

    # -- fetching ----------------------------------------------------------------------------------
    def fetch(self, url: str, max_bytes: int | None = None) -> Fetched:
        """GET ``url`` (at most ``max_bytes``); FetchError (TooLarge) when it cannot be had."""
        if self.offline:
            raise FetchError("offline (CHALKTRACE_OFFLINE is set)")
        host = urlsplit(url).netloc
        if host in self._failed_hosts:
            raise FetchError(self._failed_hosts[host])
        if self.fetch_via:
            parts = urlsplit(url)
            url = f"{self.fetch_via.rstrip('/')}/{parts.netloc}{parts.path}" + (f"?{parts.query}" if parts.query else "")
        for attempt in range(RETRIES + 1):
            try:
                return self._get(url, host, max_bytes)
            except _Busy as busy:  # arXiv answers 503 with Retry-After when asked too fast
                if attempt == RETRIES or busy.wait_s > MAX_WAIT_SECONDS:
                    raise FetchError(f"HTTP {busy.code}: {host} is busy") from None
                self.sleep(busy.wait_s)
        raise AssertionError("unreachable")

    def _get(self, url: str, host: str, max_bytes: int | None) -> Fetched:
        request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
        deadline = time.monotonic() + self.deadline_s
        try:
            with urllib.request.urlopen(request, timeout=min(self.timeout_s, self.deadline_s)) as response:
                length = response.headers.get("Content-Length")
                if max_bytes is not None and length and length.isdigit() and int(length) > max_bytes:
                    raise TooLarge(int(length), max_bytes)
                body = self._read(response, host, max_bytes, deadline)
                return Fetched(body, response.headers.get_content_type())
        except urllib.error.HTTPError as exc:
            if exc.code in (429, 503):
                after = exc.headers.get("Retry-After", "") if exc.headers else ""
                raise _Busy(exc.code, float(after) if after.isdigit() else 1.0) from None
            raise FetchError(f"HTTP {exc.code} {exc.reason}") from None
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", exc)
            why = f"cannot reach {host} ({reason})"
            self._failed_hosts[host] = why  # one failure per host: an offline run does not wait on each file
            raise FetchError(why) from None

    def _read(self, response: Any, host: str, max_bytes: int | None, deadline: float) -> bytes:
        """The body, a read at a time (each bounded by the per-read timeout), until the total
        deadline: a host that sends a byte now and then cannot hold the run."""
        parts: list[bytes] = []
        size = 0
        while True:
            if time.monotonic() > deadline:
                why = f"{host} did not send the whole file within {self.deadline_s:g} s ({size:,} bytes came)"
                self._failed_hosts[host] = why
                raise FetchError(why)
            part = response.read1(65536)
            if not part:
                return b"".join(parts)
            parts.append(part)
            size += len(part)
            if max_bytes is not None and size > max_bytes:
                raise TooLarge(None, max_bytes)


_current: Remote | None = None


def current() -> Remote | None:
    """The run's Remote (None outside a traced run)."""
    return _current


@contextlib.contextmanager
def opened(remote: Remote) -> Iterator[Remote]:
    """Make ``remote`` the run's while the block runs."""
    global _current
    previous, _current = _current, remote
    try:
        yield remote
    finally:
        _current = previous
