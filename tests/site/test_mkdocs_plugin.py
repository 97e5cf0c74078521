"""The real `mkdocs build --strict` on a temporary copy of the site with traces of fixture lectures."""

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.site import site_project
from helpers.traced import REPO, as_gpu_run, trace_all, trace_path

HAS_VIEWER = importlib.util.find_spec("tracer.site.pages.viewer_data") is not None


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
        (root / "mkdocs.yml").write_text(config.replace("  - chalktrace\n", "  - chalktrace:\n      step_mode: false\n"))
    return root


def build_env() -> dict[str, str]:
    return {"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"}


def build(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=180,
        env=build_env(),
    )


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
    toc = html[html.index('data-md-component="toc"') :]
    assert 'href="#tensors"' in toc and 'href="#values"' in toc
    assert re.search(r'<h2 id="tensors">Tensors', html)
    assert html.index("<h1") < html.index("lt-code")  # the title goes first even though helpers precede main


def test_read_mode_document(site):
    html = page(site, "site_basics")
    # code lines carry anchors; text() lines show their rendering instead of their code
    assert 'id="L17"' in html and 'id="L18"' in html
    assert "text(&quot;## Tensors&quot;)" not in html and "text(</span>" not in html
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
    assert (site / "assets" / "chalktrace" / "site.css").is_file()
    assert "assets/chalktrace/site.css" in html
    source = (site / "lectures" / "site_basics" / "source.html").read_text()
    assert 'id="L17"' in source
    assert 'href="../../lectures/site_basics/source.html"' in html


def test_memory_chart_links_steps(site):
    html = page(site, "site_basics")
    assert "CPU memory of recorded tensors" in html
    points = re.findall(
        r'<a href="#step=\d+" class="lt-memory-point"( tabindex="-1")?><circle [^>]+><title>step \d+: [^<]+</title>', html
    )
    assert len(points) > 1 and points[0] == "" and set(points[1:]) == {' tabindex="-1"'}  # one Tab stop: the first
    table = re.search(r'<details class="lt-memory-table">.*?</details>', html, re.S).group(0)
    rows = re.findall(r'<tr><td><a href="#step=(\d+)">\d+</a>(?:–\d+)?<td>([^<]+)', table)
    # a row per run of points with the same memory: the memory changes from each row to the next
    assert 1 < len(rows) <= len(points) and rows[0][0] == "0"
    assert all(a[1] != b[1] for a, b in zip(rows, rows[1:]))


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
        pytest.skip("tracer/site/pages/viewer_data.py not there yet")
    assert (site / "lectures" / "site_basics" / "data.js").is_file()


def test_corrupt_trace_gets_an_error_card_and_the_other_pages_build(tmp_path):
    trace_all("site_basics")
    root = make_project(tmp_path, [trace_path("site_basics")])
    (root / "site" / "traces" / "broken.json").write_text('{"schema_version": 1, "lecture": ')
    result = build(root)
    assert result.returncode == 0, result.stderr
    assert "broken.json" in result.stderr and "not valid JSON" in result.stderr
    assert "Traceback" not in result.stderr
    broken = (root / "build" / "site" / "lectures" / "broken" / "index.html").read_text()
    assert "lt-page-error" in broken and "site/traces/broken.json: not valid JSON" in broken
    assert str(root) not in broken  # no absolute paths of the building machine
    assert "lt-read" in (root / "build" / "site" / "lectures" / "site_basics" / "index.html").read_text()
    home = (root / "build" / "site" / "index.html").read_text()
    assert "its page could not be built" in home


def test_a_page_that_cannot_be_built_fails_the_build_when_asked(tmp_path):
    # `chalktrace build` asks (paths.FAIL_ON_BROKEN_PAGES_ENV): the error card alone must not pass for a site
    trace_all("site_basics")
    root = make_project(tmp_path, [trace_path("site_basics")])
    (root / "site" / "traces" / "broken.json").write_text('{"schema_version": 1, "lecture": ')
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=180,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin", "CHALKTRACE_FAIL_ON_BROKEN_PAGES": "1"},
    )
    assert result.returncode != 0
    assert "1 lecture page(s) could not be built" in result.stderr and "broken.json" in result.stderr
    assert "Traceback" not in result.stderr


def test_invalid_trace_gets_an_error_card_with_the_reason(tmp_path):
    trace = json.loads(trace_path("site_basics").read_text())
    del trace["steps"][0]["memory"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(trace))
    root = make_project(tmp_path / "proj", [bad])
    result = build(root)
    assert result.returncode == 0, result.stderr
    assert "bad.json" in result.stderr and "memory" in result.stderr
    assert "Traceback" not in result.stderr
    page_html = (root / "build" / "site" / "lectures" / "bad" / "index.html").read_text()
    assert "lt-page-error" in page_html and "memory" in page_html


def test_a_trace_that_breaks_the_renderer_gets_an_error_card(tmp_path):
    trace_all("site_basics")
    trace = json.loads(trace_path("site_basics").read_text())
    trace["lecture"]["name"] = "unrenderable"
    # Valid by the schema (which does not describe a list's items), but no card can be made of it.
    trace["steps"][0]["env"]["broken"] = {"type": "list", "items": "abc", "length": 3}
    bad = tmp_path / "unrenderable.json"
    bad.write_text(json.dumps(trace))
    root = make_project(tmp_path / "proj", [trace_path("site_basics"), bad])
    result = build(root)
    assert result.returncode == 0, result.stderr
    page_html = (root / "build" / "site" / "lectures" / "unrenderable" / "index.html").read_text()
    assert "lt-page-error" in page_html
    assert "lt-read" in (root / "build" / "site" / "lectures" / "site_basics" / "index.html").read_text()


@pytest.mark.parametrize("name", ["..", "index", "assets"])
def test_a_trace_whose_lecture_name_is_a_path_step_or_reserved_writes_nothing_outside_its_page(tmp_path, name):
    trace_all("site_basics")
    trace = json.loads(trace_path("site_basics").read_text())
    trace["lecture"]["name"] = name
    hostile = tmp_path / "hostile.json"
    hostile.write_text(json.dumps(trace))
    root = make_project(tmp_path / "proj", [hostile])
    result = build(root)
    assert result.returncode == 0, result.stderr
    built = root / "build" / "site"
    assert f"site/traces/hostile.json: lecture the name {name!r}" in result.stderr
    assert not (built / "data.js").exists() and not (built / "source.html").exists()
    assert not (built / "lectures" / "data.js").exists()
    assert "lt-page-error" in (built / "lectures" / "hostile" / "index.html").read_text()


def test_a_local_image_that_is_not_media_by_its_name_is_never_published(tmp_path):
    trace_all("site_basics")
    trace = json.loads(trace_path("site_basics").read_text())
    trace["lecture"]["name"] = "pages_as_images"
    trace["steps"][0]["renderings"].append(
        {"type": "image", "data": "tests/lectures/page.html", "external": False, "width": None}
    )
    hostile = tmp_path / "pages_as_images.json"
    hostile.write_text(json.dumps(trace))
    root = make_project(tmp_path / "proj", [hostile])
    (root / "tests" / "lectures" / "page.html").write_text("<script>alert(document.cookie)</script>")
    result = build(root)
    assert result.returncode == 0, result.stderr
    assert "tests/lectures/page.html: not an image or video file by its name" in result.stderr
    built = root / "build" / "site"
    assert not list(built.rglob("page.html"))
    assert "lt-page-error" in (built / "lectures" / "pages_as_images" / "index.html").read_text()


@pytest.fixture(scope="module")
def authoring_site(tmp_path_factory):
    root = make_project(tmp_path_factory.mktemp("authoring"), [trace_path("authoring_site")])
    result = build(root)
    assert result.returncode == 0, result.stderr
    return root / "build" / "site"


def code_text(html: str) -> str:
    """The text of the page's code blocks, tags and entities removed."""
    blocks = re.findall(r'<pre class="lt-code"[^>]*>(.*?)</pre>', html, re.S)
    return re.sub(r"<[^>]+>", "", "\n".join(blocks)).replace("&quot;", '"').replace("&#39;", "'")


def test_page_shows_compact_citation_with_details_panel(authoring_site):
    html = page(authoring_site, "authoring_site")
    # text("See"), link(KAPLAN) on one line: one paragraph, the citation compact, details in its panel
    para = re.search(r"<p>See <span class=\"lt-cite\">.*?</p>", html, re.S)
    assert para, "the rendering-only line is one paragraph"
    assert '<a class="lt-cite-label" href="https://arxiv.org/abs/2001.08361">[Kaplan+ 2020]</a>' in para.group(0)
    panel = re.search(r'<span class="lt-cite-panel"[^>]*>(.*?)</span></span>', para.group(0), re.S).group(1)
    for detail in ("Scaling Laws for Neural Language Models", "Jared Kaplan, Sam McCandlish", "2020-01-23", "the 6ND rule"):
        assert detail in panel
    # the panel opens with CSS alone (hover or keyboard focus)
    css = (authoring_site / "assets" / "chalktrace" / "site.css").read_text()
    assert ".lt-cite:focus-within > .lt-cite-panel" in css and ".lt-cite:hover > .lt-cite-panel" in css


def test_page_hides_directive_comments_and_rendering_only_code(authoring_site):
    html = page(authoring_site, "authoring_site")
    code = code_text(html)
    assert "@inspect" not in code and "@" not in code.replace("@dataclass", "")
    assert "flops = 6 * params  # six FLOPs per parameter" in code  # the prose before a directive stays
    assert "params = 40000000000.0\n" in code  # a directive-only comment goes with its spaces
    assert "text(" not in code and "named_link(" not in code and "plot(" not in code
    assert '<a href="https://einops.rocks">einops</a>' in html  # the helper wrapper's link, as a paragraph
    source = (authoring_site / "lectures" / "authoring_site" / "source.html").read_text()
    assert "# @inspect params" in source  # the traced source keeps them


def test_page_formats_numbers_with_exact_value_on_hover(authoring_site):
    html = page(authoring_site, "authoring_site")
    assert (
        '<code class="lt-scalar lt-type-float" title="40000000000.0 (float)" data-exact="40000000000.0">'
        "<span>40,000,000,000</span></code>"
    ) in html
    assert '<code class="lt-scalar lt-type-float" title="float">1e-12</code>' in html  # already exact


def test_page_shows_verbatim_text_preformatted(authoring_site):
    html = page(authoring_site, "authoring_site")
    # (the indentation itself is the capture side's: text() keeps the author's whitespace)
    assert re.search(r'<pre class="lt-verbatim">usage:\n\s*indented line</pre>', html)


def test_plots_are_static_svg_files(authoring_site):
    html = page(authoring_site, "authoring_site")
    sources = re.findall(
        r'<img class="lt-plot-img lt-plot-light" src="\.\./\.\./(assets/chalktrace/plots/[0-9a-f]{16}\.svg)"', html
    )
    assert len(sources) == 2  # the layered and the faceted chart
    dark = re.findall(
        r'<img class="lt-plot-img lt-plot-dark" src="\.\./\.\./(assets/chalktrace/plots/[0-9a-f]{16}-dark\.svg)"', html
    )
    assert [src.removesuffix("-dark.svg") for src in dark] == [src.removesuffix(".svg") for src in sources]
    sources += dark  # each drawn for the dark scheme too, a file beside it
    for src in sources:
        svg = (authoring_site / src).read_text()
        assert svg.startswith("<svg") and "<script" not in svg and "http" not in svg.split(">", 1)[1]
    data_js = (authoring_site / "lectures" / "authoring_site" / "data.js").read_text()
    assert all(src in data_js for src in sources)  # step mode shows the same files


@pytest.fixture(scope="module")
def other_format_page(tmp_path_factory):
    """The page of the lecture written in the execute_util format (tests/lectures/execute_util_course)."""
    root = make_project(tmp_path_factory.mktemp("other"), [trace_path("execute_util_course/other_format")])
    result = build(root)
    assert result.returncode == 0, result.stderr
    return page(root / "build" / "site", "other_format")


def test_execute_util_lecture_page(other_format_page):
    html = other_format_page
    code = code_text(html)
    assert "@inspect" not in code and "@torch.no_grad()" in code  # directives go; the commented-out decorator stays
    assert "# the number of parameters" in code and "# second call, second entry step" in code
    assert "def add(a, b):\n" in code  # a def-line @inspect is hidden too
    assert "# a typo @inpsect odd" in code  # not a directive (the trace warns about it): shown as written
    # one paragraph for text("See"), link(add); the helper wrapper's link in place of its call
    assert re.search(r'<p>See <a class="lt-internal" href="#L29"[^>]*><code>add</code></a>', html)
    assert "named_link(" not in code and '<a href="https://pytorch.org">[PyTorch]</a>' in html
    cite = re.search(r'<span class="lt-cite">.*?</span></span>', html, re.S).group(0)
    assert ">[Kaplan+ 2020]</a>" in cite and "OpenAI" in cite and "Loss falls as a power law" in cite
    assert "Compute-optimal: 20 tokens per parameter" in html  # link(url, notes=...): in its panel
    assert '<span class="lt-prompt"' in html and "$ printf" in html  # system_text() with its command
    assert '<pre class="lt-verbatim">\n  $ ls\n  lecture.py   notes.md\n</pre>' in html


@pytest.fixture(scope="module")
def gpu_run_site(tmp_path_factory):
    trace_all("site_basics", "site_error")
    root = make_project(tmp_path_factory.mktemp("gpu_run"), [trace_path("site_basics"), trace_path("site_error")])
    gpu_runs = root / "site" / "traces" / "gpu"
    gpu_runs.mkdir()
    basics = json.loads(trace_path("site_basics").read_text())
    (gpu_runs / "site_basics.json").write_text(json.dumps(as_gpu_run(basics, basics["lecture"]["path"])))
    # not publishable: a CPU trace, and a run of no lecture
    shutil.copy(trace_path("site_error"), gpu_runs / "site_error.json")
    (gpu_runs / "nothing.json").write_text(json.dumps(as_gpu_run(basics, basics["lecture"]["path"])))
    result = build(root)
    assert result.returncode == 0, result.stderr
    return root / "build" / "site", result.stderr


def test_a_kept_gpu_run_gets_its_own_page_linked_both_ways(gpu_run_site):
    site, _log = gpu_run_site
    current, gpu_run = page(site, "site_basics"), page(site, "site_basics/gpu")
    assert "Traced without a GPU" in current and "An earlier run on NVIDIA H100 80GB HBM3" in gpu_run
    assert 'href="../../lectures/site_basics/gpu/"' in current
    assert 'href="../../../lectures/site_basics/"' in gpu_run
    for html in (current, gpu_run):
        assert "1 line of <code>tests/lectures/site_basics.py</code> differs between the two runs" in html
    assert "GPU NVIDIA H100 80GB HBM3" in gpu_run and "GPU NVIDIA" not in current  # each page's own environment
    assert "<title>Site basics (run on NVIDIA H100 80GB HBM3)" in gpu_run
    assert "lt-read" in gpu_run and 'src="data.js"' in gpu_run
    assert (site / "lectures" / "site_basics" / "gpu" / "data.js").is_file()
    source = (site / "lectures" / "site_basics" / "gpu" / "source.html").read_text()
    assert "# an earlier revision" in source and 'href="../../../assets/chalktrace/' in source


def test_a_kept_gpu_run_is_listed_with_its_lecture_not_in_the_nav(gpu_run_site):
    site, _log = gpu_run_site
    home = (site / "index.html").read_text()
    assert home.count("lectures/site_basics/gpu/") == 1  # the listing's link; no nav entry, no card of its own
    assert "earlier run on NVIDIA H100 80GB HBM3" in home
    assert "lectures/site_basics/gpu/" not in page(site, "site_error")


def test_a_kept_gpu_run_that_cannot_be_published_is_logged_and_left_out(gpu_run_site):
    site, log = gpu_run_site
    assert "site/traces/gpu/site_error.json: GPU run not published (not a CUDA trace)" in log
    assert "site/traces/gpu/nothing.json: GPU run not published (no page for lecture 'nothing'" in log
    assert not (site / "lectures" / "site_error" / "gpu").exists()
    assert not (site / "lectures" / "nothing").exists()
    assert "Traceback" not in log


def test_the_home_page_lists_lectures_in_the_nav_s_order(tmp_path):
    """mkdocs.yml ``nav:`` orders the lectures on the home page too (without it, file names do)."""
    import subprocess
    import sys

    course = tmp_path / "course"
    subprocess.run([sys.executable, "-m", "tracer", "init", str(course), "--title", "Systems: week one", "-q"], check=True)
    (course / "lectures" / "hello.py").unlink()
    for name, title in (("alpha", "Alpha"), ("zeta", "Zeta")):
        (course / "lectures" / f"{name}.py").write_text(f'from tracer import text\n\n\ndef main():\n    text("# {title}")\n')
    config = course / "mkdocs.yml"
    done = subprocess.run([sys.executable, "-m", "tracer", "build", "-q"], cwd=course, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    home = (course / "build" / "site" / "index.html").read_text(encoding="utf-8")
    assert home.index("lectures/alpha/") < home.index("lectures/zeta/")  # by file name
    # The title, written once as site_name, heads the home page (not MkDocs' "Home") and names its tab.
    assert re.search(r"<h1[^>]*>Systems: week one</h1>", home) and "<title>Systems: week one</title>" in home
    assert "Home" not in re.findall(r"<h1[^>]*>(.*?)</h1>", home)
    # the sidebar says it once, as its heading: the home page's own entry is "Home"
    sidebar = home[home.index('<nav class="md-nav md-nav--primary"') :]
    said = re.sub(r"<[^>]*>", " ", sidebar[: sidebar.index("</nav>")]).split()  # its text, without the markup
    assert " ".join(said).count("Systems: week one") == 1 and "Home" in said
    config.write_text(
        config.read_text(encoding="utf-8") + "\nnav:\n  - index.md\n  - lectures/zeta.md\n  - lectures/alpha.md\n",
        encoding="utf-8",
    )
    done = subprocess.run([sys.executable, "-m", "tracer", "build", "-q"], cwd=course, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    home = (course / "build" / "site" / "index.html").read_text(encoding="utf-8")
    listing = home.split('class="md-content"', 1)[1]
    assert listing.index("lectures/zeta/") < listing.index("lectures/alpha/")


def test_a_language_without_a_catalogue_builds_in_english_with_a_warning(tmp_path):
    trace_all("site_basics")
    root = make_project(tmp_path / "fr", [trace_path("site_basics")])
    config = (root / "mkdocs.yml").read_text()
    (root / "mkdocs.yml").write_text(
        config.replace("\ntheme:\n  name: material\n", "\ntheme:\n  name: material\n  language: fr\n")
    )
    strict = build(root)
    assert strict.returncode != 0  # a warning stops a strict build, as chalktrace build builds
    assert "theme.language 'fr' has no chalktrace interface catalogue" in strict.stderr and "English" in strict.stderr
    lenient = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build"], cwd=root, capture_output=True, text=True, timeout=180, env=build_env()
    )
    assert lenient.returncode == 0, lenient.stderr
    page = (root / "build" / "site" / "lectures" / "site_basics" / "index.html").read_text(encoding="utf-8")
    assert '<html lang="fr"' in page and ">Step through</button>" in page  # Material's French around chalktrace's English


@pytest.mark.parametrize("fails", [False, True])
def test_a_build_sets_its_traces_aside_from_the_collector_and_brings_them_back(tmp_path, monkeypatch, fails):
    import gc

    from mkdocs.commands.build import build as build_here
    from mkdocs.config import load_config

    from tracer.site import mkdocs_plugin

    trace_all("site_basics")
    project = site_project(tmp_path / "proj", [trace_path("site_basics")]).parent
    walked = []
    make_renderer = mkdocs_plugin.HtmlRenderer

    def renderer(trace, env):  # made right after its trace is loaded: is that trace in the collector's passes?
        walked.append(id(trace) in {id(thing) for thing in gc.get_objects()})
        return make_renderer(trace, env)

    monkeypatch.setattr(mkdocs_plugin, "HtmlRenderer", renderer)
    if fails:  # an error after the traces are loaded: MkDocs ends the build with on_build_error

        def on_nav(self, nav, config, files):
            raise RuntimeError("the nav cannot be built")

        monkeypatch.setattr(mkdocs_plugin.ChalktracePlugin, "on_nav", on_nav)
    monkeypatch.chdir(project)
    monkeypatch.setenv("NO_MKDOCS_2_WARNING", "1")
    gc.unfreeze()
    config = load_config(str(project / "mkdocs.yml"), strict=True)
    if fails:
        with pytest.raises(RuntimeError, match="the nav cannot be built"):
            build_here(config)
    else:
        build_here(config)
        assert (project / "build" / "site" / "lectures" / "site_basics" / "index.html").is_file()
    assert walked == [False]  # the loaded trace was set aside before anything walked it
    assert gc.get_freeze_count() == 0  # and brought back when the build ended, as it ended
