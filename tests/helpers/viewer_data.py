"""What viewer-values.js computes from ``data.js``, written again in Python for the tests to compare with."""

from __future__ import annotations

from typing import Any


def card_html(data: dict[str, Any], card: int) -> str:
    """The HTML of a value card, as viewer-values.js assembles it."""
    return "\n".join(data["fragments"][k] for k in data["cards"][card])


def accumulated_env(data: dict[str, Any], step: int) -> dict[str, int]:
    """The variables panel at ``step``: name -> card index, as viewer-values.js computes it."""
    chain: list[int] = []
    cursor = step
    while cursor >= 0 and str(cursor) not in data["snapshots"]:
        chain.append(cursor)
        cursor = data["steps"]["act_prev"][cursor]
    state: dict[str, int] = {name: card for name, card in data["snapshots"].get(str(cursor), [])} if cursor >= 0 else {}
    for index in reversed(chain):
        for name in data["clear"].get(str(index), ()):
            state.pop(name, None)
        for name, card in data["env"].get(str(index), ()):
            state[name] = card
    return state
