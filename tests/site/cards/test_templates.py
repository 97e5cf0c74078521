"""tracer/site/cards/templates.py: the Jinja environment finds a view's fields as plain Jinja does."""

from __future__ import annotations

import jinja2
import pytest

from tracer.site.cards.templates import template_env

EXPRESSIONS = (
    "{{ v.name }}",
    "{{ v['items'] }}",
    "{{ v.items is callable }}",  # a dict's own attribute wins over its key, as in Jinja
    "{{ v.get('name') }}",
    "{{ v.missing is defined }}",
    "{{ v.nested.name }}",
    "{{ v.nested.missing is defined }}",
    "{{ w.name }}",  # a dict subclass
    "{{ s.upper() }}",
)


class Named(dict):
    pass


def test_view_fields_read_as_in_jinja() -> None:
    plain = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    ours = template_env()
    context = {
        "v": {"name": "<b>", "items": [1, 2], "nested": {"name": "n"}},
        "w": Named(name="subclass"),
        "s": "text",
    }
    for source in EXPRESSIONS:
        expected = plain.from_string(source).render(context)
        assert ours.from_string(source).render(context) == expected, source
    assert ours.from_string("{{ v.name }}").render(context) == "&lt;b&gt;"


def test_a_missing_field_is_an_error() -> None:
    with pytest.raises(jinja2.UndefinedError, match="missing"):
        template_env().from_string("{{ v.missing }}").render(v={"name": 1})


def test_globals_and_macros_are_called_as_jinja_calls_them() -> None:
    env = template_env()
    env.globals["where"] = jinja2.pass_context(lambda context, suffix: context["here"] + suffix)  # wants the context
    source = (
        "{% macro box(x) %}[{{ x }}{% if caller is defined %}{{ caller() }}{% endif %}]{% endmacro %}"
        "{% for n in (1, 2) %}{{ box(n) }}{{ t('card.more', count=n) }}{{ where('!') }}{% endfor %}"
        "{% call box(3) %}inner{% endcall %}{{ value_macro('scalar_body') is not none }}"
    )
    assert env.from_string(source).render(here="at") == "[1]1 moreat![2]2 moreat![3inner]True"
    plain = jinja2.Environment(autoescape=True)
    plain.globals.update(env.globals)
    assert plain.from_string(source).render(here="at") == env.from_string(source).render(here="at")
