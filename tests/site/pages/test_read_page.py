import re

from markupsafe import Markup

from tracer.site.pages.read_page import ReadPage, fill_slots, note_markdown, relative_urls, root_for


def test_slots_survive_markdown_paragraph_wrapping():
    page = ReadPage(markdown="")
    marker = page.slot('<img src="{root}assets/a.png">')
    html = f"<h2>Intro</h2>\n<p>{marker}</p>\n<p>after</p>"
    assert fill_slots(html, page, "../../") == '<h2>Intro</h2>\n<img src="../../assets/a.png">\n<p>after</p>'


def test_author_text_shaped_like_a_slot_marker_stays_text():
    page = ReadPage(markdown="")
    marker = page.slot("<b>internal</b>")
    forged = "<p><!--lt-slot:0--> and <!--lt-slot:00000000:0--> and <!--lt-slot:%s:7--></p>" % page.nonce
    html = fill_slots(forged + marker, page, "./")
    assert html.count("<b>internal</b>") == 1 and html.startswith("<p><!--lt-slot:0--> and <!--lt-slot:00000000:0-->")
    assert ReadPage(markdown="").nonce != page.nonce  # a new nonce for every page built


def test_root_placeholder_only_in_urls():
    html = Markup('<a href="{root}x/">{root}</a><img src="{root}i.png">')
    assert relative_urls(html, "../") == '<a href="../x/">{root}</a><img src="../i.png">'


def test_root_for_page_urls():
    assert root_for("lectures/hello/") == "../../"
    assert root_for("") == "./"
    assert root_for("lectures/hello.html") == "../"


def test_note_markdown_is_an_admonition():
    assert note_markdown("one\n\ntwo") == "!!! note\n\n    one\n\n    two"


def test_a_loop_written_on_one_line_says_it_is_one_step(tmp_path):
    from tracer.capture.runner import run_lecture
    from tracer.site.cards.render import HtmlRenderer
    from tracer.site.cards.templates import template_env
    from tracer.site.pages.read_page import build_read_page
    from tracer.contract.trace_reading import load_trace

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'scratch'\n", encoding="utf-8")
    (tmp_path / "lectures").mkdir()
    lecture = tmp_path / "lectures" / "loops.py"
    lecture.write_text(
        "def main():\n    for i in range(3): y = i * 2  # @inspect y\n    for j in range(2):\n        z = j  # @inspect z\n",
        encoding="utf-8",
    )
    run_lecture(lecture, output=tmp_path / "t.json")
    trace = load_trace(tmp_path / "t.json")
    env = template_env()
    slots = [str(slot) for slot in build_read_page(trace, HtmlRenderer(trace, env), env).slots]
    noted = [slot for slot in slots if "a loop on one line is one step" in slot]
    assert len(noted) == 1 and "values after its last iteration" in noted[0]


def test_a_library_warning_is_folded_under_its_category_and_message():
    from tracer.site.cards.templates import template_env, template_macros
    from tracer.site.pages.read_page import warning_summary

    stderr = (
        "lectures/collectives.py:145: FutureWarning: `all_gather_into_tensor` is deprecated (from torch)\n"
        "lectures/collectives.py:145: UserWarning: again (from torch)\n"
    )
    assert warning_summary(stderr) == "FutureWarning: `all_gather_into_tensor` is deprecated (from torch) (and 1 more)"
    assert warning_summary("plain text on stderr\n") == ""
    macros = template_macros(template_env(), "page_parts.html.j2")
    folded = str(
        macros.annotation_body(cards=[], computes=[], errors=[], stdout="", stderr=stderr, warning=warning_summary(stderr))
    )
    assert folded.startswith('<details class="lt-warning-fold"><summary>FutureWarning: `all_gather_into_tensor`')
    assert "site-packages" not in folded and '<pre class="lt-stdout lt-stderr"' in folded
    plain = str(macros.annotation_body(cards=[], computes=[], errors=[], stdout="", stderr="plain\n", warning=""))
    assert "<details" not in plain and "plain" in plain


def test_a_failing_inspect_is_reported_once_as_its_warning_not_again_as_a_card():
    """``# @inspect v[5]`` past the end, ``# @inspect wx`` misspelt: the trace keeps a "missing"
    record for each (check and build fail on them, naming the line) and one warning each, which the
    page shows as its box; neither read mode nor step mode shows a second "not recorded" card (in step
    mode it was marked new, and stayed in the variables panel)."""
    from helpers.traced import line_of, traced
    from helpers.viewer_data import accumulated_env
    from tracer.site.cards.render import HtmlRenderer
    from tracer.site.cards.templates import template_env
    from tracer.site.pages.read_page import build_read_page
    from tracer.site.pages.viewer_data import build_viewer_data

    trace = traced("inspect_fails")
    recorded = {name: value["type"] for step in trace["steps"] for name, value in step["env"].items()}
    assert recorded == {"v[5]": "missing", "wx": "missing", "w": "int"}
    path = "tests/lectures/inspect_fails.py"
    assert [w for w in trace["warnings"] if "@inspect" in w] == [
        f"{path}:{line_of('inspect_fails', 'v[5]')}: @inspect v[5]: IndexError: list index out of range",
        f"{path}:{line_of('inspect_fails', 'wx')}: @inspect wx: NameError: name 'wx' is not defined. Did you mean: 'w'?",
    ]
    env = template_env()
    slots = "".join(str(slot) for slot in build_read_page(trace, HtmlRenderer(trace, env), env).slots)
    assert "not recorded" not in slots and 'data-name="w"' in slots
    data = build_viewer_data(trace, HtmlRenderer(trace, env))
    for step in range(data["count"]):
        assert set(accumulated_env(data, step)) <= {"w"}
    assert set(accumulated_env(data, data["count"] - 1)) == {"w"}


def test_a_helper_s_line_shows_its_first_call_s_values_unless_it_asks_for_the_last():
    """``scale`` runs 4 times, first where the prose introduces it: its line shows y = 10, from that
    first call, and links to it; ``shift``'s line asks ``call=last`` (z = 3); a loop in main shows its
    last run as before (total = 3)."""
    from helpers.traced import line_of, traced
    from tracer.site.cards.render import HtmlRenderer
    from tracer.site.cards.templates import template_env
    from tracer.site.pages.read_page import build_read_page

    trace = traced("first_call_values")
    env = template_env()
    slots = [str(slot) for slot in build_read_page(trace, HtmlRenderer(trace, env), env).slots]

    def annotation(name: str) -> str:
        (found,) = [slot for slot in slots if 'class="lt-annotation"' in slot and f'data-name="{name}"' in slot]
        return found

    def shown(html: str) -> tuple[str, int, str]:
        step = int(re.search(r'href="#step=(\d+)"', html).group(1))
        note = re.search(r'<span class="lt-runs-note">(.*?)</span>', html).group(1)
        value = re.search(r'class="lt-name">\w+</code>.*?(\d+)', re.sub(r"\s+", " ", html)).group(1)
        return value, step, note

    def step_line(step: int) -> tuple[int, str]:
        from tracer.contract.trace_access import step_frame

        frame = step_frame(trace["steps"][step])
        caller = trace["steps"][step]["stack"][-2]
        return frame["line"], caller["line"]

    value, step, note = shown(annotation("y"))
    assert (value, note) == ("10", "ran 4 times; values from the first call")
    assert step_line(step) == (line_of("first_call_values", "y = x * 10"), line_of("first_call_values", "a = scale(1)"))
    value, step, note = shown(annotation("z"))
    assert (value, note) == ("3", "ran 2 times; values from the last run")
    assert step_line(step)[1] == line_of("first_call_values", "b = shift(2)")
    value, _step, note = shown(annotation("total"))
    assert (value, note) == ("3", "ran 3 times; values from the last run")
