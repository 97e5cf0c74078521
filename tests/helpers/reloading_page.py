"""Polling a page that live-reloads: ``wait_for(page, script, seconds)`` evaluates ``script`` until it is
truthy, and ``wait_for_all(page, checks, seconds)`` until every named check is, reading the moments
between two documents (a reload under test) as "not yet" instead of failing.

After a save the page may reload more than once (on a loaded machine, a second reload has come after
the page already showed the new trace): a test reads the page through these, never by a bare
``page.evaluate``, until the page holds what it expects."""

from __future__ import annotations

import json

from playwright.sync_api import Error as PlaywrightError

from helpers.polling import settles


def wait_for(page, script: str, seconds: float = 120) -> None:
    """Poll ``script`` (evaluated through the debugger, which the page's policy does not govern)."""
    if not settles(lambda: _evaluate(page, script), seconds, interval=0.2):
        raise AssertionError(f"timed out waiting for {script}")


def wait_for_all(page, checks: dict[str, str], seconds: float = 30) -> None:
    """Poll the ``checks`` (name -> a script) together until each is truthy in one reading of the page;
    on a timeout, say which were not."""
    script = "({" + ", ".join(f"{json.dumps(name)}: Boolean({expression})" for name, expression in checks.items()) + "})"
    last: dict[str, bool] = {}

    def holds() -> bool:
        found = _evaluate(page, script)
        if found is not None:
            last.update(found)
        return found is not None and all(found.values())

    if not settles(holds, seconds, interval=0.2):
        failing = [name for name in checks if not last.get(name)]
        raise AssertionError(f"timed out waiting for: {', '.join(failing)}")


def _evaluate(page, script: str):
    """``script``'s value, or None while the page is between documents."""
    try:
        return page.evaluate(script)
    except PlaywrightError as exc:
        if "context was destroyed" in str(exc) or "navigat" in str(exc):
            return None
        raise
