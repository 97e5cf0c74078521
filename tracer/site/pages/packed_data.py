"""Step mode's data packed for ``data.js``: what ``viewer_data.build_viewer_data`` returns, made small.

A long lecture records the same cards again and again with new numbers in them, and steps that
move the same way every loop iteration. ``pack_viewer_data(data)`` stores:

- **cards** as shared skeletons with holes. A card's HTML (and its one-line summary) is cut at every
  word that holds a digit. A number that a float32 holds and ``assets/step-data.js`` writes back
  exactly as it was is a float slot, in one float32 stream (``floats``: each number's 32 bits as 5
  base-85 digits, ``DIGITS85``, in planes: ``encode_floats``); a number that is one of the card's
  slots rounded (to 4, 6 or 3 significant digits, never to a whole number) or written again only
  refers to it; a number that is
  the mean, or after it the standard deviation, of the card's first n slots as the decoder computes
  them (in doubles, then rounded to float32: ``_statistic``) is not stored either: a tensor's
  statistics beside its elements. The card's own holes take their slots before its summary's, so
  that a tensor's elements are its first slots. Cards with the same text between their holes (a
  template) are written alike: a word that every card of the template has there stays in the
  skeleton; a counter, a name and a number (a storage's id, "s12") in every card of the template, is
  stored as its step from the last counter of that name (in card order), and not at all when the
  step is one (the skeleton says which); any other such word goes into ``words``. Spaces that
  right-align a hole (a grid's cells) are written as a width: fixed, or another hole's number (the
  grid's column width), or a count in ``words``; a column's width that is its longest cell and the
  same number more in every card of the template is not stored: the decoder works it out. Every hole
  is checked here against what the decoder will write (the Python twins of its two number formats
  are below), so a decoded card is byte for byte the rendered one; a number that would differ is
  kept as a word. A skeleton is a kinds string and a list of segments, each stored once; the cards
  of a template differ at most in their kinds, and a kinds string that differs from its template's
  most used one in a few holes is written as those changes.
- **steps** delta-coded: each step's columns as differences from the step before, with its
  variables (name index and card, the card as a distance from the next new card) and the names it
  clears, as one record; equal records are stored once (``records``) and the steps are a string of
  record numbers in base64 digits (``codes``, ``code_width`` characters each).

Snapshots are not stored: the decoder rebuilds them from the env diffs (the same rule as
``viewer_data._snapshots``). Deterministic: the same data gives the same bytes. This module must not
render anything nor decide what a card shows; it only re-encodes the data it is given.

Layout (``version`` 7)::

    packed {columns [column name], names [name], code_width, codes,
            records [[column delta, ..., env [[name, card delta]], clear [name]]],
            kinds [hole kinds, space-separated; or "@k hole=kind ...": kinds k, those holes changed],
            segments [text], segment_lists [[segment]],
            skeletons [[kinds, segment list]], card_width, card_skeletons (codes), floats (base 85, planes), words}
    hole kinds: v<slot> | r<significant>.<slot> | w | "|" (the summary ends) | c<more> (the longest
    hole padded to it, and more) | i<name> (a counter, one on) | j<name> (a counter, its step in
    words), each with an optional pad: >W (W characters with the hole), >@h (as many as hole h says),
    > (a count in words, after the hole's own word)
    slot: k (the card's k-th float in the stream) | a<n> (the mean of its first n) | s<n> (their std)
"""

from __future__ import annotations

import base64
import json
import math
import operator
import re
import struct
from collections import Counter
from collections.abc import Collection, Sequence
from typing import Any

from tracer.site.pages import card_workers

PACKED_VERSION = 7
DIGITS64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
# The float32 stream's digits: 85 characters that a JSON string holds as they are, and none that
# HTML gives a meaning to (no quote, backslash, <, >, &): each float32's 32 bits are 5 of them.
DIGITS85 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%()*+,-.:;=?@[]^_{}~"
# base64.b85encode's digits (RFC 1924's order), each written as the DIGITS85 digit of the same value
_TO_DIGITS85 = bytes.maketrans(
    b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~", DIGITS85.encode("ascii")
)
STEP_COLUMNS = (
    "file",
    "line",
    "fn",
    "depth",
    "call",
    "visible",
    "parent",
    "act_prev",
    "next",
    "prev",
    "over",
    "back_over",
    "out",
    "section",
)
# Words with a digit in them: the holes of a card's skeleton (each starts where a run of word
# characters starts: a run without a digit is read once, not once per character).
_WORD = re.compile(r"(?<![\w.+\-])(?=[\w.+\-]*\d)[\w.+\-]+")
_FLOAT = re.compile(r"-?\d+\.\d+(?:e[+-]\d+)?|-?\d(?:\.\d+)?e[+-]\d+")
_SUMMARY_END = "|"  # the hole kind that ends a card's summary (the card's own HTML follows)
_PACK_FLOAT = struct.Struct("<f")


def encode_floats(floats: list[float]) -> str:
    """``floats`` (each a float32) as 5 base-85 digits each (``DIGITS85``), most significant first, of
    its 32 bits, in planes: every number's first digit, then every number's second digit, and so on
    (a first digit is the number's sign and exponent, much alike from one number to the next: gzip
    finds them so)."""
    digits = base64.b85encode(struct.pack(f">{len(floats)}f", *floats)).translate(_TO_DIGITS85).decode("ascii")
    return "".join(digits[plane::5] for plane in range(5))


# -- the decoder's two number formats, in Python ---------------------------------------------------
def _positional_or_scientific(
    sign: str, digits: str, exponent: int, scientific_below: int, scientific_from: int, point_zero: bool
) -> str:
    if scientific_below <= exponent < scientific_from:
        if exponent >= 0:
            whole = digits[: exponent + 1].ljust(exponent + 1, "0")
            fraction = digits[exponent + 1 :]
            if not fraction:
                return sign + whole + (".0" if point_zero else "")
            return sign + whole + "." + fraction
        return sign + "0." + "0" * (-exponent - 1) + digits
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return sign + mantissa + "e" + ("-" if exponent < 0 else "+") + str(abs(exponent))


def exact_text(sign: str, digits: str, exponent: int) -> str:
    """A float as Python's repr writes it, exponent unpadded ("1e-5"): as step-data.js writes a float hole."""
    return _positional_or_scientific(sign, digits, exponent, -4, 16, True)


def rounded_text(sign: str, digits: str, exponent: int, significant: int = 4) -> str:
    """``digits`` rounded half up to ``significant`` digits, written as ``%.{significant}g`` writes
    them (exponent unpadded): as step-data.js writes a rounded hole. Checked against the card's text
    before use, so a value whose binary rounding differs is simply not written this way."""
    if len(digits) > significant:
        kept = int(digits[:significant]) + (1 if digits[significant] >= "5" else 0)
        if kept == 10**significant:
            kept, exponent = 10 ** (significant - 1), exponent + 1
        digits = str(kept).rstrip("0") or "0"
    if digits == "0":
        return sign + "0"
    return _positional_or_scientific(sign, digits, exponent, -4, significant, False)


ROUNDINGS = (4, 6, 3)  # the significant digits cards round numbers to (value grids, statistics, units)


def _round_trips(text: str, magnitude: float) -> bool:
    """Whether the decimal ``text`` reads back (as Math.fround(Number(text)) does) as the float32 ``magnitude``."""
    return _PACK_FLOAT.unpack(_PACK_FLOAT.pack(float(text)))[0] == magnitude


def float32_digits(word: str) -> tuple[str, str, int] | None:
    """The number ``word`` as the decoder writes a float hole back from its float32: (sign, digits,
    exponent), when that gives ``word`` again; else None (the word is then kept as text).

    The decoder takes the first p = 1, 2, ... whose ``toExponential(p - 1)`` reads back as the
    float32. That is ``word``'s own p when its digits read back and no shorter decimal does: if a
    decimal with fewer digits read back, one with one digit fewer than ``word`` would too (append a
    zero), and the two such decimals nearest the float32 are the only ones to try. A float32 whose
    exact decimal is short (fewer than 11 digits) is refused: JavaScript rounds a halfway case up,
    Python to even."""
    sign = "-" if word.startswith("-") else ""
    try:
        f = abs(_PACK_FLOAT.unpack(_PACK_FLOAT.pack(float(word)))[0])
    except OverflowError:
        return None
    if f == 0.0 or f == float("inf") or f.as_integer_ratio()[1] < 1 << 15:
        return None
    mantissa, _, exponent_text = word.lstrip("-").partition("e")
    digits = mantissa.replace(".", "").lstrip("0").rstrip("0")
    precision = len(digits)
    text = f"{f:.{precision - 1}e}"
    mantissa, _, exponent_text = text.partition("e")
    if mantissa.replace(".", "").rstrip("0") != digits or not _round_trips(text, f):
        return None
    if precision > 1:
        shorter = f"{f:.{precision - 2}e}"
        if _round_trips(shorter, f):
            return None
        head, _, tail = shorter.partition("e")
        units = int(head.replace(".", "")) + (1 if float(shorter) < f else -1)
        neighbour = f"{units}e{int(tail) - (precision - 2)}"
        if units > 0 and _round_trips(neighbour, f):
            return None
    return sign, digits, int(exponent_text)


def _float32(value: float) -> float:
    """``value`` rounded to the nearest float32, as Math.fround rounds it."""
    try:
        return _PACK_FLOAT.unpack(_PACK_FLOAT.pack(value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)


def _statistic(stored: list[float], value: float, mean: bool, std: bool) -> str | None:
    """ "a<n>" when ``mean`` and the float32 of ``value`` is what step-data.js computes as the mean of
    the float32s of ``stored`` (n numbers: in doubles, added in order, then rounded to float32), else
    "s<n>" when ``std`` and it is their sample standard deviation so computed, else None."""
    numbers = [_float32(number) for number in stored]
    total = 0.0
    for number in numbers:
        total += number
    average = total / len(numbers)
    target = _float32(value)
    if mean and _float32(average) == target:
        return f"a{len(numbers)}"
    m2 = 0.0
    for number in numbers:
        deviation = number - average
        m2 += deviation * deviation
    if std and _float32(math.sqrt(m2 / (len(numbers) - 1))) == target:
        return f"s{len(numbers)}"
    return None


class _Numbers:
    """Each number word's float32 digits (or None), worked out once per distinct word."""

    def __init__(self) -> None:
        self._seen: dict[str, tuple[str, str, int] | None] = {}

    def digits(self, word: str) -> tuple[str, str, int] | None:
        found = self._seen.get(word, False)
        if found is False:
            found = None
            if _FLOAT.fullmatch(word):
                digits = float32_digits(word)
                if digits is not None and exact_text(*digits) == word:
                    found = digits
            self._seen[word] = found
        return found  # type: ignore[return-value]


# -- cards -------------------------------------------------------------------------------------------
_PAD = "\x01"  # where a segment's padding spaces go (a hole's pad); never used when a card holds it
_PADDED = re.compile(r"( +)((?:<[^<>]*>)*)$")  # spaces, then only tags, before a hole: they right-align it
_SPLIT = re.compile(r"(\{root\}assets/[A-Za-z0-9_.\-/]+|" + _WORD.pattern + ")")
# The holes in the order they come; a file's src stays whole: an asset path ({root}assets/...) is one
# word, and any other src stays in its segment, so that a tool that rewrites them in data.js (chalktrace
# export inlines them) finds them as the page has them.
_HOLES = re.compile(r'(?P<asset>\{root\}assets/[A-Za-z0-9_.\-/]+)|(?P<src>src=\\?"(?!\{root\}assets/)[^"\\]*)|' + _WORD.pattern)


class _Cutter:
    """Text cut at its digit words, each distinct text once (a card's lines repeat across cards):
    (segments, words, pads), with each right-aligning run of spaces replaced by _PAD and counted."""

    def __init__(self, pad: bool) -> None:
        self.numbers = _Numbers()
        self.pad = pad
        self._cut: dict[str, tuple[list[str], list[str], list[int]]] = {}
        # Equal segments are one string object, and so is each join of a line's last segment with the
        # next line's first: a card worker's cards then go back pickled with each segment once a chunk
        # (half the bytes, 100,005-step bench: 1.5 s of a 31 s build), and grouping cards by template
        # hashes and compares strings already known.
        self.shared: dict[str, str] = {}
        self.joins: dict[tuple[str, str], str] = {}

    def __call__(self, text: str) -> tuple[list[str], list[str], list[int]]:
        found = self._cut.get(text)
        if found is None:
            if "src=" in text:
                segments, words, start = [], [], 0
                for hole in _HOLES.finditer(text):
                    if hole.lastgroup == "src":
                        continue  # kept in the segment it is in
                    segments.append(text[start : hole.start()])
                    words.append(hole.group())
                    start = hole.end()
                segments.append(text[start:])
            else:  # the same cut, in one call
                pieces = _SPLIT.split(text)  # segment, word, segment, ..., segment
                segments, words = pieces[0::2], pieces[1::2]
            pads = [-1] * len(words)
            if self.pad:  # a run of spaces never reaches across a line's start (the "\n" between lines)
                for k, segment in enumerate(segments[:-1]):
                    if segment.endswith((" ", ">")):
                        spaces = _PADDED.search(segment, max(0, len(segment) - 200))
                        if spaces:
                            pads[k] = len(spaces.group(1))
                            segments[k] = segment[: spaces.start()] + _PAD + spaces.group(2)
            share = self.shared.setdefault
            found = self._cut[text] = ([share(segment, segment) for segment in segments], words, pads)
        return found


class _Card:
    """One card cut at its digit words: segments (len(holes) + 1), each hole's kind ("v<k>": float
    slot k exactly, "r<p>.<k>": slot k rounded to p digits, "w": a word, "|": the summary ends), its
    text, and its pad (the spaces before it, when they right-align it; -1 when none)."""

    __slots__ = ("_template", "floats", "kinds", "pads", "segments", "texts")

    def __init__(self, summary: str | None, fragments: list[str], cut: _Cutter) -> None:
        numbers = cut.numbers
        segments: list[str] = []
        texts: list[str] = []
        pads: list[int] = []
        if summary is not None:
            s_segments, s_texts, s_pads = cut(summary)
            segments.extend(s_segments)
            texts.extend(s_texts)
            pads.extend(s_pads)
            texts.append(_SUMMARY_END)
            pads.append(-1)
        joins = cut.joins
        for number, fragment in enumerate(fragments):  # a card's HTML is its fragments, one per line
            f_segments, f_texts, f_pads = cut(fragment)
            if number:
                pair = (segments[-1], f_segments[0])
                joined = joins.get(pair)
                if joined is None:
                    joined = joins[pair] = pair[0] + "\n" + pair[1]
                segments[-1] = joined
            else:
                segments.append(f_segments[0])
            segments.extend(f_segments[1:])
            texts.extend(f_texts)
            pads.extend(f_pads)
        self.segments = segments  # a summary's last segment and the card's first meet at its end hole
        self.texts = texts
        self.pads = pads
        # a number is a float slot unless it is another slot's number rounded: the longer words first
        # (a rounded one is short), so that a rounded word's own digits are seldom worked out
        distinct = sorted(set(texts) - {_SUMMARY_END}, key=lambda text: (-len(text), text))
        exact: dict[str, tuple[str, str, int] | None] = {}
        rounded_from: dict[str, tuple[int, str]] = {}
        for text in distinct:
            if text in rounded_from:
                continue
            digits = exact[text] = numbers.digits(text)
            if digits is None:
                continue
            for significant in ROUNDINGS:
                if len(digits[1]) > significant:
                    rounded = rounded_text(*digits, significant)
                    # a whole number ("-1") stays a word: it is as likely the card's own text (an
                    # svg's viewBox) as a number rounded, and a word every card has stays in the skeleton
                    if rounded != text and rounded not in rounded_from and ("." in rounded or "e" in rounded):
                        rounded_from[rounded] = (significant, text)
        slots: dict[str, str] = {}  # a number's text -> its slot: a number, or a statistic of the first n slots
        floats: list[float] = []  # the stored slots' numbers (their texts; the stream holds them as float32)
        self.floats = floats
        total = size = 0.0  # their sum and the sum of their magnitudes
        mean_of = -1  # n when the last new number was the mean of the first n slots (a std may follow)

        def slot(text: str) -> str:
            nonlocal total, size, mean_of
            found = slots.get(text)
            if found is None:
                value = float(text)
                count = len(floats)
                # within float32's rounding of the mean (the decoder's float32s differ from the texts
                # by at most 2**-24 of each, or a subnormal's step): then worked out exactly
                near = count > 1 and abs(total / count - value) <= 1e-6 * (size / count + abs(value)) + 1e-44
                if near or (count > 1 and mean_of == count):
                    found = _statistic(floats, value, near, mean_of == count)
                    mean_of = count if found and found[0] == "a" else mean_of
                if found is None:
                    found = str(count)
                    floats.append(value)
                    total += value
                    size += abs(value)
                slots[text] = found
            return found

        # the card's own holes take their slots first, in order (a tensor's elements are then its first
        # slots, and a statistic of them one of the first n), then the summary's (it may shorten them)
        end = texts.index(_SUMMARY_END) if summary is not None else -1
        kinds = ["w"] * len(texts)
        for k in [*range(end + 1, len(texts)), *range(end)]:
            text = texts[k]
            if text in rounded_from:
                significant, source = rounded_from[text]
                kinds[k] = f"r{significant}.{slot(source)}"
            elif exact[text] is not None:
                kinds[k] = f"v{slot(text)}"
        if end >= 0:
            kinds[end] = _SUMMARY_END
        self.kinds = kinds
        self._template: tuple[Any, ...] | None = None

    def template(self) -> tuple[Any, ...]:
        """The card's text between its holes, and which holes have a pad: cards alike but for their
        holes (their kinds too may differ: a number that is another's rounding in one card)."""
        if self._template is None:  # here, not in a card worker: it would be sent back with the card
            self._template = (tuple(self.segments), tuple([pad >= 0 for pad in self.pads]))
        return self._template


def _pad_rule(k: int, pads: list[tuple[int, ...]], texts: list[tuple[str, ...]], kinds: list[tuple[str, ...]]) -> str:
    """How hole k's pad is written for every card of one template (``pads``, ``texts``, ``kinds``: each
    hole's column, over the cards): "" (the same spaces in each: kept in the skeleton), ">W" (the
    spaces and the hole's text make W characters), ">@j" (they make as many as hole j's text says: a
    grid's column width) or ">" (the count is the next word)."""
    column, count = pads[k], len(pads[k])
    if column.count(column[0]) == count:
        return ""
    widths = list(map(operator.add, column, map(len, texts[k])))
    if widths.count(widths[0]) == count:
        return f">{widths[0]}"
    for j in range(k - 1, -1, -1):
        words = texts[j]
        if kinds[j][0] == "w" and words[0].isdecimal() and kinds[j].count("w") == count and "".join(words).isdecimal():
            if list(map(int, words)) == widths:
                return f">@{j}"
    return ">"


class _Index:
    """Equal items stored once: ``add`` gives an item's number."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self._numbers: dict[Any, int] = {}

    def add(self, item: Any) -> int:
        number = self._numbers.get(item)
        if number is None:
            number = self._numbers[item] = len(self.items)
            self.items.append(item)
        return number


class _Tables:
    """A skeleton is a kinds string and a list of segments, each stored once."""

    def __init__(self) -> None:
        self.kinds, self.lists, self.segments, self.skeletons = _Index(), _Index(), _Index(), _Index()


_COUNTER = re.compile(r"([A-Za-z]+)(0|[1-9][0-9]{0,14})")  # a word that counts on from card to card ("s12")


def _widths(texts: list[tuple[str, ...]], pad_rules: list[str]) -> dict[int, str]:
    """The holes that every card of one template can leave to the decoder because each is a column's
    width: the longest text of the holes padded to it (">@j") and a number, the same in every card,
    more ("c<more>"); hole -> its kind. ``texts``: each hole's texts, over the cards (column by column:
    C-level maps, not a loop per card)."""
    padded: dict[int, list[int]] = {}
    for k, rule in enumerate(pad_rules):
        if rule.startswith(">@"):
            padded.setdefault(int(rule[2:]), []).append(k)
    kinds = {}
    for j, holes in padded.items():
        if any(k in padded for k in holes):  # a width padded to a width: left as it is
            continue
        lengths = [map(len, texts[k]) for k in holes]
        longest = map(max, *lengths) if len(lengths) > 1 else lengths[0]
        numbers = list(map(int, texts[j]))
        more = set(map(operator.sub, numbers, longest))
        if len(more) == 1 and list(map(str, numbers)) == list(texts[j]):
            kinds[j] = f"c{more.pop()}"
    return kinds


def _counters(members: list[_Card], alike: list[bool], derived: dict[int, str]) -> dict[int, str]:
    """The word holes that hold a name and a whole number in every card of one template ("s12": a
    storage's id), the same name in each: the decoder counts them on from the number the last such
    hole with that name had, in card order; hole -> its name."""
    names = {}
    for k, kind in enumerate(members[0].kinds):
        if kind != "w" or alike[k] or k in derived:
            continue
        found = _COUNTER.fullmatch(members[0].texts[k])  # (a number's text never matches: it is a word in every card)
        if found and all((match := _COUNTER.fullmatch(card.texts[k])) and match.group(1) == found.group(1) for card in members):
            names[k] = found.group(1)
    return names


class _Rules:
    """How every card of one template (``_Card.template``) is written: which word holes are alike
    (kept in the skeleton), each hole's pad rule, the holes the decoder works out (a column's width:
    "c<more>"), and the counters (hole -> name). Cards whose kinds differ share these, and so their
    segments."""

    __slots__ = ("alike", "counters", "derived", "pad_rules")

    def __init__(self, members: list[_Card]) -> None:
        first, count = members[0], len(members)
        # each hole's column over the cards (one C-level pass, then counts)
        pads = list(zip(*[card.pads for card in members]))
        texts = list(zip(*[card.texts for card in members]))
        kinds = list(zip(*[card.kinds for card in members]))
        self.pad_rules = [_pad_rule(k, pads, texts, kinds) if first.pads[k] >= 0 else "" for k in range(len(first.kinds))]
        self.alike = [
            kinds[k][0] == "w" and not self.pad_rules[k] and texts[k].count(texts[k][0]) == count and kinds[k].count("w") == count
            for k in range(len(first.kinds))
        ]
        self.derived = _widths(texts, self.pad_rules)
        self.counters = _counters(members, self.alike, self.derived)


# what a card writes into ``words`` for one hole: (hole, what its word is, whether its pad's count follows)
_TEXT, _STEP, _NONE = 1, 2, 0


def _skeleton(card: _Card, rules: _Rules, by_one: tuple[bool, ...], tables: _Tables) -> tuple[int, list[tuple[int, int, bool]]]:
    """The skeleton of ``card`` (its template and kinds) with its counters counting on by one where
    ``by_one`` says (its number in ``tables``), and what each card with that skeleton writes into
    ``words``: (hole, its word: _TEXT its text, _STEP its counter's step, _NONE none; its pad's
    count?) for each hole that writes any."""
    segments = [card.segments[0]]
    kinds: list[str] = []
    own: list[tuple[int, int, bool]] = []
    renumbered: dict[int, int] = {}  # hole k -> its number among the holes the skeleton keeps
    counted = iter(by_one)
    for k, kind in enumerate(card.kinds):
        rule = rules.pad_rules[k]
        if card.pads[k] >= 0 and not rule:  # the same spaces in every card of this template
            segments[-1] = segments[-1].replace(_PAD, " " * card.pads[k])
        if rules.alike[k]:
            segments[-1] += card.texts[k] + card.segments[k + 1]
            continue
        if rule.startswith(">@"):
            rule = f">@{renumbered[int(rule[2:])]}"
        word = _NONE
        if k in rules.derived:
            kind = rules.derived[k]
        elif k in rules.counters:
            one = next(counted)
            kind = ("i" if one else "j") + rules.counters[k]
            word = _NONE if one else _STEP
        elif kind == "w":
            word = _TEXT
        if word or rule == ">":
            own.append((k, word, rule == ">"))
        renumbered[k] = len(kinds)
        kinds.append(kind + rule)
        segments.append(card.segments[k + 1])
    skeleton = (tables.kinds.add(" ".join(kinds)), tables.lists.add(tuple(tables.segments.add(text) for text in segments)))
    return tables.skeletons.add(skeleton), own


def _as_changes(kinds: list[str], used: Collection[Counter[int]]) -> list[str]:
    """``kinds`` with each string that differs from its template's most used one in a few holes
    written as those changes ("@base hole=kind ..."), where that is shorter; the most used ones stay whole."""
    kinds = list(kinds)
    bases = {counts.most_common(1)[0][0] for counts in used}
    for counts in used:
        base = counts.most_common(1)[0][0]
        base_kinds = kinds[base].split(" ")
        for index in counts:
            if index in bases:
                continue
            own = kinds[index].split(" ")
            if len(own) == len(base_kinds) and not kinds[index].startswith("@"):
                changes = " ".join(f"{h}={kind}" for h, (kind, was) in enumerate(zip(own, base_kinds)) if kind != was)
                if len(changes) + 8 < len(kinds[index]):
                    kinds[index] = f"@{base} {changes}"
    return kinds


def cut_cards(texts: Sequence[tuple[str | None, list[str]]], pad: bool) -> list[_Card]:
    """Each card (its summary, its fragments) cut at its digit words."""
    cut = _Cutter(pad)
    return [_Card(summary, fragments, cut) for summary, fragments in texts]


def pack_cards(fragments: list[str], cards: list[list[int]], summaries: list[str | None]) -> dict[str, Any]:
    """The cards (each a list of ``fragments``, its lines) packed: their skeletons, each card's
    skeleton number, the float32 stream and the words."""
    pad = not any(_PAD in text for text in fragments) and not any(summary and _PAD in summary for summary in summaries)
    texts = [(summary, [fragments[k] for k in card]) for card, summary in zip(cards, summaries)]
    # each card is cut on its own: in worker processes when there are many (card_workers)
    parts = [part for chunk in card_workers.map_chunks(cut_cards, texts, here=(pad,)) for part in chunk]
    groups: dict[tuple[Any, ...], list[_Card]] = {}
    for card in parts:
        groups.setdefault(card.template(), []).append(card)
    rules = {template: _Rules(members) for template, members in groups.items()}
    tables = _Tables()
    card_skeletons: list[int] = []
    floats: list[float] = []
    words: list[str] = []
    counted: dict[str, int] = {}  # each counter's name -> the number it last had
    plans: dict[tuple[Any, ...], tuple[int, list[tuple[int, int, bool]]]] = {}
    for card in parts:
        template = card.template()
        rule = rules[template]
        steps = {}
        for k, name in rule.counters.items():
            number = int(card.texts[k][len(name) :])
            steps[k] = number - counted.get(name, 0)
            counted[name] = number
        by_one = tuple(step == 1 for step in steps.values())
        shape = (template, tuple(card.kinds), by_one)
        plan = plans.get(shape)
        if plan is None:  # every card of one template, with the same kinds and counters stepping alike, has one skeleton
            plan = plans[shape] = _skeleton(card, rule, by_one, tables)
        skeleton, own = plan
        card_skeletons.append(skeleton)
        for k, word, pad_count in own:
            if word == _TEXT:
                words.append(card.texts[k])
            elif word == _STEP:
                words.append(str(steps[k]))
            if pad_count:
                words.append(str(card.pads[k]))
        floats.extend(card.floats)
    width, codes = encode_codes(card_skeletons, len(tables.skeletons.items))
    uses = Counter(card_skeletons)
    kinds_of: dict[tuple[Any, ...], Counter[int]] = {}  # template -> its kinds strings, each with its cards
    for template, skeleton in dict.fromkeys((shape[0], plan[0]) for shape, plan in plans.items()):
        kinds_of.setdefault(template, Counter())[tables.skeletons.items[skeleton][0]] += uses[skeleton]
    return {
        "kinds": _as_changes(tables.kinds.items, kinds_of.values()),
        "segment_lists": [list(ids) for ids in tables.lists.items],
        "segments": tables.segments.items,
        "skeletons": [list(pair) for pair in tables.skeletons.items],
        "card_width": width,
        "card_skeletons": codes,
        "floats": encode_floats(floats),
        "words": " ".join(words),
    }


# -- steps -------------------------------------------------------------------------------------------
def encode_codes(values: list[int], distinct: int) -> tuple[int, str]:
    """``values`` (each below ``distinct``) as base64 digits, the fewest characters each that hold them all."""
    width = 1
    while 64**width < distinct:
        width += 1
    out = []
    for value in values:
        chars = []
        for _ in range(width):
            chars.append(DIGITS64[value & 63])
            value >>= 6
        out.append("".join(reversed(chars)))
    return width, "".join(out)


def pack_steps(data: dict[str, Any]) -> dict[str, Any]:
    """The steps' columns, env diffs and clears as delta-coded records, each distinct one stored once."""
    count = data["count"]
    columns = [data["steps"][name] for name in STEP_COLUMNS]
    env, clear = data["env"], data["clear"]
    name_index: dict[str, int] = {}
    names: list[str] = []

    def name_of(name: str) -> int:
        if name not in name_index:
            name_index[name] = len(names)
            names.append(name)
        return name_index[name]

    previous = [0] * len(columns)
    next_card = 0  # the next card not yet shown: cards are numbered in the order steps first show them
    record_index: dict[str, int] = {}
    records: list[Any] = []
    codes: list[int] = []
    for index in range(count):
        values = [column[index] for column in columns]
        record: list[Any] = [value - before for value, before in zip(values, previous)]
        previous = values
        key = str(index)
        diff = []
        for name, card in env.get(key, ()):
            diff.append([name_of(name), card - next_card])
            next_card = max(next_card, card + 1)
        record.append(diff)
        record.append([name_of(name) for name in clear.get(key, ())])
        text = json.dumps(record, separators=(",", ":"))
        if text not in record_index:
            record_index[text] = len(records)
            records.append(record)
        codes.append(record_index[text])
    width, code_text = encode_codes(codes, len(records))
    return {"columns": list(STEP_COLUMNS), "names": names, "records": records, "code_width": width, "codes": code_text}


def pack_viewer_data(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (``build_viewer_data``'s) with its steps, variables and cards packed (module docstring)."""
    packed = {
        key: value
        for key, value in data.items()
        if key not in ("steps", "env", "clear", "snapshots", "fragments", "cards", "summaries")
    }
    packed["version"] = PACKED_VERSION
    packed["packed"] = {**pack_steps(data), **pack_cards(data["fragments"], data["cards"], data["summaries"])}
    return packed
