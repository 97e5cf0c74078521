"""The Jinja side of the cards: the templates' environment, their macros, and code lines' anchors.

``template_env`` is the one Jinja environment (autoescape on, undefined variables are errors);
``template_macros`` hands a template's macros to Python. Image sources start with the literal
placeholder ``ROOT`` (``{root}``, the relative URL of the site root), which the page or the viewer
replaces. Code line anchors: a line of the lecture's main file is ``id="L{line}"``; a line of any
other file is ``id="{slug}-L{line}"`` where slug is the path lowercased with every run of characters
other than letters and digits replaced by "-" (``lectures/helpers/util.py`` ->
``lectures-helpers-util-py``). This module must not render anything itself.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Protocol, cast

import jinja2
from markupsafe import Markup

from tracer.contract import paths
from tracer.site.cards.interface_strings import Catalogue, load
from tracer.site.cards.text_alternatives import heatmap_text, stride_text

ROOT = "{root}"  # placeholder for the relative URL of the site root, replaced by the page/viewer


_DICT_ATTRIBUTES = frozenset(dir(dict))  # what getattr finds on a plain dict (``items``, ``get``, ...)


class _ViewContext(jinja2.runtime.Context):
    """Jinja's context, calling a macro or one of ``template_env``'s own globals (``t``,
    ``value_macro``, ``heatmap_alt``, ...) straight away: Jinja's ``Context.call`` first asks each
    callable whether it wants the context passed (none of these does), which took about a fifth of
    a tensor card's markup time. Anything else is called as Jinja calls it."""

    def call(__self, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        plain = __self.environment.plain_calls  # type: ignore[attr-defined]
        if type(__obj) is not jinja2.runtime.Macro and plain.get(id(__obj)) is not __obj:
            return super().call(__obj, *args, **kwargs)
        if kwargs:  # Jinja's own, inside loops and blocks: for callables that take the context
            kwargs.pop("_block_vars", None)
            kwargs.pop("_loop_vars", None)
        try:
            return __obj(*args, **kwargs)
        except StopIteration:  # as Jinja answers it
            return __self.environment.undefined("value was undefined because a callable raised a StopIteration exception")


class _ViewEnvironment(jinja2.Environment):
    """Jinja's environment, looking up ``view.name`` on a plain dict (every view is one) as Jinja
    does, without the AttributeError Jinja raises and catches first: a long lecture's cards make
    hundreds of thousands of these lookups. Same results: a dict's own attributes still win.
    Macros and the globals added by ``plain_global`` are called without Jinja's checks (``_ViewContext``)."""

    context_class = _ViewContext

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.plain_calls: dict[int, Any] = {}  # id -> each global added by plain_global (kept, so ids stay theirs)

    def plain_global(self, name: str, function: Any) -> None:
        """Add a global function the templates call that takes no context (not ``pass_context``)."""
        self.globals[name] = function
        self.plain_calls[id(function)] = function

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)


def template_env(templates_dir: str | Path | None = None, strings: Catalogue | None = None) -> jinja2.Environment:
    """The Jinja environment for chalktrace templates: autoescape on, undefined variables are errors;
    ``t(key, **params)`` is the interface's words in the course's language (English by default), and
    ``heatmap_alt``/``storage_alt`` a drawing's text alternative in it."""
    env = _ViewEnvironment(
        loader=jinja2.FileSystemLoader(str(templates_dir or paths.TEMPLATES_DIR)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    cards: list[Macros] = []

    def value_macro(name: str) -> jinja2.runtime.Macro:
        """The ``cards.html.j2`` macro a value view names (``view.macro``, ``view.card``): how the
        template dispatches to each family's markup without a chain of its own."""
        if not cards:
            cards.append(template_macros(env, "cards.html.j2"))
        return getattr(cards[0], name)

    env.plain_global("value_macro", value_macro)
    catalogue = strings or load()
    env.plain_global("t", catalogue.t)
    env.globals["catalogue"] = catalogue  # for Python that writes words beside the templates (strings_of)
    env.globals["language"] = catalogue.tag  # a page of its own names its language (<html lang>)
    # a drawing's text alternative from its facts (``alt``), worded here so a shared drawing has no language
    env.plain_global("heatmap_alt", lambda facts: heatmap_text(**facts, words=catalogue))
    env.plain_global("storage_alt", lambda facts: stride_text(**facts, words=catalogue))
    # a parameter of t() that is code or a key: marked up here, so no string holds markup
    env.filters["code"] = lambda text: Markup("<code>{}</code>").format(text)
    env.filters["kbd"] = lambda text: Markup("<kbd>{}</kbd>").format(text)
    return env


def strings_of(env: jinja2.Environment) -> Catalogue:
    """The catalogue an environment's templates speak (``template_env``'s ``strings``): words that
    Python writes for the same pages (quiz questions) come from it too."""
    catalogue = env.globals.get("catalogue")
    return catalogue if isinstance(catalogue, Catalogue) else load()


class Macros(Protocol):
    """A template's exported macros, as attributes: what ``Template.module`` holds (jinja2 types it
    as a ``TemplateModule`` whose names, set from the template at runtime, it cannot declare)."""

    def __getattr__(self, name: str) -> jinja2.runtime.Macro: ...


def template_macros(env: jinja2.Environment, name: str) -> Macros:
    """The macros of template ``name`` (``cards.html.j2``, ...), called as ``macros.value_card(...)``."""
    return cast(Macros, env.get_template(name).module)


def path_slug(path: str) -> str:
    """``lectures/helpers.py`` -> ``lectures-helpers-py`` (see the module docstring)."""
    return re.sub(r"[^a-z0-9]+", "-", path.lower()).strip("-")


def line_anchor(path: str, line: int, main_path: str) -> str:
    """The id of a code line in read mode: ``L12`` in the main file, ``{slug}-L12`` elsewhere."""
    return f"L{line}" if path == main_path else f"{path_slug(path)}-L{line}"
