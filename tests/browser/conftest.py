"""Fixtures for the browser tests: ``page``, a fresh page in a viewer context at 1280×800 (a module
that needs another size defines its own)."""

from __future__ import annotations

import pytest

from helpers.site import viewer_context


@pytest.fixture
def page(browser):
    with viewer_context(browser, viewport={"width": 1280, "height": 800}) as context:
        yield context.new_page()
