"""Waiting for a condition instead of for a fixed time: ``settles(check, seconds)`` is whether ``check()``
holds within ``seconds``, asked again every ``interval`` seconds (a loaded machine gets longer, a fast one
answers at once)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def settles(check: Callable[[], Any], seconds: float = 5.0, interval: float = 0.05) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(interval)
    return True
