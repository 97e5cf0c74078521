"""tracer/site/render_cache.py: a cached build is byte-for-byte a cold build; an entry serves only its own trace."""

from __future__ import annotations

import filecmp
import shutil
import subprocess
import sys
from pathlib import Path

from helpers.site import build_site
from helpers.traced import trace_all, trace_path

from tracer.site.render_cache import CACHE_DIR, RenderCache, renderer_version

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
    entries = sorted(p.name for p in (tmp_path / "course" / "build" / CACHE_DIR).glob("*.pickle"))
    assert [name.rsplit("-", 1)[0] for name in entries] == sorted(LECTURES)
    kept = tmp_path / "cold"
    shutil.copytree(cold, kept)
    warm = rebuild(tmp_path / "course")  # every lecture from the cache
    assert same_tree(warm, kept) == []
    assert sorted(p.name for p in (tmp_path / "course" / "build" / CACHE_DIR).glob("*.pickle")) == entries

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
    now = sorted(p.name for p in (tmp_path / "course" / "build" / CACHE_DIR).glob("*.pickle"))
    assert len(now) == len(LECTURES) and set(now) != set(entries) and len(set(now) & set(entries)) == len(LECTURES) - 1


def test_a_key_names_the_trace_s_bytes_the_renderer_and_the_settings(tmp_path):
    cache = RenderCache(tmp_path, "v1")
    key = cache.key("a", b"{}", "site")
    assert key != cache.key("a", b"{ }", "site") and key != cache.key("a", b"{}", "other site")
    assert key != RenderCache(tmp_path, "v2").key("a", b"{}", "site")


def test_a_course_s_own_template_changes_the_renderer_version(tmp_path):
    from tracer.contract import paths as layout

    templates = tmp_path / "templates"
    shutil.copytree(layout.TEMPLATES_DIR, templates)
    before = renderer_version(templates, layout.ASSETS_DIR)
    assert before == renderer_version(templates, layout.ASSETS_DIR)
    (templates / "lecture.html.j2").write_text((templates / "lecture.html.j2").read_text() + "\n", encoding="utf-8")
    assert renderer_version(templates, layout.ASSETS_DIR) != before
