"""One table from a value's kind to the family module that draws it, and the entry points that use it.

``contract/value_kinds.py`` names each kind's family; the family's module
(``tracer/site/cards/kinds/FAMILY.py``) gives the card view (naming its template macro), the
one-line summary, the diff text and the comparison. The cards, the step viewer's summaries,
``chalktrace diff`` and ``check`` all go through here, so a kind is drawn, summarised and compared
in one place. This module must not render markup nor know any kind itself.
"""

from __future__ import annotations

import importlib
import json
from typing import Any, Protocol, cast

from tracer.contract.value_kinds import FAMILIES, KINDS, ONE_LINE_TYPES
from tracer.site.cards.kinds.short_text import CompareFn, Differences, ShowFn, SummaryFn, ViewFn


class ValueFamily(Protocol):
    """What a family module (``kinds/FAMILY.py``) gives for each of its kinds."""

    def view(self, value: dict[str, Any], depth: int, value_view: ViewFn) -> dict[str, Any]: ...

    def summary(self, value: dict[str, Any], summary_view: SummaryFn) -> dict[str, Any] | None: ...

    def diff_text(self, value: dict[str, Any], show: ShowFn) -> str: ...

    def compare(
        self, name: str, a: dict[str, Any], b: dict[str, Any], out: Differences, recurse: CompareFn, show: ShowFn
    ) -> None: ...


FAMILY_MODULES: dict[str, ValueFamily] = {
    family: cast(ValueFamily, importlib.import_module(f"tracer.site.cards.kinds.{family}")) for family in FAMILIES
}
BY_KIND: dict[str, ValueFamily] = {name: FAMILY_MODULES[kind.family] for name, kind in KINDS.items()}


def value_view(value: dict[str, Any], depth: int = 0) -> dict[str, Any]:
    """Plain data for any encoded value's card (``macro`` names the template macro drawing it)."""
    kind = value.get("type", "?")
    family = BY_KIND.get(kind)
    if family is None:
        text = json.dumps(value, ensure_ascii=False)[:500]
        return {"kind": "unknown", "type": kind, "text": text, "macro": "unknown_body"}
    return family.view(value, depth, value_view)


def summary_view(value: dict[str, Any]) -> dict[str, Any] | None:
    """``{"kind", "dtype", "shape", "text"}`` (strings or None) for a value's summary line, or None
    for a value whose card is one line already."""
    kind = value.get("type", "?")
    if kind in ONE_LINE_TYPES:
        return None
    family = BY_KIND.get(kind)
    if family is None:
        return {"kind": str(kind), "dtype": None, "shape": None, "text": ""}
    return family.summary(value, summary_view)


def diff_text(value: dict[str, Any], show: ShowFn) -> str | None:
    """A Value as short text (``show`` writes nested data), or None when ``value`` is no Value."""
    family = BY_KIND.get(value.get("type"))  # type: ignore[arg-type]
    return None if family is None else family.diff_text(value, show)


def compare(name: str, a: dict[str, Any], b: dict[str, Any], out: Differences, recurse: CompareFn, show: ShowFn) -> None:
    """The differences between two Values of one kind, appended to ``out`` (``recurse`` for items)."""
    family = BY_KIND.get(a.get("type"))  # type: ignore[arg-type]
    if family is None:
        out.append((name, a, b, ""))
    else:
        family.compare(name, a, b, out, recurse, show)
