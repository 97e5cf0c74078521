"""The interface's catalogues (tracer/site/i18n/*.json): complete in every language, every key used,
no interface string left hard-coded in the templates or the viewer, the course's language chosen as
Material chooses its own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from markupsafe import Markup

from tracer.contract import paths
from tracer.site.cards.interface_strings import ENGLISH, VIEWER_PREFIX, available, language_of, load, read_catalogue
from tracer.site.cards.templates import template_env, template_macros

TEMPLATE_KEY = re.compile(r"""\bt\(\s*"([^"]+)\"""")  # {{ t("stepper.enter") }}
JS_KEY = re.compile(r"""\bt(?:\.html)?\(\s*"([^"]+)\"""")  # t("viewer.bar.counter", {...}), t.html(...)
PARAM = re.compile(r"\{(\w+)\}")


def template_keys() -> dict[str, set[str]]:
    return {p.name: set(TEMPLATE_KEY.findall(p.read_text(encoding="utf-8"))) for p in sorted(paths.TEMPLATES_DIR.glob("*.j2"))}


def viewer_keys() -> dict[str, set[str]]:
    return {p.name: set(JS_KEY.findall(p.read_text(encoding="utf-8"))) for p in sorted(paths.ASSETS_DIR.glob("*.js"))}


PYTHON_KEY = re.compile(r'\.text\(\s*"([a-z_]+\.[a-z0-9_.]+)"')  # words.text("quiz.shape", name=name)


def python_keys() -> dict[str, set[str]]:
    site = paths.PACKAGE_DIR / "site"
    return {str(p.relative_to(site)): set(PYTHON_KEY.findall(p.read_text(encoding="utf-8"))) for p in sorted(site.rglob("*.py"))}


def used_keys() -> set[str]:
    return set().union(*template_keys().values(), *viewer_keys().values(), *python_keys().values())


def catalogue_keys(name: str) -> set[str]:
    return {key for key in read_catalogue(name) if key != "_meta"}


def test_english_and_simplified_chinese_are_shipped() -> None:
    assert {"en", "zh-Hans"} <= set(available())


@pytest.mark.parametrize("name", available())
def test_every_key_used_is_in_the_catalogue_and_every_catalogue_key_is_used(name: str) -> None:
    held = catalogue_keys(name)
    assert sorted(used_keys() - held) == [], f"{name}.json lacks keys the templates or the viewer use"
    assert sorted(held - used_keys()) == [], f"{name}.json holds keys nothing uses"


def test_the_viewer_uses_only_viewer_keys_and_the_templates_none() -> None:
    # the viewer's keys are the ones the bundle carries (Catalogue.viewer_json): a template key in JS would be missing there
    for name, keys in viewer_keys().items():
        assert {k for k in keys if not k.startswith(VIEWER_PREFIX)} == set(), name
    for name, keys in template_keys().items():
        assert {k for k in keys if k.startswith(VIEWER_PREFIX)} == set(), name


@pytest.mark.parametrize("name", [n for n in available() if n != ENGLISH])
def test_a_translation_has_the_same_parameters_and_plural_forms_as_english(name: str) -> None:
    english, other = read_catalogue(ENGLISH), read_catalogue(name)
    for key in catalogue_keys(name):
        en, tr = english[key], other[key]
        en_forms = en.values() if isinstance(en, dict) else [en]
        tr_forms = tr.values() if isinstance(tr, dict) else [tr]
        want = {frozenset(PARAM.findall(text)) for text in en_forms}
        for text in tr_forms:
            assert frozenset(PARAM.findall(text)) in want, f"{name}.json {key}: {text!r} has other parameters than English"
        if isinstance(tr, dict):
            assert "other" in tr, f"{name}.json {key}: plural forms without 'other'"
        assert tr_forms and all(text.strip() for text in tr_forms), f"{name}.json {key} is empty"


def test_the_drawings_text_alternatives_are_in_both_catalogues_and_translated() -> None:
    # heatmaps' alt and storage diagrams' labels (text_alternatives.py): every key it uses, in each
    # shipped language, Chinese in the Chinese one (the words, not only a copy of English)
    used = python_keys()["cards/text_alternatives.py"]
    assert {key for key in used if key.startswith("alt.")} == {key for key in catalogue_keys(ENGLISH) if key.startswith("alt.")}
    assert len(used) > 20
    english, chinese = read_catalogue(ENGLISH), read_catalogue("zh-Hans")
    for key in sorted(used):
        assert key in english and key in chinese, key
        if key != "alt.separator" and key != "alt.list_separator" and key != "alt.and":
            words = chinese[key] if isinstance(chinese[key], str) else chinese[key]["other"]
            assert re.search(r"[\u4e00-\u9fff]", words), f"{key}: {words!r} is not Chinese"


def test_a_drawings_text_alternative_follows_the_templates_language() -> None:
    facts = {"rows": 2, "cols": 3, "low": "0", "high": "5", "scale": "sequential", "pattern": "", "sampled": False}
    storage = {"shape": (2, 3), "stride": (3, 1), "first_cell": 0, "last_cell": 5, "shown": 6, "numel": 6}
    zh, en = template_env(strings=load("zh-Hans")), template_env()
    assert zh.globals["heatmap_alt"](facts) == "热图：2 × 3 个值，取值从 0 到 5"
    assert en.globals["heatmap_alt"](facts) == "heatmap of 2 × 3 values, from 0 to 5"
    assert zh.globals["storage_alt"](storage) == "6 个元素，位于存储单元 0–5，行优先（按索引顺序，最后一个索引变化最快）"
    assert en.globals["storage_alt"](storage) == "6 elements in storage cells 0–5, row-major (index order, last index fastest)"


def test_material_language_codes_pick_a_catalogue() -> None:
    assert language_of("en") == ("en", None)
    assert language_of("zh") == ("zh-Hans", None)  # Material's zh is Simplified Chinese
    assert language_of("zh-Hans") == ("zh-Hans", None)
    assert language_of(None) == ("en", None)
    name, why = language_of("fr")
    assert name == "en" and why is not None and "'fr'" in why and "English" in why
    name, why = language_of("zh-Hant")  # Traditional Chinese is another language: no catalogue yet
    assert name == "en" and why is not None


def test_t_escapes_its_text_and_parameters_but_not_markup() -> None:
    en = load("en")
    out = en.t("page.source", path="<script>")
    assert out == "Source: &lt;script&gt;" and isinstance(out, Markup)
    assert en.t("page.source", path=Markup("<code>a.py</code>")) == "Source: <code>a.py</code>"
    assert en.text("read.ran_times", count=1) == "ran 1 time; values from the last run"
    assert en.text("read.ran_times", count=3) == "ran 3 times; values from the last run"
    assert load("zh-Hans").text("read.ran_times", count=1) == "运行了 1 次；显示最后一次的值"


def test_t_remembers_its_answers_by_each_parameters_value_and_type() -> None:
    en = load("en")
    # equal as strings, escaped differently: each asked twice, in both orders
    for _ in range(2):
        assert en.t("page.source", path="<b>a</b>") == "Source: &lt;b&gt;a&lt;/b&gt;"
        assert en.t("page.source", path=Markup("<b>a</b>")) == "Source: <b>a</b>"
    # equal as numbers, written differently
    for _ in range(2):
        assert [en.t("card.more", count=n) for n in (1, True, 1.0)] == ["1 more", "True more", "1.0 more"]
    assert en.t("page.source", path=["a", "b"]) == "Source: [&#39;a&#39;, &#39;b&#39;]"  # not a key: worded each time


def test_templates_render_in_the_course_language() -> None:
    zh = template_macros(template_env(strings=load("zh-Hans")), "page_parts.html.j2")
    html = str(zh.annotation(7, 3, Markup("<p>x</p>"), False, 20))
    assert ">第 7 步</a>" in html and "运行了 3 次" in html
    en = template_macros(template_env(), "page_parts.html.j2")
    assert ">step 7</a>" in str(en.annotation(7, 3, Markup("<p>x</p>"), False, 20))
    stepper = template_env(strings=load("zh-Hans")).get_template("stepper.html.j2").render(lecture_name="l", root="../")
    assert ">逐步执行</button>" in stepper and "<kbd>?</kbd>" in stepper


# Attributes a person reads (a tooltip, a screen reader's name, an image's text) in the templates:
# each is a value put in whole ({{ view.caption }}) or comes from the catalogue (t(...)).
WHOLE_VALUE = re.compile(r"^\{\{ [\w.\[\]\"']+ \}\}$")


def hard_coded_attributes(text: str) -> list[str]:
    found = []
    for match in re.finditer(r'\b(?:aria-label|title|alt|placeholder)="', text):
        end = text.find('"', match.end())
        # a value holding Jinja ("{{ t("x") }}") has quotes of its own: take up to the closing }}
        while text.count("{{", match.end(), end) > text.count("}}", match.end(), end):
            end = text.find('"', text.find("}}", end) + 2)
        value = text[match.end() : end]
        if (
            WHOLE_VALUE.match(value)
            or "t(" in value
            or not re.search(r"[A-Za-z]{2,}", re.sub(r"\{\{.*?\}\}|\{%.*?%\}", "", value))
        ):
            continue
        found.append(f"{match.group(0)}{value}")
    return found


def test_no_template_attribute_holds_english_of_its_own() -> None:
    offenders = {p.name: hard_coded_attributes(p.read_text(encoding="utf-8")) for p in paths.TEMPLATES_DIR.glob("*.j2")}
    assert {name: found for name, found in offenders.items() if found} == {}


def test_the_attribute_scan_sees_a_hard_coded_label() -> None:
    assert hard_coded_attributes('<div aria-label="values on each rank">') == ['aria-label="values on each rank']
    assert hard_coded_attributes('<a title="{{ t("page.source_title") }}">') == []
    assert hard_coded_attributes('<img alt="{{ m.alt }}">') == []
    assert hard_coded_attributes('<a title="{{ view.type }} ({{ view.exact }})">') == []


def test_catalogue_files_are_utf8_json_objects() -> None:
    for name in available():
        data = read_catalogue(name)
        assert isinstance(data, dict) and data["_meta"]["language"], name
        assert Path(paths.PACKAGE_DIR / "site" / "i18n" / f"{name}.json").read_bytes().decode("utf-8")


# Where the viewer puts words a person reads or hears; a literal with English words there is a string
# the catalogue should hold. Markup of code and keys (<code>, <kbd>) is not words.
JS_SITES = [
    r'\.(?:textContent|title|placeholder|alt)\s*=\s*"([^"]*)"',
    r'setAttribute\(\s*"(?:aria-label|title|alt|placeholder|aria-valuetext)"\s*,\s*"([^"]*)"',
    r'"aria-label"\s*:\s*"([^"]*)"',
    r'\b(?:help|title|label|icon)\s*:\s*"([^"]*)"',  # the command table's and a plugin's key bindings
    r'\b(?:say|stop)\(\s*"([^"]*)"',  # announcements
    r'createTextNode\(\s*"([^"]*)"',
    r'\bel\(\s*"\w+"\s*,\s*(?:null|"[^"]*")\s*,\s*"([^"]*)"',
    r'<(?!code|kbd)[a-z0-9]+(?:\s[^<>]*)?>([^<>"]*)<',  # text between tags in a string of markup
    r'(?:title|aria-label|alt)=\\"([^"\\]*)\\"',
]


def hard_coded_viewer_strings(text: str) -> list[str]:
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        code = "" if line.lstrip().startswith(("/*", "*")) else line.split("//")[0]
        for site in JS_SITES:
            for match in re.finditer(site, code):
                if re.search(r"[A-Za-z]{3,}", re.sub(r"\\u[0-9a-fA-F]{4}|&\w+;", "", match.group(1))):
                    found.append(f"{number}: {match.group(0)}")
    return found


def test_no_viewer_script_shows_english_of_its_own() -> None:
    offenders = {p.name: hard_coded_viewer_strings(p.read_text(encoding="utf-8")) for p in paths.ASSETS_DIR.glob("*.js")}
    assert {name: found for name, found in offenders.items() if found} == {}


def test_the_viewer_scan_sees_hard_coded_words() -> None:
    seen = hard_coded_viewer_strings(
        'progress.title = "click to jump";\n'
        'panel.setAttribute("aria-label", "speaker view");\n'
        '{ command: "first", keys: ["Home"], help: "first step" },\n'
        'this.say("Autoplay stopped.");\n'
        'stack.appendChild(el("h3", null, "Call stack"));\n'
        'box.innerHTML = "<button type=\\"button\\">Quiz me</button>";\n'
    )
    assert [s.split(":")[0] for s in seen] == ["1", "2", "3", "4", "5", "6"]
    assert hard_coded_viewer_strings('x.innerHTML = "<p>" + t.html("viewer.quiz.heading") + "</p><code>#step=N</code>";') == []
    assert hard_coded_viewer_strings('progress.title = t("viewer.bar.progress_title");') == []
