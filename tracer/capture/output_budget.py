"""Keeps a lecture's printed output bounded: the first ``head_chars`` and the last ``tail_chars``.

One budget per stream: stdout, and stderr (``field="stderr"``: what the lecture writes to
``sys.stderr``, its warnings included), each with the same bounds.

A lecture that prints without end (40,000 lines of 1 KB) must not make a 50 MB trace or a page
nobody can open. Output is attached to the step that printed it, as before, until the head budget
is used up; after that, steps keep their output only while it is among the last ``tail_chars``
characters printed (older tail output is taken back from its step). ``finish()`` marks the cut
with a one-line note in the first step after it. This module must not print or write files: it
only trims the ``stdout`` of step records the recorder hands it.
"""

from __future__ import annotations

from collections import deque
from typing import Any

HEAD_CHARS = 100_000
TAIL_CHARS = 100_000


class OutputBudget:
    def __init__(self, head_chars: int = HEAD_CHARS, tail_chars: int = TAIL_CHARS, field: str = "stdout") -> None:
        self.field = field  # the step key this budget fills ("stdout" or "stderr")
        self.head_chars = head_chars
        self.tail_chars = tail_chars
        self.total_chars = 0  # everything the lecture printed
        self._tail: deque[list[Any]] = deque()  # [extras, head part, tail part], oldest first
        self._tail_len = 0

    def attach(self, extras: dict[str, Any], text: str) -> None:
        """Give ``text`` (printed during one step) to that step's ``extras``, within the budget."""
        start = self.total_chars
        self.total_chars += len(text)
        if self.total_chars <= self.head_chars:
            extras[self.field] = text
            return
        room = max(0, self.head_chars - start)
        entry = [extras, text[:room], text[room:]]
        self._tail.append(entry)
        self._tail_len += len(entry[2])
        while self._tail_len > self.tail_chars:
            oldest = self._tail[0]
            excess = self._tail_len - self.tail_chars
            if len(oldest[2]) <= excess:
                self._tail.popleft()
                self._tail_len -= len(oldest[2])
                oldest[2] = ""
                self._set(oldest)
            else:
                oldest[2] = oldest[2][excess:]
                self._tail_len -= excess
                self._set(oldest)
        self._set(entry)

    @property
    def elided_chars(self) -> int:
        return max(0, self.total_chars - self.head_chars - self.tail_chars)

    def finish(self) -> str | None:
        """Put a note where output was cut; return a one-line summary, or None when nothing was."""
        elided = self.elided_chars
        if not elided:
            return None
        note = (
            f"[chalktrace: {elided:,} characters of output not kept here; a trace keeps the first "
            f"{self.head_chars:,} and the last {self.tail_chars:,}]\n"
        )
        if self._tail:
            first = self._tail[0]
            first[2] = note + first[2]
            self._set(first)
        return (
            f"printed {self.total_chars:,} characters; kept the first {self.head_chars:,} and the last "
            f"{self.tail_chars:,} ({elided:,} not kept)"
        )

    def _set(self, entry: list[Any]) -> None:
        text = entry[1] + entry[2]
        if text:
            entry[0][self.field] = text
        else:
            entry[0].pop(self.field, None)
