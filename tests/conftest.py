"""Fixtures for every test: no test touches the network, and ``browser`` is one headless Chromium
per test module that asks for it. Helpers the tests import live in ``tests/helpers/``."""

from __future__ import annotations

import os

import pytest

from helpers.site import chromium

# Tests never touch the network: a traced lecture's arXiv look-ups and remote images answer from the
# course cache or not at all (tests that fetch point CHALKTRACE_FETCH_VIA at tests/helpers/fake_hosts.py).
os.environ["CHALKTRACE_OFFLINE"] = "1"


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium per test module that asks for it."""
    with chromium() as browser:
        yield browser
