"""A course written for edtrace runs unchanged: tests/courses/edtrace_course, traced and built for real.

Remote hosts are a local server (tests/helpers/fake_hosts.py); tests never touch the network.
"""

from __future__ import annotations

import hashlib
import json
import html
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.site import REPO, chromium, serve, viewer_context
from helpers.fake_hosts import PAPERS, hosts
from tracer.contract.trace_reading import load_trace

COURSE = REPO / "tests" / "courses" / "edtrace_course"
LECTURE = "lectures/lecture_switch.py"
PNG_URL = "https://images.example.org/figures/pipeline.png"
POSTER_URL = "https://images.example.org/figures/poster.png"
VIDEO_URL = "https://media.example.org/clips/walkthrough.webm"


def copy_course(tmp: Path, with_cache: bool = True) -> Path:
    root = tmp / "course"
    shutil.copytree(COURSE, root, ignore=shutil.ignore_patterns("build", "traces", "__pycache__"))
    if not with_cache:
        shutil.rmtree(root / "lectures" / "cache")
    return root


def run(root: Path, **env: str) -> tuple[subprocess.CompletedProcess, dict]:
    environment = {k: v for k, v in os.environ.items() if k not in ("CHALKTRACE_OFFLINE", "CHALKTRACE_FETCH_VIA")}
    environment.update(env)
    done = subprocess.run(
        [sys.executable, "-m", "tracer", "run", LECTURE, "-q"],
        cwd=root,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    trace = load_trace(root / "site" / "traces" / "lecture_switch.json")
    return done, trace


def line_of(fragment: str) -> int:
    lines = (COURSE / LECTURE).read_text(encoding="utf-8").splitlines()
    (line,) = [n for n, text in enumerate(lines, 1) if fragment in text]
    return line


def renderings_at(trace: dict, fragment: str) -> list[dict]:
    line = line_of(fragment)
    return [r for s in trace["steps"] if s["stack"][-1]["line"] == line for r in s["renderings"]]


@pytest.fixture(scope="module")
def offline_run(tmp_path_factory):
    """The course as committed, traced offline: everything remote answers from lectures/cache/."""
    root = copy_course(tmp_path_factory.mktemp("offline"))
    done, trace = run(root, CHALKTRACE_OFFLINE="1")
    return root, done, trace


def test_course_runs_unchanged_offline_from_its_cache(offline_run):
    root, done, trace = offline_run
    assert done.returncode == 0, done.stderr
    assert trace["status"] == "ok" and trace["warnings"] == []
    (first,) = renderings_at(trace, "link(stepping_2099)")
    assert first["title"] == "Stepping Through Lectures Like a Debugger"  # from the cache, whitespace folded
    assert first["attrs"]["authors"] == ["Ada Example", "Grace Placeholder", "Alan Sample"]
    assert first["attrs"]["date"] == "2099-01-05" and first["attrs"]["notes"] == "Why a lecture should step like a debugger"
    (second,) = renderings_at(trace, "link(tracing_2099)")
    assert second["attrs"]["organization"] == "Example Lab" and second["attrs"]["authors"] == ["Edsger Fictional"]
    (bare,) = renderings_at(trace, 'link("https://arxiv.org/abs/9902.00003")')
    assert bare["title"] == "Sites That Read Like Documents" and bare["attrs"]["authors"][0] == "Barbara Madeup"
    # values and the rest of edtrace's API, as chalktrace records them
    values = {name: v["value"] for s in trace["steps"] for name, v in s["env"].items()}
    assert values == {"steps": 6, "total": 6}
    assert [r["data"] for r in renderings_at(trace, "# @animate")] == [
        "- run the lecture",
        "- commit the trace",
        "- publish the site",
    ]
    assert all(r["animate"] for r in renderings_at(trace, "# @animate"))
    assert not any(
        r.get("animate") for s in trace["steps"] for r in s["renderings"] if s["stack"][-1]["line"] != line_of("# @animate")
    )
    (drawn,) = renderings_at(trace, "graph(spec)")
    assert drawn["type"] == "graph" and [n["data"]["id"] for n in drawn["spec"]["nodes"]] == [
        "lecture",
        "trace",
        "site",
        "reader",
    ]
    assert drawn["spec"]["layout"] == {"name": "breadthfirst"} and drawn["spec"]["nodes"][3]["classes"] == "person"


def test_remote_media_served_from_the_content_addressed_cache(offline_run):
    root, _, trace = offline_run
    (png,) = renderings_at(trace, PNG_URL)
    assert png["external"] is False and png["source_url"] == PNG_URL and png["caption"] == "From trace to site"
    digest = re.fullmatch(r"lectures/cache/media/([0-9a-f]{64})\.png", png["data"])
    assert digest, png["data"]  # named by its content
    assert hashlib.sha256((root / png["data"]).read_bytes()).hexdigest() == digest.group(1)
    (poster,) = renderings_at(trace, POSTER_URL)
    assert poster["external"] is True and poster["too_large"] == 400_000  # over the course's max_media_bytes
    (local_video,) = renderings_at(trace, 'video("videos/clip.webm"')
    (remote_video,) = renderings_at(trace, VIDEO_URL)
    assert local_video["data"] == "lectures/videos/clip.webm" and local_video["external"] is False
    assert remote_video["source_url"] == VIDEO_URL and remote_video["data"].endswith(".webm")
    assert png["data"] in trace["sources"] and remote_video["data"] in trace["sources"]


def test_a_fresh_course_fetches_once_into_the_same_cache(tmp_path):
    root = copy_course(tmp_path, with_cache=False)
    with hosts() as fake:
        done, fetched = run(root, CHALKTRACE_FETCH_VIA=fake.url)
        asked = list(fake.requests)
        again, cached = run(root, CHALKTRACE_FETCH_VIA=fake.url)
        asked_again = fake.requests[len(asked) :]
    assert done.returncode == 0 and again.returncode == 0, done.stderr + again.stderr
    assert sorted(p.split("?")[0] for p in asked) == sorted(
        ["/export.arxiv.org/api/query"]  # the three papers the course cites, in one query
        + [
            "/images.example.org/figures/pipeline.png",
            "/images.example.org/figures/poster.png",
            "/media.example.org/clips/walkthrough.webm",
        ]
    )
    assert asked_again == []  # the second run answers from the cache alone
    # what the run wrote is what the course commits, byte for byte
    committed = COURSE / "lectures" / "cache"
    made = root / "lectures" / "cache"
    assert sorted(p.relative_to(made).as_posix() for p in made.rglob("*") if p.is_file()) == sorted(
        p.relative_to(committed).as_posix() for p in committed.rglob("*") if p.is_file()
    )
    for path in committed.rglob("*"):
        if path.is_file():
            assert (made / path.relative_to(committed)).read_bytes() == path.read_bytes(), path.name
    entries = json.loads((made / "arxiv.json").read_text(encoding="utf-8"))
    assert set(entries) == set(PAPERS) and entries["9901.00001"]["authors"] == PAPERS["9901.00001"]["authors"]
    assert fetched["steps"] == cached["steps"]


def test_offline_without_a_cache_warns_once_and_shows_placeholders(tmp_path):
    root = copy_course(tmp_path, with_cache=False)
    done, trace = run(root, CHALKTRACE_OFFLINE="1")
    assert done.returncode == 0 and trace["status"] == "ok"
    arxiv = [w for w in trace["warnings"] if "arXiv metadata unavailable" in w]
    assert len(arxiv) == 1  # said once, for three papers
    media = [w for w in trace["warnings"] if "cannot be fetched" in w]
    assert media == [
        f"{LECTURE}:{line_of(url)}: {kind}({url}): not in the course cache and cannot be fetched "
        "(offline (CHALKTRACE_OFFLINE is set)); the page shows a placeholder"
        for kind, url in (("image", PNG_URL), ("image", POSTER_URL), ("video", VIDEO_URL))
    ]
    (first,) = renderings_at(trace, "link(stepping_2099)")
    assert first["title"] == "arXiv:9901.00001" and first["attrs"] == {"notes": "Why a lecture should step like a debugger"}
    (png,) = renderings_at(trace, PNG_URL)
    assert png["missing"] is True and png["external"] is True and png["data"] == PNG_URL
    assert not (root / "lectures" / "cache").exists() or not any((root / "lectures" / "cache").rglob("*.png"))


@pytest.fixture(scope="module")
def built_site(offline_run):
    root, _, _ = offline_run
    done = subprocess.run(
        [sys.executable, "-m", "tracer", "build"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "CHALKTRACE_OFFLINE": "1"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return root / "build" / "site"


def test_site_shows_citations_media_graph(built_site):
    page = (built_site / "lectures" / "lecture_switch" / "index.html").read_text(encoding="utf-8")
    assert ">[Example+ 2099]</a>" in page and "Ada Example, Grace Placeholder, Alan Sample" in page
    assert ">[Fictional 2099]</a>" in page and ">[Madeup+ 2099]</a>" in page
    assert ">[Example Teaching Group 2098]</a>" in page  # no authors: the organization
    assert ">[The Course Handbook of… 2097]</a>" in page  # no authors, no organization: a short title
    (png,) = re.findall(r'<img src="[^"]*assets/(lectures/cache/media/[0-9a-f]{64}\.png)" alt="([^"]*)"', page)
    assert png[1] == "From trace to site" and (built_site / "assets" / png[0]).is_file()
    videos = re.findall(r'<video controls preload="metadata" src="[^"]*assets/([^"]+)"', page)
    assert len(videos) == 2 and all((built_site / "assets" / v).is_file() for v in videos)
    assert f'<a href="{POSTER_URL}">{POSTER_URL}</a>' in page and "over the course's size limit" in html.unescape(page)
    assert 'aria-label="graph of 4 node(s) and 3 edge(s)"' in page and page.count("<polygon points=") >= 3
    assert "cytoscape" not in page.lower()
    assert "pipeline.png" not in re.sub(r'href="[^"]*"', "", page.split("<article", 1)[1]).split("</article>")[0]


def test_offline_site_without_a_cache_shows_placeholder_cards(tmp_path):
    root = copy_course(tmp_path, with_cache=False)
    done = subprocess.run(
        [sys.executable, "-m", "tracer", "build"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "CHALKTRACE_OFFLINE": "1"},
    )
    # students would see the placeholders: the build fails, naming each line, and still builds the site
    assert done.returncode == 1, done.stderr[-2000:]
    assert "lectures/references.py:5: arXiv metadata unavailable" in done.stderr and "`# @accept metadata`" in done.stderr
    assert done.stderr.count("cannot be fetched (offline (CHALKTRACE_OFFLINE is set)); the page shows a placeholder") == 3
    page = (root / "build" / "site" / "lectures" / "lecture_switch" / "index.html").read_text(encoding="utf-8")
    assert page.count('<figure class="lt-media-missing">') == 3  # two images and a video, none hot-linked
    assert f'<a href="{PNG_URL}">{PNG_URL}</a>' in page and f'src="{PNG_URL}"' not in page
    assert ">arXiv:9901.00001<" in page or "arXiv:9901.00001</a>" in page


def test_animate_builds_up_in_step_mode_and_shows_all_in_read_mode(built_site):
    with chromium() as browser, serve(built_site) as url, viewer_context(browser) as context:
        page = context.new_page()
        page.goto(url + "lectures/lecture_switch/")
        read = page.locator("article").inner_text()
        assert all(item in read for item in ("run the lecture", "commit the trace", "publish the site"))
        data = page.evaluate("window.CHALKTRACE_DATA")
        line = str(line_of("# @animate"))
        runs = data["line_renderings"][0][line]
        assert [len(blocks) for _step, blocks in runs] == [1, 2, 3]
        first = runs[0][0]
        page.goto(url + f"lectures/lecture_switch/#step={first}")
        shown = []
        for _ in range(3):
            page.wait_for_function(f"document.querySelector('.lt-sline[data-line=\"{line}\"] .lt-srender')")
            shown.append(page.locator(f'.lt-sline[data-line="{line}"] .lt-srender li').all_inner_texts())
            page.keyboard.press("ArrowRight")
        assert shown == [
            ["run the lecture"],
            ["run the lecture", "commit the trace"],
            ["run the lecture", "commit the trace", "publish the site"],
        ]
