"""A course written for edtrace, used in its own layout: tests/courses/edtrace_root_course, with no
file moved or edited. build, check and serve run in it (started from a subfolder: the lecture still
runs in the course root); arXiv and image hosts are a local server (tests never touch the network)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from helpers.fake_hosts import hosts
from helpers.network import fetch, free_port, wait_until_served
from helpers.site import REPO
from tracer.contract.trace_reading import load_trace

COURSE = REPO / "tests" / "courses" / "edtrace_root_course"
BUILT = ("traces", "site", "chalktrace", "vocabulary.txt", "vocabulary.svg", "timings.txt")


def copy_course(tmp: Path) -> Path:
    root = tmp / "course"
    shutil.copytree(COURSE, root, ignore=shutil.ignore_patterns("__pycache__", "cache", *BUILT))
    return root


def digests(root: Path) -> dict[str, str]:
    """Every file of the course as committed (not var/ outputs), by content."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in root.rglob("*")
        if p.is_file()
        and "__pycache__" not in p.parts
        and not p.relative_to(root).as_posix().startswith(("var/", "cache/"))
        or (p.is_file() and p.relative_to(root).as_posix().startswith("var/files/"))
    }


def chalktrace(root: Path, *args: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in ("CHALKTRACE_OFFLINE", "CHALKTRACE_FETCH_VIA")}
    environment.update(env, NO_MKDOCS_2_WARNING="1")
    return subprocess.run(
        [sys.executable, "-m", "tracer", *args], cwd=cwd or root, env=environment, capture_output=True, text=True, timeout=300
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The course built once, from its images/ folder, with arXiv and image hosts served locally."""
    root = copy_course(tmp_path_factory.mktemp("edtrace-layout"))
    before = digests(root)
    with hosts() as served:
        done = chalktrace(root, "build", "-q", cwd=root / "images", CHALKTRACE_FETCH_VIA=served.url)
    return root, before, done, served.requests


def test_build_traces_into_var_traces_and_builds_the_site_in_var_site(built):
    root, before, done, _requests = built
    assert done.returncode == 0, done.stderr
    assert "chalktrace: site built in var/site/" in done.stderr
    for name in ("lecture_01", "lecture_02"):
        assert load_trace(root / "var" / "traces" / f"{name}.json")["status"] == "ok"
        assert (root / "var" / "site" / "lectures" / name / "index.html").is_file()
    assert sorted(p.name for p in (root / "var" / "traces").glob("*.json")) == ["lecture_01.json", "lecture_02.json"]
    assert not (root / "lectures").exists() and not (root / "site").exists() and not (root / "build").exists()


def test_arxiv_is_asked_once_for_every_paper_not_in_edtraces_cache(built):
    root, _before, _done, requests = built
    asked_all = [r for r in requests if r.startswith("/export.arxiv.org/")]
    assert len(asked_all) == 1, asked_all  # two lectures, 12 papers: one query
    (asked,) = asked_all
    ids = parse_qs(urlsplit(asked).query)["id_list"][0].split(",")
    assert sorted(ids) == [f"9903.{n:05d}" for n in range(1, 13) if n != 3]  # 9903.00003 is in var/files/
    trace = load_trace(root / "var" / "traces" / "lecture_01.json")
    titles = {r.get("title") for s in trace["steps"] for r in s["renderings"] if r["type"] == "link"}
    assert {"Made-up Paper Number 1", "Hashing Words Into Buckets", "Notes on word frequencies"} <= titles
    images = [r for s in trace["steps"] for r in s["renderings"] if r["type"] == "image"]
    assert [i["data"].startswith("var/files/image-") for i in images] == [False, True, False]  # zipf.png from var/files/


def test_no_file_of_the_course_is_moved_or_edited(built):
    root, before, _done, _requests = built
    assert digests(root) == before


def test_the_lecture_runs_in_the_course_root_and_var_exists_before_it_starts(built):
    root, _before, _done, _requests = built
    # started in images/: the lecture's open("var/vocabulary.txt", "w") still lands in the course's var/
    assert (root / "var" / "vocabulary.txt").read_text(encoding="utf-8").startswith("and\t1\n")
    assert not (root / "images" / "var").exists()
    trace = load_trace(root / "var" / "traces" / "lecture_01.json")
    assert not any(source.startswith("var/") for source in trace["sources"])  # what a lecture writes is output


def test_directives_read_as_edtrace_reads_them(built):
    root, _before, _done, _requests = built
    trace = load_trace(root / "var" / "traces" / "lecture_01.json")
    assert not [w for w in trace["warnings"] if "@inspect" in w]  # "# ties go to…" after a second # is prose
    lines = (COURSE / "lecture_01.py").read_text(encoding="utf-8").splitlines()
    (top_line,) = [n for n, text in enumerate(lines, 1) if "# @inspect top #" in text]
    (scratch_line,) = [n for n, text in enumerate(lines, 1) if "@clear scratch" in text]
    top_steps = [s for s in trace["steps"] if s["stack"][-1]["line"] == top_line and s.get("env")]
    assert [list(s["env"]) for s in top_steps] == [["top"]]
    (tally,) = [s["env"]["tally"] for s in trace["steps"] if "tally" in (s.get("env") or {})]
    assert tally["type"] == "view" and tally["value"]["items"][0][1] == {"type": "int", "value": 5}  # asdict(): 5 distinct words
    scratch_steps = [s for s in trace["steps"] if s["stack"][-1]["line"] == scratch_line]
    assert scratch_steps and all("scratch" not in (s.get("env") or {}) for s in scratch_steps)
    assert all(s.get("clear") == ["scratch"] for s in scratch_steps)


def test_build_and_check_pass_in_a_fresh_clone_offline(built, tmp_path):
    root, _before, done, _requests = built
    assert done.returncode == 0, done.stderr
    clone = tmp_path / "clone"
    shutil.copytree(root, clone, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("vocabulary.txt", "vocabulary.svg", "timings.txt", "site", "chalktrace"):  # git ignores var/
        target = clone / "var" / name
        shutil.rmtree(target) if target.is_dir() else target.unlink()
    rebuilt = chalktrace(clone, "build", "-q", CHALKTRACE_OFFLINE="1")  # lecture_01's page shows var/vocabulary.svg
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert "re-tracing 1 of 2 lectures" in rebuilt.stderr and (clone / "var" / "vocabulary.svg").is_file()
    (clone / "var" / "vocabulary.svg").unlink()
    checked = chalktrace(clone, "check", "-q", CHALKTRACE_OFFLINE="1")
    assert checked.returncode == 0, checked.stderr
    assert "2 lecture(s) run, every committed trace fresh and valid" in checked.stderr


def test_serve_serves_the_course_in_place(built):
    root, _before, done, _requests = built
    assert done.returncode == 0, done.stderr
    port = free_port()
    environment = dict(os.environ, CHALKTRACE_OFFLINE="1", NO_MKDOCS_2_WARNING="1")
    server = subprocess.Popen(
        [sys.executable, "-m", "tracer", "serve", "-a", f"127.0.0.1:{port}"],
        cwd=root,
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        wait_until_served(f"http://127.0.0.1:{port}/lectures/lecture_02/", server, 240)
        home = fetch(f"http://127.0.0.1:{port}/")
        assert home is not None and "lectures/lecture_01/" in home and "lectures/lecture_02/" in home
        assert "Counting words" in (fetch(f"http://127.0.0.1:{port}/lectures/lecture_01/") or "")
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(30)


def test_init_here_writes_one_file_and_build_follows_it(tmp_path):
    root = copy_course(tmp_path)
    before = sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))
    done = chalktrace(root, "init", "--here")
    assert done.returncode == 0, done.stderr
    after = sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))
    assert sorted(set(after) - set(before)) == ["chalktrace.toml"] and set(before) <= set(after)
    again = chalktrace(root, "init", "--here")
    assert (
        again.returncode == 2 and again.stderr.strip() == f"chalktrace: {root}/chalktrace.toml: already exists; edit it instead"
    )
    text = (root / "chalktrace.toml").read_text(encoding="utf-8")
    text = text.replace('traces = "var/traces"', 'traces = "site/traces"')
    text = text.replace('# [alt_text]\n# "images/diagram.png"', '[alt_text]\n"images/clock.png"')
    (root / "chalktrace.toml").write_text(text, encoding="utf-8")
    ran = chalktrace(root, "run", "lecture_02.py", "-q", CHALKTRACE_OFFLINE="1")
    assert ran.returncode == 0, ran.stderr
    trace = json.loads((root / "site" / "traces" / "lecture_02.json").read_text(encoding="utf-8"))
    assert trace["status"] == "ok"
    (clock,) = [r for s in trace["steps"] for r in s["renderings"] if r["type"] == "image"]
    assert clock["alt"] == "What the diagram shows"  # given by the course, the lecture unchanged


def test_a_lenient_course_is_warned_where_a_strict_one_fails(tmp_path):
    root = copy_course(tmp_path)
    lecture = root / "lecture_02.py"
    lecture.write_text(lecture.read_text(encoding="utf-8").replace("# @inspect same", "# @inspect same sme"), encoding="utf-8")
    with hosts() as served:
        built = chalktrace(root, "build", "-q", "--no-site", CHALKTRACE_FETCH_VIA=served.url)
    checked = chalktrace(root, "check", "-q", CHALKTRACE_OFFLINE="1")
    assert built.returncode == 0 and checked.returncode == 0, built.stderr + checked.stderr
    line = next(n for n, text in enumerate(lecture.read_text(encoding="utf-8").splitlines(), 1) if "sme" in text)
    assert f"lecture_02.py:{line}: warning: @inspect sme: NameError: name 'sme' is not defined" in checked.stderr
    assert "lecture_02.py:19: warning: image images/clock.png has no alt text" in checked.stderr
    (root / "chalktrace.toml").write_text('layout = "edtrace"\nlenient = false\n', encoding="utf-8")
    strict = chalktrace(root, "check", "-q", CHALKTRACE_OFFLINE="1")
    assert strict.returncode == 3
    assert f"lecture_02.py:{line}: @inspect sme: NameError" in strict.stderr and "has no alt text" in strict.stderr


def test_an_argument_error_names_the_function_as_called_and_the_helpers_line(tmp_path):
    root = copy_course(tmp_path)
    lecture = root / "lecture_01.py"
    text = lecture.read_text(encoding="utf-8")
    lecture.write_text(text.replace('to var/vocabulary.txt.")', 'to var/vocabulary.txt.", verbatim=True)'), encoding="utf-8")
    ran = chalktrace(root, "run", "lecture_01.py", "-q", CHALKTRACE_OFFLINE="1")
    helper_line = next(n for n, t in enumerate((root / "lecture_util.py").read_text().splitlines(), 1) if "verbatim=True" in t)
    assert ran.returncode == 1
    assert f"lecture_util.py:{helper_line}: TypeError: text() got multiple values for keyword argument 'verbatim'" in ran.stderr
    error = load_trace(root / "var" / "traces" / "lecture_01.json")["error"]
    assert error["message"] == "text() got multiple values for keyword argument 'verbatim'"


def test_one_lecture_is_tried_as_edtrace_runs_one(tmp_path):
    root = copy_course(tmp_path)
    with hosts() as served:
        done = subprocess.run(
            [sys.executable, "-m", "tracer.execute", "-m", "lecture_02", "--no-open"],
            cwd=root,
            env=dict(os.environ, CHALKTRACE_FETCH_VIA=served.url, NO_MKDOCS_2_WARNING="1"),
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert done.returncode == 0, done.stderr
    assert done.stderr.rstrip().endswith("chalktrace: var/site/lectures/lecture_02/index.html")
    assert load_trace(root / "var" / "traces" / "lecture_02.json")["status"] == "ok"
    assert not (root / "var" / "traces" / "lecture_01.json").exists()  # only the one lecture is traced
    assert "Timing code" in (root / "var" / "site" / "lectures" / "lecture_02" / "index.html").read_text(encoding="utf-8")
    missing = chalktrace(root, "execute", "-m", "lecture_99", "--no-open")
    assert (
        missing.returncode == 2 and missing.stderr.strip() == "chalktrace execute: -m lecture_99: no lecture file lecture_99.py"
    )
