"""Dimension names from jaxtyping annotations, so a tensor card can say batch=2, seq=3, hidden=4.

A lecture line such as ``x: Float[torch.Tensor, "batch seq hidden"] = ...`` names the dimensions
of ``x``. ``annotation_dims`` finds that string for a given file line and variable; ``name_dims``
pairs the names with a recorded shape (variadic ``*batch`` and ``...`` included). This module must
not import jaxtyping or evaluate annotations: it reads source text only.
"""

from __future__ import annotations

from tracer.contract.source_facts import source_facts
from tracer.site.cards.units import shape_text


def annotation_dims(source: str, line: int, name: str) -> list[str] | None:
    """The dims of ``name``'s jaxtyping annotation on the statement starting at ``line``."""
    spec = source_facts(source).annotations.get((line, name))
    return spec.split() if spec is not None else None


def _clean(dim: str) -> str:
    # jaxtyping modifiers: "#" broadcastable, "_" unchecked, "?" ... ; the reader wants the name.
    return dim.lstrip("#_?*") or dim


def name_dims(dims: list[str], shape: list[int]) -> list[tuple[str, str]] | None:
    """Pair dim names with sizes: (["batch", "seq"], [2, 3]) -> [("batch", "2"), ("seq", "3")].

    A variadic dim (``*batch`` or ``...``) takes the sizes the others leave, shown as "(2, 3)".
    Returns None when the names cannot match the shape (then the card shows no names).
    """
    variadic = [k for k, d in enumerate(dims) if d.startswith("*") or d == "..."]
    if len(variadic) > 1:
        return None
    if not variadic:
        if len(dims) != len(shape):
            return None
        return [(_clean(d), str(n)) for d, n in zip(dims, shape)]
    v = variadic[0]
    before, after = dims[:v], dims[v + 1 :]
    if len(before) + len(after) > len(shape):
        return None
    middle = shape[len(before) : len(shape) - len(after)]
    pairs = [(_clean(d), str(n)) for d, n in zip(before, shape)]
    pairs.append((_clean(dims[v]), shape_text(middle)))
    pairs += [(_clean(d), str(n)) for d, n in zip(after, shape[len(shape) - len(after) :])]
    return pairs
