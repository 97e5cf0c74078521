"""tracer/site/render_cache.py: a cached build is byte-for-byte a cold build; an entry serves only its own trace."""

from __future__ import annotations

import filecmp
import hashlib
import json
import logging
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.site import build_site
from helpers.traced import as_gpu_run, trace_all, trace_path

from tracer.site.render_cache import CACHE_DIR, RenderCache, renderer_version, trace_digest

LECTURES = ("site_basics", "tensor_views", "renderings_demo")


def same_tree(left: Path, right: Path) -> list[str]:
    """Paths that differ between two built sites (content compared byte for byte)."""
    differ: list[str] = []
    compared = filecmp.dircmp(left, right)
    differ += [str(left / name) for name in compared.left_only + compared.right_only]
    for name in compared.common_files:
        if (left / name).read_bytes() != (right / name).read_bytes():
            differ.append(str(left / name))
    for name in compared.common_dirs:
        differ += same_tree(left / name, right / name)
    return differ


def rebuild(root: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet"],
        cwd=root,
        check=True,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"},
        timeout=300,
    )
    return root / "build" / "site"


def test_a_cached_build_is_byte_for_byte_a_cold_build(tmp_path):
    trace_all(*LECTURES)
    traces = [trace_path(name) for name in LECTURES]
    cold = build_site(tmp_path / "course", traces)
    entries = sorted(p.name for p in (tmp_path / "course" / "build" / CACHE_DIR).glob("*.json"))
    assert [name.rsplit("-", 1)[0] for name in entries] == sorted(LECTURES)
    kept = tmp_path / "cold"
    shutil.copytree(cold, kept)
    warm = rebuild(tmp_path / "course")  # every lecture from the cache
    assert same_tree(warm, kept) == []
    assert sorted(p.name for p in (tmp_path / "course" / "build" / CACHE_DIR).glob("*.json")) == entries

    # one trace changes: its entry is a miss, the others hits; the result is what a cold build makes
    changed = tmp_path / "course" / "site" / "traces" / "site_basics.json"
    changed.write_text(changed.read_text(encoding="utf-8").replace('"ok"', '"ok" ', 1), encoding="utf-8")
    mixed = rebuild(tmp_path / "course")
    (tmp_path / "cold2").mkdir()
    for name in LECTURES:
        source = changed if name == "site_basics" else trace_path(name)
        shutil.copy(source, tmp_path / "cold2" / f"{name}.json")
    fresh = build_site(tmp_path / "fresh", sorted((tmp_path / "cold2").glob("*.json")))
    assert same_tree(mixed, fresh) == []
    # the old entry of the changed trace is gone, the new one is there
    now = sorted(p.name for p in (tmp_path / "course" / "build" / CACHE_DIR).glob("*.json"))
    assert len(now) == len(LECTURES) and set(now) != set(entries) and len(set(now) & set(entries)) == len(LECTURES) - 1


def test_a_lecture_and_its_kept_gpu_run_are_kept_by_both_traces(tmp_path):
    """Each of the two pages names what the other ran on: both are cached, a cached build is a cold one
    byte for byte, and a new GPU run renders the lecture's page again, not only the run's own."""
    trace_all("site_basics")
    basics = json.loads(trace_path("site_basics").read_text(encoding="utf-8"))
    run = tmp_path / "runs" / "site_basics.json"
    run.parent.mkdir()
    run.write_text(json.dumps(as_gpu_run(basics, basics["lecture"]["path"])), encoding="utf-8")
    cold = build_site(tmp_path / "course", [trace_path("site_basics")], gpu_runs=[run])
    cache = tmp_path / "course" / "build" / CACHE_DIR
    written = {p.name: p.stat().st_mtime_ns for p in cache.glob("*.json")}
    assert sorted(name.rsplit("-", 1)[0] for name in written) == ["site_basics", "site_basics-gpu"]
    kept = tmp_path / "cold"
    shutil.copytree(cold, kept)
    warm = rebuild(tmp_path / "course")
    assert same_tree(warm, kept) == []
    assert {p.name: p.stat().st_mtime_ns for p in cache.glob("*.json")} == written  # both found, none written again

    # a new run on another GPU: the lecture's page names it, as a cold build of the two traces does
    newer = as_gpu_run(basics, basics["lecture"]["path"])
    newer["environment"]["gpu_name"] = "NVIDIA H200"
    run.write_text(json.dumps(newer), encoding="utf-8")
    shutil.copy(run, tmp_path / "course" / "site" / "traces" / "gpu" / run.name)
    mixed = rebuild(tmp_path / "course")
    fresh = build_site(tmp_path / "fresh", [trace_path("site_basics")], gpu_runs=[run])
    assert same_tree(mixed, fresh) == []
    lecture_page = (mixed / "lectures" / "site_basics" / "index.html").read_text(encoding="utf-8")
    assert "NVIDIA H200" in lecture_page and "H100" not in lecture_page
    assert not set(written) & {p.name for p in cache.glob("*.json")}  # both entries made again


def test_a_lecture_traced_to_a_file_of_another_name_still_shows_its_kept_gpu_run_as_it_is_now(tmp_path):
    """A kept GPU run is matched by the lecture's name, its trace's key by the file's: when the two
    differ, the lecture's page is rendered again each build instead of kept under a key without the run."""
    trace_all("site_basics")
    basics = json.loads(trace_path("site_basics").read_text(encoding="utf-8"))
    renamed = tmp_path / "runs" / "basics_cpu.json"
    run = tmp_path / "runs" / "site_basics.json"
    run.parent.mkdir()
    shutil.copy(trace_path("site_basics"), renamed)
    run.write_text(json.dumps(as_gpu_run(basics, basics["lecture"]["path"])), encoding="utf-8")
    first = build_site(tmp_path / "course", [renamed], gpu_runs=[run])
    assert "NVIDIA H100" in (first / "lectures" / "site_basics" / "index.html").read_text(encoding="utf-8")
    newer = as_gpu_run(basics, basics["lecture"]["path"])
    newer["environment"]["gpu_name"] = "NVIDIA H200"
    (tmp_path / "course" / "site" / "traces" / "gpu" / run.name).write_text(json.dumps(newer), encoding="utf-8")
    second = rebuild(tmp_path / "course")
    lecture_page = (second / "lectures" / "site_basics" / "index.html").read_text(encoding="utf-8")
    assert "NVIDIA H200" in lecture_page and "H100" not in lecture_page


def test_a_key_names_the_trace_s_bytes_the_renderer_and_the_settings(tmp_path):
    cache = RenderCache(tmp_path, "v1")
    key = cache.key("a", b"{}", "site")
    assert key != cache.key("a", b"{ }", "site") and key != cache.key("a", b"{}", "other site")
    assert key != RenderCache(tmp_path, "v2").key("a", b"{}", "site")
    beside = cache.key("a", b"{}", "site", beside=trace_digest(b"{}"))
    assert beside != key and beside != cache.key("a", b"{}", "site", beside=trace_digest(b"{ }"))
    assert cache.key("a/gpu", b"{}", "site").startswith("a-gpu-")  # a file name, not a folder


def test_a_course_s_own_template_changes_the_renderer_version(tmp_path):
    from tracer.contract import paths as layout

    templates = tmp_path / "templates"
    shutil.copytree(layout.TEMPLATES_DIR, templates)
    before = renderer_version(templates, layout.ASSETS_DIR)
    assert before == renderer_version(templates, layout.ASSETS_DIR)
    (templates / "lecture.html.j2").write_text((templates / "lecture.html.j2").read_text() + "\n", encoding="utf-8")
    assert renderer_version(templates, layout.ASSETS_DIR) != before


# -- entries are data, checked on read; damage is a miss ------------------------------------------
def sample_entry():
    from mkdocs.structure.toc import get_toc

    from tracer.site.pages.read_page import ReadPage
    from tracer.site.render_cache import Entry

    page = ReadPage(markdown="# Title\n\n<!--lt-slot:ab:0-->")
    page.slot("<p>a slot</p>")
    toc = get_toc(
        [{"level": 1, "id": "title", "name": "Title", "children": [{"level": 2, "id": "x", "name": "X", "children": []}]}]
    )
    return Entry(
        read_page=page,
        source_page="<pre>src</pre>",
        data_js="window.X = 1;",
        exact_js=None,
        charts={"fig-1.svg": "<svg/>"},
        heatmaps={"ab.png": b"\x89PNG\r\n\x1a\n\x00\xff"},
        content="<h1 id='title'>Title</h1>",
        toc=toc,
        search_entries=[{"location": "lectures/a/", "title": "Title", "text": "t"}],
    )


def test_an_entry_is_json_behind_its_digest_and_reads_back_as_it_was(tmp_path):
    from tracer.site.render_cache import FORMAT

    RenderCache(tmp_path, "v1").put("a-1", sample_entry())
    (path,) = (tmp_path / CACHE_DIR).iterdir()
    assert path.name == "a-1.json"
    head, _, body = path.read_bytes().partition(b"\n")
    assert head.startswith(FORMAT + b" ") and json.loads(body)["charts"] == {"fig-1.svg": "<svg/>"}
    got = RenderCache(tmp_path, "v1").get("a-1")  # a new process: from the file
    want = sample_entry()
    assert got is not None and got.read_page.markdown == want.read_page.markdown
    assert got.read_page.slots == want.read_page.slots and got.read_page.nonce != ""
    assert (got.source_page, got.data_js, got.exact_js, got.charts, got.heatmaps, got.content, got.search_entries) == (
        want.source_page,
        want.data_js,
        want.exact_js,
        want.charts,
        want.heatmaps,
        want.content,
        want.search_entries,
    )
    assert [(i.title, i.id, i.level, [(c.title, c.id) for c in i.children]) for i in got.toc] == [
        ("Title", "title", 1, [("X", "x")])
    ]


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda raw: raw[:-5] + b"X" + raw[-4:], id="a rotted byte"),
        pytest.param(lambda raw: raw[: len(raw) // 2], id="cut short"),
        pytest.param(lambda raw: b"", id="empty"),
        pytest.param(lambda raw: b"\xff" * 64, id="garbage"),
    ],
)
def test_a_damaged_entry_is_a_miss_with_a_one_line_note(tmp_path, caplog, damage):
    RenderCache(tmp_path, "v1").put("a-1", sample_entry())
    path = tmp_path / CACHE_DIR / "a-1.json"
    path.write_bytes(damage(path.read_bytes()))
    with caplog.at_level(logging.INFO, logger="mkdocs.plugins.chalktrace"):
        assert RenderCache(tmp_path, "v1").get("a-1") is None
    notes = [r.getMessage() for r in caplog.records if "render cache entry" in r.getMessage()]
    assert len(notes) == 1 and "a-1.json" in notes[0] and "\n" not in notes[0]
    assert not path.exists()


def test_an_entry_whose_digest_matches_but_whose_content_is_absurd_is_a_miss(tmp_path, caplog):
    from tracer.site.render_cache import FORMAT

    (tmp_path / CACHE_DIR).mkdir()
    for body in (b'{"read_page": 1}', b"[1, 2]", b'{"read_page": null}', b"9" * 5000):
        (tmp_path / CACHE_DIR / "a-1.json").write_bytes(FORMAT + b" " + hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
        assert RenderCache(tmp_path, "v1").get("a-1") is None


def test_a_pickle_in_the_cache_is_never_loaded(tmp_path):
    """A poisoned cache (restored by a CI cache action, say) cannot run code at build time."""
    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (Path.touch, (marker,))

    (tmp_path / CACHE_DIR).mkdir()
    for name in ("a-1.json", "a-1.pickle"):
        (tmp_path / CACHE_DIR / name).write_bytes(pickle.dumps(Payload()))
    cache = RenderCache(tmp_path, "v1")
    assert cache.get("a-1") is None
    cache.finish()
    assert not marker.exists() and not list((tmp_path / CACHE_DIR).glob("*.pickle"))


def test_the_renderer_version_covers_the_libraries_that_shape_the_html(monkeypatch):
    import importlib.metadata

    from tracer.contract import paths as layout
    from tracer.site.render_cache import LIBRARIES

    assert {"Pygments", "Markdown", "pymdown-extensions", "nh3", "mkdocs-material"} <= set(LIBRARIES)
    before = renderer_version(layout.TEMPLATES_DIR, layout.ASSETS_DIR)
    real = importlib.metadata.version
    for library in ("nh3", "Pygments", "Markdown", "pymdown-extensions", "mkdocs-material"):
        monkeypatch.setattr(importlib.metadata, "version", lambda name, lib=library: "999.0" if name == lib else real(name))
        assert renderer_version(layout.TEMPLATES_DIR, layout.ASSETS_DIR) != before, library
    monkeypatch.setattr(importlib.metadata, "version", real)
    assert renderer_version(layout.TEMPLATES_DIR, layout.ASSETS_DIR) == before


def build_with(root: Path, **env: str) -> Path:
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet"],
        cwd=root,
        check=True,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin", **env},
        timeout=300,
    )
    return root / "build" / "site"


def inherit_with_env(root: Path) -> None:
    """The course's mkdocs.yml becomes ``INHERIT: base.yml``, whose toc permalink reads ``!ENV PERMALINK``."""
    text = (root / "mkdocs.yml").read_text(encoding="utf-8")
    assert "permalink: true" in text
    (root / "base.yml").write_text(text.replace("permalink: true", "permalink: !ENV [PERMALINK, true]"), encoding="utf-8")
    (root / "mkdocs.yml").write_text("INHERIT: base.yml\n", encoding="utf-8")


def test_a_setting_that_reaches_the_config_through_inherit_and_env_is_in_the_key(tmp_path):
    trace_all("site_basics")
    traces = [trace_path("site_basics")]
    course = tmp_path / "course"
    build_site(course, traces)
    inherit_with_env(course)
    build_with(course, PERMALINK="true")
    warm = build_with(course, PERMALINK="false")  # same files; the resolved setting changed
    cold_root = tmp_path / "cold"
    build_site(cold_root, traces)
    inherit_with_env(cold_root)
    shutil.rmtree(cold_root / "build")
    cold = build_with(cold_root, PERMALINK="false")
    assert 'class="headerlink"' not in (cold / "lectures" / "site_basics" / "index.html").read_text(encoding="utf-8")
    assert same_tree(warm, cold) == []
