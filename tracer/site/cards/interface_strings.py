"""The interface's words in the course's language: one catalogue per language, for templates and viewer.

Each catalogue is ``tracer/site/i18n/LANG.json``: a flat mapping of keys (``stepper.enter``,
``viewer.bar.counter``) to a string, or to plural forms (``{"one": ..., "other": ...}``, the CLDR
categories the language uses; ``other`` always). ``{name}`` in a string is a parameter. Keys
starting ``viewer.`` are the step viewer's (``assets/*.js``, ``CHALKTRACE.t``); the others are the
Jinja templates' (the ``t`` global of ``templates.template_env``). ``_meta`` names the language
(its BCP 47 tag, used for the viewer's number and plural rules). English is complete by definition;
a key another catalogue lacks falls back to English (``tests/site/test_interface_strings.py``
fails on one). ``language_of`` maps MkDocs Material's ``theme.language`` to a catalogue, as
Material picks its own strings; an unknown language gets English. This module must not render
markup or know the page a string lands on.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from markupsafe import Markup, escape

CATALOGUE_DIR = Path(__file__).resolve().parents[1] / "i18n"
ENGLISH = "en"
VIEWER_PREFIX = "viewer."
# theme.language (Material's codes, lowercased) -> catalogue; Material's "zh" is Simplified Chinese.
LANGUAGE_CODES = {"en": "en", "zh": "zh-Hans", "zh-hans": "zh-Hans", "zh-cn": "zh-Hans", "zh-sg": "zh-Hans"}

Entry = str | dict[str, str]
MAX_SAID = 10_000  # t()'s answers kept (most are the same few dozen; storage ids and names vary)


def available() -> list[str]:
    """The catalogues shipped, by name (``en``, ``zh-Hans``)."""
    return sorted(p.stem for p in CATALOGUE_DIR.glob("*.json"))


def language_of(theme_language: str | None) -> tuple[str, str | None]:
    """The catalogue for Material's ``theme.language`` and, for a language without one, why English
    is used instead (a sentence for the build log)."""
    code = (theme_language or ENGLISH).strip()
    name = LANGUAGE_CODES.get(code.lower())
    if name is None and code in available():
        name = code
    if name is None:
        known = ", ".join(sorted(LANGUAGE_CODES))
        return (
            ENGLISH,
            f"theme.language {code!r} has no chalktrace interface catalogue (known: {known}); the interface is in English",
        )
    return name, None


@dataclass(frozen=True)
class Catalogue:
    name: str  # the file's name: "en", "zh-Hans"
    tag: str  # BCP 47 tag for number and plural rules (_meta.language)
    strings: dict[str, Entry]  # every key, English filling any the language lacks
    # t()'s answers by key and parameters (their values and types: "1" and Markup("1") escape
    # differently, 1 and True read differently): a long lecture's cards ask the same few thousands of times
    _said: dict[Any, Markup] = field(default_factory=dict, init=False, repr=False, compare=False)

    def text(self, key: str, /, **params: Any) -> str:
        """The plain text of ``key`` with its parameters put in (``count`` picks a plural form)."""
        return self._form(key, params).format(**params)

    def t(self, key: str, /, **params: Any) -> Markup:
        """``key`` as markup for a template: the string escaped, parameters escaped unless Markup."""
        said = self._said
        memo: Any = (key, *params.items(), *map(type, params.values())) if params else key
        try:
            return said[memo]
        except KeyError:
            pass
        except TypeError:  # a parameter that cannot be a key (a list): worded each time
            return Markup(escape(self._form(key, params))).format(**params)
        if len(said) >= MAX_SAID:
            said.clear()
        text = said[memo] = Markup(escape(self._form(key, params))).format(**params)
        return text

    def _form(self, key: str, params: dict[str, Any]) -> str:
        entry = self.strings[key]  # a KeyError names a key no catalogue holds
        if isinstance(entry, str):
            return entry
        # Plural forms: English-like "one" for exactly 1; the viewer uses the language's full rules (Intl).
        count = params.get("count")
        return entry["one"] if count == 1 and "one" in entry else entry["other"]

    def viewer_json(self) -> str:
        """The viewer's part of the catalogue as a JSON object (``language`` and ``strings``)."""
        viewer = {k: v for k, v in sorted(self.strings.items()) if k.startswith(VIEWER_PREFIX)}
        return json.dumps({"language": self.tag, "strings": viewer}, ensure_ascii=False, separators=(",", ":"))


def read_catalogue(name: str) -> dict[str, Any]:
    """One catalogue file as it is written (with its ``_meta``), without the English fallback."""
    data: dict[str, Any] = json.loads((CATALOGUE_DIR / f"{name}.json").read_text(encoding="utf-8"))
    return data


@functools.cache
def load(name: str = ENGLISH) -> Catalogue:
    """The catalogue ``name``, every key present (English where the language has none)."""
    data = read_catalogue(name)
    meta = data.pop("_meta", {})
    strings: dict[str, Entry] = dict(data) if name == ENGLISH else {**load(ENGLISH).strings, **data}
    return Catalogue(name, str(meta.get("language", name)), strings)
