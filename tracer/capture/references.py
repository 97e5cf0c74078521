"""Citation records for ``link()``: ``Reference`` and ``url_reference(url)``.

A ``Reference`` is a plain record (title, authors, organization, date, url, description, notes);
``link(reference)`` shows it as a compact citation with its details in a panel, exactly as any
record with those fields; its ``label`` is that citation's label. ``url_reference(url, **fields)`` makes one from a URL: for an arXiv paper,
while a lecture is traced, title, authors, date and abstract come from arXiv (``capture.arxiv``,
through the course cache) and the given fields add to or override them; with no metadata the
record keeps the URL and is titled by the given title or the paper's id. Courses build their
``references.py`` from these at import time, before ``main()`` runs. This module must not emit
renderings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tracer.capture import arxiv
from tracer.contract.citation_label import citation_label


@dataclass(frozen=True)
class Reference:
    title: str | None = None
    authors: list[str] | None = None
    organization: str | None = None
    date: str | None = None
    url: str | None = None
    description: str | None = None
    notes: str | None = None

    @property
    def label(self) -> str:
        """The short label the page shows for this record (``[Kaplan+ 2020]``), else ``[title]``."""
        fields = {"authors": self.authors, "organization": self.organization, "date": self.date}
        return citation_label(fields, self.title) or f"[{self.title or self.url or '?'}]"


def arxiv_fields(url: str) -> dict[str, Any]:
    """Title, authors, date and description of the arXiv paper at ``url`` (cached or fetched now),
    or just a title naming its id when its metadata cannot be had; {} for any other URL."""
    paper = arxiv.arxiv_id(url)
    if paper is None:
        return {}
    found = arxiv.metadata(url)
    if found is None:
        return {"title": f"arXiv:{paper}"}
    fields = {
        "title": found.get("title") or f"arXiv:{paper}",
        "authors": list(found.get("authors") or []) or None,
        "date": found.get("date") or None,
        "description": found.get("summary") or None,
    }
    return {k: v for k, v in fields.items() if v is not None}


def url_reference(url: str, **fields: Any) -> Reference:
    """A ``Reference`` for ``url``; an arXiv URL gets its paper's metadata (``fields`` win)."""
    if not isinstance(url, str):
        raise TypeError(f"url_reference() takes a URL string, got {type(url).__name__}")
    unknown = sorted(set(fields) - set(Reference.__dataclass_fields__))
    if unknown:
        raise TypeError(
            f"url_reference() got unknown field(s) {', '.join(unknown)} "
            f"(known: {', '.join(f for f in Reference.__dataclass_fields__ if f != 'url')})"
        )
    merged = {**arxiv_fields(url), **{k: v for k, v in fields.items() if v is not None}}
    return Reference(url=url, **merged)
