"""Compact citations for ``link(record)``: ``[Kaplan+ 2020]`` plus the details for its panel.

A link rendering (``trace_format.Rendering``) made from a record carries ``title``, ``url`` and the
record's other attributes in ``attrs`` (authors, date, notes, organization, abstract, ...). A link
with authors or a date reads as a citation, labelled by ``contract.citation_label``'s rules (the
same a lecture's ``Reference.label`` gives). This module must not produce markup: it returns strings.
"""

from __future__ import annotations

from typing import Any

from tracer.contract.citation_label import author_names, citation_label, short_title, surname, year_of

__all__ = ["author_names", "citation_label", "details", "detail_text", "short_title", "surname", "year_of"]

DETAIL_ORDER = ("authors", "organization", "date", "year", "notes", "description", "abstract")  # then the rest
MAX_DETAIL_CHARS = 600  # an abstract in a hover panel is cut here; the link has the rest


def detail_text(value: Any) -> str:
    text = ", ".join(str(v) for v in value) if isinstance(value, (list, tuple)) else str(value)
    return text if len(text) <= MAX_DETAIL_CHARS else text[: MAX_DETAIL_CHARS - 1] + "…"


def details(attrs: dict[str, Any]) -> list[tuple[str, str]]:
    """(name, text) rows for the citation panel: the well-known fields first, then the rest."""
    keys = [k for k in DETAIL_ORDER if k in attrs] + [k for k in attrs if k not in DETAIL_ORDER]
    return [(key, detail_text(attrs[key])) for key in keys if attrs[key] not in (None, "", [])]
