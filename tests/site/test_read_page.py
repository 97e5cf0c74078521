from markupsafe import Markup

from tracer.site.read.read_page import ReadPage, fill_slots, note_markdown, relative_urls, root_for


def test_slots_survive_markdown_paragraph_wrapping():
    page = ReadPage(markdown="")
    marker = page.slot('<img src="{root}assets/a.png">')
    html = f"<h2>Intro</h2>\n<p>{marker}</p>\n<p>after</p>"
    assert fill_slots(html, page.slots, "../../") == '<h2>Intro</h2>\n<img src="../../assets/a.png">\n<p>after</p>'


def test_root_placeholder_only_in_urls():
    html = Markup('<a href="{root}x/">{root}</a><img src="{root}i.png">')
    assert relative_urls(html, "../") == '<a href="../x/">{root}</a><img src="../i.png">'


def test_root_for_page_urls():
    assert root_for("lectures/hello/") == "../../"
    assert root_for("") == "./"
    assert root_for("lectures/hello.html") == "../"


def test_note_markdown_is_an_admonition():
    assert note_markdown("one\n\ntwo") == "!!! note\n\n    one\n\n    two"
