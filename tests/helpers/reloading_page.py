"""Polling a page that live-reloads: ``wait_for(page, script, seconds)`` evaluates ``script`` until it is
truthy, reading the moments between two documents (a reload under test) as "not yet" instead of failing."""

from __future__ import annotations

from playwright.sync_api import Error as PlaywrightError

from helpers.polling import settles


def wait_for(page, script: str, seconds: float = 120) -> None:
    """Poll ``script`` (evaluated through the debugger, which the page's policy does not govern)."""
    if not settles(lambda: _evaluate(page, script), seconds, interval=0.2):
        raise AssertionError(f"timed out waiting for {script}")


def _evaluate(page, script: str):
    """``script``'s value, or None while the page is between documents."""
    try:
        return page.evaluate(script)
    except PlaywrightError as exc:
        if "context was destroyed" in str(exc) or "navigat" in str(exc):
            return None
        raise
