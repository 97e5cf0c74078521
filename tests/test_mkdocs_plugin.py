"""The real `mkdocs build --strict` on a temporary copy of the site with traces of fixture lectures."""

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from traced import REPO, trace_all, trace_path

HAS_VIEWER = importlib.util.find_spec("tracer.site.viewer_data") is not None


def make_project(root: Path, traces: list[Path]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / "mkdocs.yml", root / "mkdocs.yml")
    for part in ("docs",):
        shutil.copytree(REPO / "site" / part, root / "site" / part)
    shutil.copytree(REPO / "tests" / "lectures", root / "tests" / "lectures")  # images the traces show
    (root / "site" / "traces").mkdir(parents=True)
    for trace in traces:
        shutil.copy(trace, root / "site" / "traces" / trace.name)
    if not HAS_VIEWER:
        config = (root / "mkdocs.yml").read_text()
        (root / "mkdocs.yml").write_text(config.replace("  - lectrace\n", "  - lectrace:\n      step_mode: false\n"))
    return root


def build(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=root, capture_output=True,
                          text=True, timeout=180, env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"})


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    trace_all("site_basics", "site_error")
    root = make_project(tmp_path_factory.mktemp("proj"), [trace_path("site_basics"), trace_path("site_error")])
    result = build(root)
    assert result.returncode == 0, result.stderr
    assert "WARNING" not in result.stderr
    return root / "build" / "site"


def page(site: Path, name: str) -> str:
    return (site / "lectures" / name / "index.html").read_text(encoding="utf-8")


def test_a_page_per_trace_and_a_home_listing(site):
    assert (site / "lectures" / "site_basics" / "index.html").is_file()
    assert (site / "lectures" / "site_error" / "index.html").is_file()
    home = (site / "index.html").read_text(encoding="utf-8")
    assert 'href="./lectures/site_basics/"' in home and ">Site basics</a>" in home
    basics = json.loads(trace_path("site_basics").read_text())
    assert f"{len(basics['steps'])} steps" in home
    assert "<li>Tensors</li>" in home and "<li>Values</li>" in home  # section headings
    assert "tests/lectures/site_basics.py" in home and "CPU" in home
    assert "stopped with an error" in home


def test_toc_comes_from_text_headings(site):
    html = page(site, "site_basics")
    toc = html[html.index('data-md-component="toc"'):]
    assert 'href="#tensors"' in toc and 'href="#values"' in toc
    assert re.search(r'<h2 id="tensors">Tensors', html)
    assert html.index("<h1") < html.index("lt-code")  # the title goes first even though helpers precede main


def test_read_mode_document(site):
    html = page(site, "site_basics")
    # code lines carry anchors; text() lines show their rendering instead of their code
    assert 'id="L17"' in html and 'id="L18"' in html
    assert 'text(&quot;## Tensors&quot;)' not in html and "text(</span>" not in html
    assert "secret_setup" not in html  # @hide
    assert 'data-runs="×5"' in html and "ran 5 times" in html
    assert 'class="admonition note"' in html and "Transposing shares storage." in html
    assert 'href="#L9"' in html  # link(double) jumps to its code
    assert 'href="https://example.org/paper">A paper</a>' in html
    assert "shares storage with <code>x</code>" in html
    assert "rows=3" in html and "cols=2" in html
    assert "offset = 0 + i·1 + j·2" in html  # y = x.T
    assert "Python 3" in html and "torch 2" in html and "CPU" in html


def test_string_values_are_escaped(site):
    html = page(site, "site_basics")
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_math_renders_as_mathml(site):
    html = page(site, "site_basics")
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">' in html
    assert 'display="block"' in html
    assert "$E = mc^2$" not in html


def test_images_sources_and_assets_reach_the_site(site):
    html = page(site, "site_basics")
    assert 'src="../../assets/tests/lectures/images/dot.svg"' in html
    assert (site / "assets" / "tests" / "lectures" / "images" / "dot.svg").is_file()
    assert (site / "assets" / "lectrace" / "site.css").is_file()
    assert "assets/lectrace/site.css" in html
    source = (site / "lectures" / "site_basics" / "source.html").read_text()
    assert 'id="L17"' in source
    assert 'href="../../lectures/site_basics/source.html"' in html


def test_memory_chart_links_steps(site):
    html = page(site, "site_basics")
    assert "CPU memory of recorded tensors" in html
    assert re.search(r'<a href="#step=\d+" class="lt-memory-point">', html)


def test_error_step_shows_error_with_traceback(site):
    html = page(site, "site_error")
    assert "lt-error" in html and "ValueError" in html and "no &lt;good&gt;" in html
    assert 'href="#L9">tests/lectures/site_error.py:9</a>' in html


def test_search_indexes_prose(site):
    index = json.loads((site / "search" / "search_index.json").read_text())
    text = " ".join(doc["text"] for doc in index["docs"])
    assert "Transposing shares storage" in text


def test_step_data_written(site):
    if not HAS_VIEWER:
        pytest.skip("tracer/site/viewer_data.py not there yet")
    assert (site / "lectures" / "site_basics" / "data.js").is_file()


def test_corrupt_trace_fails_the_build_naming_the_file(tmp_path):
    trace_all("site_basics")
    root = make_project(tmp_path, [trace_path("site_basics")])
    (root / "site" / "traces" / "broken.json").write_text('{"schema_version": 1, "lecture": ')
    result = build(root)
    assert result.returncode != 0
    assert "broken.json" in result.stderr and "not valid JSON" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (root / "build" / "site" / "index.html").exists()


def test_invalid_trace_fails_the_build_with_the_reason(tmp_path):
    trace = json.loads(trace_path("site_basics").read_text())
    del trace["steps"][0]["memory"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(trace))
    root = make_project(tmp_path / "proj", [bad])
    result = build(root)
    assert result.returncode != 0
    assert "bad.json" in result.stderr and "memory" in result.stderr
    assert "Traceback" not in result.stderr
