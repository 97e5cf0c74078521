"""chalktrace export --html: one self-contained file made from the real site build, opened from disk
in Chromium with JavaScript on and off; and export's one-line refusals that write nothing."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest

from helpers.projects import make_project
from helpers.site import build_site
from helpers.traced import trace_path
from tracer.commands.single_file import ExportError, single_file_html
from tracer.site.markdown_ext.sanitize import content_security_policy

SECRET = "EXPORT-SECRET-NOTE"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("site")
    return build_site(root, [trace_path("export_demo")])


@pytest.fixture(scope="module")
def exported(built, tmp_path_factory):
    html = single_file_html(built, built / "lectures" / "export_demo" / "index.html")
    path = tmp_path_factory.mktemp("export") / "export_demo.html"
    path.write_text(html, encoding="utf-8")
    return path


def test_the_file_names_no_other_file_and_holds_no_speaker_note(exported):
    html = exported.read_text(encoding="utf-8")
    for ref in re.findall(r'\b(?:src|href)="([^"]*)"', html):
        assert ref.startswith(("#", "data:", "https:", "http:", "mailto:")), ref
    assert re.search(r"<link\b[^>]*rel=\"stylesheet\"", html) is None
    assert 'src="data:image/svg+xml;base64,' in html  # the lecture's image
    assert "window.CHALKTRACE_DATA" in html  # the step data
    assert SECRET not in html


def test_the_file_is_under_the_site_s_policy_computed_over_its_inline_scripts(exported):
    html = exported.read_text(encoding="utf-8")
    meta = re.search(r'<head>\n<meta http-equiv="Content-Security-Policy" content="([^"]*)">\n', html)
    assert meta is not None
    assert meta.group(1) == content_security_policy(html.replace(meta.group(0), "<head>\n"))
    assert "'unsafe-inline'" not in meta.group(1) and meta.group(1).count("'sha256-") >= 4


def open_from_disk(browser, path, *, javascript: bool):
    context = browser.new_context(java_script_enabled=javascript, viewport={"width": 1280, "height": 720})
    page = context.new_page()
    requests: list[str] = []
    problems: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    page.on("console", lambda message: problems.append(message.text) if message.type in ("error", "warning") else None)
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return context, page, requests, problems


def assert_read_mode_is_complete(page):
    assert page.is_visible("h2:has-text('Setup')") and page.is_visible("h2:has-text('Results')")
    read = page.locator(".lt-read")
    assert read.locator(".lt-value[data-name='r']").is_visible() and read.locator(".lt-value[data-name='area']").is_visible()
    assert read.locator("math").first.is_visible()
    image = read.locator("img[alt='one red pixel']")
    assert image.is_visible() and image.evaluate("img => img.complete && img.naturalWidth > 0")
    plot = read.locator(".lt-plot img, .lt-plot svg").first
    assert plot.is_visible()


def test_from_disk_with_javascript_it_steps_and_reads_and_asks_for_nothing(browser, exported):
    context, page, requests, problems = open_from_disk(browser, exported, javascript=True)
    assert_read_mode_is_complete(page)
    page.click("text=Step through")
    assert page.is_visible(".lt-viewer")
    first = page.get_attribute(".lt-viewer .lt-sline.lt-current", "data-line")
    for _ in range(6):  # into setup(), past r = 2
        page.keyboard.press("ArrowRight")
    assert page.get_attribute(".lt-viewer .lt-sline.lt-current", "data-line") != first
    assert page.is_visible(".lt-v-vars .lt-v-card[data-name='r']")
    page.keyboard.press("Escape")
    assert not page.is_visible(".lt-viewer")
    assert_read_mode_is_complete(page)
    assert requests == [exported.as_uri()]
    assert problems == []
    context.close()


def test_from_disk_without_javascript_read_mode_is_complete(browser, exported):
    context, page, requests, problems = open_from_disk(browser, exported, javascript=False)
    assert_read_mode_is_complete(page)
    assert not page.is_visible(".lt-stepper")
    assert requests == [exported.as_uri()] and problems == []
    context.close()


def test_a_file_the_page_names_but_the_build_lacks_is_named(built, tmp_path):
    site = tmp_path / "site"
    shutil.copytree(built, site)
    (site / "lectures" / "export_demo" / "data.js").unlink()
    with pytest.raises(ExportError, match=r"index\.html: names data\.js, which the build did not write"):
        single_file_html(site, site / "lectures" / "export_demo" / "index.html")


def export(root, *args):
    done = subprocess.run(
        [sys.executable, "-m", "tracer", "export", *args], cwd=root, capture_output=True, text=True, timeout=300
    )
    return done.returncode, done.stdout, done.stderr


@pytest.fixture
def course(tmp_path):
    root = make_project(tmp_path / "course")
    (root / "mkdocs.yml").write_text(
        "site_name: scratch\ndocs_dir: site/docs\nsite_dir: build/site\ntheme:\n  name: material\nplugins:\n  - chalktrace\n",
        encoding="utf-8",
    )
    (root / "site" / "docs").mkdir(parents=True)
    (root / "site" / "docs" / "index.md").write_text("# Scratch\n", encoding="utf-8")
    return root


def test_bad_input_is_one_line_naming_it_and_keeps_the_previous_file(course):
    previous = course / "out.html"
    previous.write_text("the previous export", encoding="utf-8")
    code, _out, err = export(course, "nope", "--html", "-o", "out.html")
    assert code == 2 and err.splitlines() == ["chalktrace export: nope: no such lecture in lectures/; nothing written"]
    code, _out, err = export(course, "a", "--html", "-o", "lectures")
    assert code == 2 and err.splitlines() == [
        "chalktrace export: lectures: is a folder; -o takes the file to write (e.g. a.html)"
    ]
    code, _out, err = export(course, "a", "-o", "out.html")
    assert code == 2 and "one of the arguments --html --pdf is required" in err
    code, _out, err = export(course, "a", "--html", "--layout", "slides", "-o", "out.html")
    assert code == 2 and err.splitlines() == ["chalktrace export: --layout and --notes go with --pdf; nothing written"]
    code, _out, err = export(course, "a", "--pdf", "--notes", "-o", "out.html")
    assert code == 2 and err.splitlines() == [
        "chalktrace export: --notes goes with --layout slides (a handout never holds speaker notes); nothing written"
    ]
    assert previous.read_text(encoding="utf-8") == "the previous export"
    assert sorted(p.name for p in course.iterdir()) == ["lectures", "mkdocs.yml", "out.html", "pyproject.toml", "site"]


def test_export_builds_a_stale_course_then_writes_the_file(course):
    code, out, err = export(course, "lectures/a.py", "--html", "-o", "handout/a.html")
    assert code == 0, err
    written = course / "handout" / "a.html"
    assert out.strip().startswith(f"chalktrace export: wrote handout/a.html ({written.stat().st_size:,} bytes)")
    html = written.read_text(encoding="utf-8")
    assert "window.CHALKTRACE_DATA" in html and "total is" in html
    assert [p.name for p in written.parent.iterdir()] == ["a.html"]  # no temporary file left beside it
    code, out, err = export(course, "a", "--pdf", "-o", "handout/a.pdf")
    assert code == 0, err
    assert (course / "handout" / "a.pdf").read_bytes().startswith(b"%PDF-")
    assert sorted(p.name for p in written.parent.iterdir()) == ["a.html", "a.pdf"]


def test_a_hostile_lecture_s_file_stays_sanitized_and_runs_no_injected_script(tmp_path, browser):
    from helpers.xss_attacks import live_content

    site = build_site(tmp_path / "hostile", [trace_path("hostile/xss_text")])
    html = single_file_html(site, site / "lectures" / "xss_text" / "index.html")
    assert live_content(html) == []
    path = tmp_path / "xss_text.html"
    path.write_text(html, encoding="utf-8")
    context, page, requests, problems = open_from_disk(browser, path, javascript=True)
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    protocols = page.evaluate("[...new Set([...document.querySelectorAll('a[href]')].map(a => a.protocol))]")
    assert set(protocols) <= {"file:", "https:", "http:", "mailto:"}  # no link runs script (no javascript: URL)
    page.goto(path.as_uri() + "#step=0")
    page.keyboard.press("End")  # step mode, the last step: every rendering shown
    page.wait_for_timeout(100)
    assert dialogs == [] and problems == []
    assert all(url.startswith(path.as_uri()) for url in requests)
    context.close()
