"""tracer/contract/collector.py: the garbage collector off for a block, then as it was; cycles freed once at the end."""

from __future__ import annotations

import gc
import weakref

import pytest

from tracer.contract import collector


class _Node:
    """An object that can sit in a reference cycle and be watched for its end (a weakref)."""

    other: _Node | None = None


def _cycle() -> weakref.ref[_Node]:
    """A two-object cycle nothing else refers to: only a collector pass frees it."""
    first, second = _Node(), _Node()
    first.other, second.other = second, first
    return weakref.ref(first)


@pytest.fixture
def collector_on():
    was = gc.isenabled()
    gc.enable()
    gc.collect()
    yield
    (gc.enable if was else gc.disable)()


def test_the_collector_is_off_inside_and_on_again_after(collector_on):
    with collector.paused():
        assert not gc.isenabled()
        watched = _cycle()
        for _ in range(20_000):  # enough new objects for many passes, were the collector on
            _cycle()
        assert watched() is not None  # no pass ran
    assert gc.isenabled()
    gc.collect()
    assert watched() is None


def test_collect_after_frees_the_blocks_cycles_once_it_ends(collector_on):
    with collector.paused(collect_after=True):
        watched = _cycle()
    assert watched() is None
    assert gc.isenabled()


def test_a_pause_inside_a_pause_leaves_the_collector_off_until_the_outer_one_ends(collector_on):
    with collector.paused():
        with collector.paused(collect_after=True):
            watched = _cycle()
        assert not gc.isenabled()
        assert watched() is not None  # the inner pause neither collected nor switched it back on
    assert gc.isenabled()


def test_a_program_that_turned_the_collector_off_keeps_it_off(collector_on):
    gc.disable()
    with collector.paused(collect_after=True):
        watched = _cycle()
    assert not gc.isenabled()
    assert watched() is not None


def test_an_error_in_the_block_still_switches_the_collector_back_on(collector_on):
    with pytest.raises(ValueError, match="inside"), collector.paused():
        raise ValueError("inside")
    assert gc.isenabled()


@pytest.fixture
def nothing_set_aside(collector_on):
    gc.unfreeze()
    yield
    gc.unfreeze()


def test_what_is_set_aside_is_out_of_the_collectors_reach_until_brought_back(nothing_set_aside):
    kept = [[k] for k in range(1000)]  # long-kept data, as a loaded trace is
    watched = _cycle()  # made last: no automatic pass frees it before it is set aside
    collector.set_aside()
    alive = {id(thing) for thing in gc.get_objects()}
    assert id(kept) not in alive and id(kept[0]) not in alive  # no pass walks them
    gc.collect()
    assert watched() is not None  # a cycle set aside is not freed either
    collector.bring_back()
    assert gc.get_freeze_count() == 0
    assert id(kept) in {id(thing) for thing in gc.get_objects()}
    gc.collect()
    assert watched() is None
