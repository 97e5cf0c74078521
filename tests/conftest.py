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


def _engines(commands: tuple[str, ...]) -> None:
    """Skip (with the reason) where the engines cannot run; fail instead where CI requires them."""
    from helpers.cluster import REQUIRE_ENV, missing

    why = missing(commands)
    if why is not None:
        if os.environ.get(REQUIRE_ENV):
            pytest.fail(f"{REQUIRE_ENV} is set but {why}")
        pytest.skip(why)


@pytest.fixture(scope="module")
def slurm():
    """A real single-node Slurm (munged, slurmctld, slurmd) for the module's tests; stopped after them."""
    from helpers.cluster import SLURM_COMMANDS, slurm_cluster

    _engines(SLURM_COMMANDS)
    with slurm_cluster() as cluster:
        yield cluster


@pytest.fixture(scope="module")
def sshd():
    """A real sshd on a free localhost port accepting a key made for the module's tests; stopped after them."""
    from helpers.cluster import SSH_COMMANDS, ssh_server

    _engines(SSH_COMMANDS)
    with ssh_server() as server:
        yield server
