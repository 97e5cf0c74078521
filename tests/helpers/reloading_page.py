"""Polling a page that live-reloads: ``wait_for(page, script, seconds)`` evaluates ``script`` until it is
truthy, reading the moments between two documents (a reload under test) as "not yet" instead of failing."""

from __future__ import annotations

import time

from playwright.sync_api import Error as PlaywrightError


def wait_for(page, script: str, seconds: float = 120) -> None:
    """Poll ``script`` (evaluated through the debugger, which the page's policy does not govern)."""
    deadline = time.monotonic() + seconds
    while not _evaluate(page, script):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {script}")
        time.sleep(0.2)


def _evaluate(page, script: str):
    """``script``'s value, or None while the page is between documents."""
    try:
        return page.evaluate(script)
    except PlaywrightError as exc:
        if "context was destroyed" in str(exc) or "navigat" in str(exc):
            return None
        raise
