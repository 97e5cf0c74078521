"""Step mode's per-card work in worker processes: the same bytes as in one process, errors as they were."""

from __future__ import annotations

import hashlib
import os
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from helpers import card_work
from helpers.site import build_site
from helpers.traced import trace_all, trace_path, traced
from tracer.contract import paths
from tracer.site.cards.render import HtmlRenderer
from tracer.site.cards.templates import template_env
from tracer.site.pages import card_workers
from tracer.site.pages.viewer_data import viewer_data_text

# value cards of many kinds: tensors with heatmaps and exact grids, shared storage, rounded numbers,
# repeated cards (stored once), charts, a distributed run (each rank's renderer)
LECTURES = ("site_basics", "exact_values", "packed_numbers", "tensor_views", "classroom", "ranks_plot")


def _files(site: Path) -> dict[str, str]:
    return {
        str(path.relative_to(site)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(site.rglob("*"))
        if path.is_file() and path.name != "sitemap.xml.gz"  # gzip's header holds the time it was written
    }


def test_a_site_built_with_card_workers_is_byte_identical(tmp_path):
    trace_all(*LECTURES)
    traces = [trace_path(name) for name in LECTURES]
    alone = build_site(tmp_path / "alone", traces, environment={paths.CARD_WORKERS_ENV: "1"})
    spread = build_site(tmp_path / "spread", traces, environment={paths.CARD_WORKERS_ENV: "2"})
    files = _files(alone)
    assert files == _files(spread)
    data = [name for name in files if name.endswith("/data.js")]
    assert len(data) == len(LECTURES)  # every lecture has step mode, in both builds
    assert any(name.startswith(paths.HEATMAPS_URL) for name in files)
    assert any(name.endswith("exact.js") for name in files)


@pytest.mark.parametrize("name", ["classroom", "ranks_allreduce"])
def test_heatmaps_drawn_in_workers_come_back_in_drawing_order(monkeypatch, name):
    trace = traced(name)
    made = []
    for workers in ("1", "2"):
        monkeypatch.setenv(paths.CARD_WORKERS_ENV, workers)
        renderer = HtmlRenderer(trace, template_env())  # nothing drawn yet: step mode draws every heatmap
        made.append((viewer_data_text(trace, renderer), list(renderer.heatmaps.items()), dict(renderer.charts)))
    assert made[0][1] or name.startswith("ranks_")  # the lecture's cards have heatmaps (a rank's renderer its own)
    assert made[0] == made[1]


def test_results_come_back_in_order(monkeypatch):
    monkeypatch.setenv(paths.CARD_WORKERS_ENV, "2")
    chunks = card_workers.map_chunks(card_work.squares, list(range(1000)), here=(7,))
    assert len(chunks) > 2  # cut into chunks, shared by a worker and this process
    assert [value for _pid, chunk in chunks for value in chunk] == [item * item + 7 for item in range(1000)]
    assert {pid for pid, _chunk in chunks} - {os.getpid()}  # a worker did some


def test_setup_arguments_are_pickled_once_and_what_setup_makes_is_set_aside(monkeypatch):
    monkeypatch.setenv(paths.CARD_WORKERS_ENV, "3")  # two workers, each made by setup from the arguments
    card_work.CountsPickling.pickled = 0
    chunks = card_workers.map_chunks(
        card_work.set_aside, list(range(1000)), here=([],), setup=card_work.kept_lists, setup_args=(card_work.CountsPickling(),)
    )
    assert [item for _pid, _aside, items in chunks for item in items] == list(range(1000))
    assert card_work.CountsPickling.pickled == 1  # once for both workers, not once as each started
    in_workers = [aside for pid, aside, _items in chunks if pid != os.getpid()]
    assert in_workers and all(in_workers)  # a worker's collector never walks what its setup made


@pytest.mark.parametrize("unpicklable", [False, True])
def test_a_workers_error_is_the_one_a_single_process_raises(monkeypatch, unpicklable):
    said = []
    for workers in ("1", "2"):
        monkeypatch.setenv(paths.CARD_WORKERS_ENV, workers)
        with pytest.raises(Exception) as raised:
            # items 100 and on fail: the first chunk's (a worker's) first, later chunks' (this process's) too
            card_workers.map_chunks(card_work.fails_at, list(range(1000)), here=(100, unpicklable))
        said.append(f"{type(raised.value).__name__}: {raised.value}")  # the build log's line
    # the second came from a worker: as itself, with the worker's traceback, or remade from its words
    if unpicklable:
        assert type(raised.value) is not card_work.Unpicklable
    else:
        assert "fails_at" in str(raised.value.__cause__)
    if unpicklable:
        assert said == ["Unpicklable: cannot render card at 100"] * 2
    else:
        assert said == ["ValueError: cannot render card 100"] * 2


def test_a_worker_that_dies_fails_the_call_instead_of_hanging(monkeypatch):
    monkeypatch.setenv(paths.CARD_WORKERS_ENV, "2")
    with pytest.raises(BrokenProcessPool):
        card_workers.map_chunks(card_work.dies_in_worker, list(range(1000)), here=(os.getpid(),))


def test_few_cards_or_one_free_cpu_stay_in_this_process():
    assert card_workers.processes_for(card_workers.MIN_ITEMS - 1, cpus=8, load=0.0) == 0
    assert card_workers.processes_for(card_workers.MIN_ITEMS, cpus=8, load=0.0) == 8
    assert card_workers.processes_for(60_000, cpus=1, load=0.0) == 0
    assert card_workers.processes_for(60_000, cpus=2, load=1.0) == 2  # the build's own process is the load
    assert card_workers.processes_for(60_000, cpus=2, load=2.6) == 0  # another program holds a CPU
    assert card_workers.processes_for(60_000, cpus=8, load=4.0) == 5


def test_one_cpu_of_affinity_keeps_the_work_in_this_process(monkeypatch):
    monkeypatch.delenv(paths.CARD_WORKERS_ENV, raising=False)
    if not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs a platform that sets CPU affinity, and two CPUs")
    allowed = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(allowed)})
    try:
        assert card_workers.usable_cpus() == 1
        assert card_workers.worker_count(10 * card_workers.MIN_ITEMS) == 0
        parent = os.getpid()  # were a worker started, it would die and the call would fail
        assert card_workers.map_chunks(card_work.dies_in_worker, list(range(card_workers.MIN_ITEMS)), here=(parent,)) == [
            list(range(card_workers.MIN_ITEMS))
        ]
    finally:
        os.sched_setaffinity(0, allowed)


def test_the_forced_count_is_read_as_a_whole_number(monkeypatch):
    for text, count in (("1", 1), (" 3 ", 3), ("0", 0)):
        monkeypatch.setenv(paths.CARD_WORKERS_ENV, text)
        assert card_workers.forced_count() == count
    assert card_workers.worker_count(1) == 0  # 0 and 1 are the build's own process alone
    monkeypatch.delenv(paths.CARD_WORKERS_ENV)
    assert card_workers.forced_count() is None
    for text in ("two", "-2", "2.5", "２"):
        monkeypatch.setenv(paths.CARD_WORKERS_ENV, text)
        with pytest.raises(ValueError, match=rf"^{paths.CARD_WORKERS_ENV}={text!r} is not a number of processes"):
            card_workers.worker_count(10 * card_workers.MIN_ITEMS)


def test_a_bad_forced_count_fails_the_build_in_one_line(tmp_path):
    trace_all("site_basics")
    with pytest.raises(RuntimeError) as failed:
        build_site(tmp_path / "site", [trace_path("site_basics")], environment={paths.CARD_WORKERS_ENV: "two"})
    errors = [line for line in str(failed.value).splitlines() if line.startswith("ERROR")]
    assert errors == [
        f"ERROR   -  {paths.CARD_WORKERS_ENV}='two' is not a number of processes "
        "(1: the build's own process alone; 2 or more: that many, the build's own included)"
    ]
    assert not (tmp_path / "site" / "build" / "site" / "lectures").exists()  # failed before any page was written
