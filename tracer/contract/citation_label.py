"""How a citation is labelled: ``[Kaplan+ 2020]``, ``[Kimi Team 2025]``, ``[OpenAI 2023]``.

The same rules for both sides: the site labels a link made from a record (``site.cards.citations``),
and a lecture may ask a ``Reference`` for its ``label`` while it runs. The first author's surname,
"+" when there are more (a "... Team" author is named whole), and the year; without authors, the
organization, else a short title. Authors may be a list of names or one string ("Kingma, Ba",
"Paszke et al.", "Jared Kaplan and Sam McCandlish"). Standard library only; it returns strings.
"""

from __future__ import annotations

import re
from typing import Any


def author_names(authors: Any) -> list[str]:
    """The author names in ``authors`` (a list, or one string), in order; "et al." becomes a last "…"."""
    if isinstance(authors, (list, tuple)):
        return [str(a).strip() for a in authors if str(a).strip()]
    if not isinstance(authors, str) or not authors.strip():
        return []
    text = authors.strip()
    more = re.search(r",?\s+et\.? al\.?$", text)
    if more:
        text = text[: more.start()]
    pieces = re.split(r"\s*;\s*|\s+and\s+|\s*&\s*", text)
    if len(pieces) == 1:
        pieces = text.split(",")
    names = [p.strip() for p in pieces if p.strip()]
    return names + (["…"] if more else [])


def surname(name: str) -> str:
    """ "Jared Kaplan" -> "Kaplan"; "Kaplan, Jared" -> "Kaplan"; "Kaplan" -> "Kaplan"."""
    if "," in name:
        return name.split(",")[0].strip()
    return name.split()[-1] if name.split() else name


def year_of(attrs: dict[str, Any]) -> str | None:
    for key in ("year", "date"):
        match = re.search(r"\b(1[5-9]\d\d|2\d\d\d)\b", str(attrs.get(key) or ""))
        if match:
            return match.group(1)
    return None


SHORT_TITLE_WORDS = 4
SHORT_TITLE_CHARS = 32


def short_title(title: str) -> str:
    """A title's first few words ("The Course Handbook of…"), for labelling a record without authors."""
    words = title.split()
    short = " ".join(words[:SHORT_TITLE_WORDS])
    if len(short) > SHORT_TITLE_CHARS:
        short = short[: SHORT_TITLE_CHARS - 1].rstrip()
    return short + ("…" if short != " ".join(words) else "")


def citation_label(attrs: dict[str, Any], title: str | None = None) -> str | None:
    """``[Kaplan+ 2020]`` from a record's attributes; a record without authors is labelled by its
    organization (``[OpenAI 2023]``), else a short ``title``; None when there is neither a name nor a year."""
    names = author_names(attrs.get("authors"))
    year = year_of(attrs)
    organization = str(attrs.get("organization") or "").strip()
    if names:
        first = names[0]
        # a group author ("Kimi Team") is named whole, and needs no "+"
        who = first if re.search(r"\bTeam\b", first) else surname(first) + ("+" if len(names) > 1 else "")
    elif organization:
        who = organization
    elif title and year:
        who = short_title(title)
    else:
        who = ""
    if not who and not year:
        return None
    return "[" + " ".join(part for part in (who, year) if part) + "]"
