"""The value cards of a packed ``data.js``, as step-data.js decodes them, written again in Python so that
tests can read what a page shows without a browser (tests/browser/test_browser_step_data.py checks
the browser's own decoding against the renderer)."""

from __future__ import annotations

import math
import struct
from typing import Any

from tracer.site.pages.packed_data import DIGITS64, DIGITS85, exact_text, rounded_text


def _float32_number(f: float) -> tuple[str, str, int]:
    """A float32's shortest decimal, found as step-data.js finds it: the first precision that reads back."""
    sign = "-" if f < 0 else ""
    magnitude = abs(f)
    for precision in range(1, 10):
        text = f"{magnitude:.{precision - 1}e}"
        if struct.unpack("<f", struct.pack("<f", float(text)))[0] == magnitude:
            break
    mantissa, _, exponent = text.partition("e")
    return sign, mantissa.replace(".", "").rstrip("0") or "0", int(exponent)


def _floats(text: str) -> list[float]:
    """The float32 stream: 5 base-85 digits a number, most significant first, of its 32 bits, in
    planes (every number's first digit, then every number's second digit, ...)."""
    count = len(text) // 5
    out = []
    for at in range(count):
        bits = 0
        for char in text[at::count]:
            bits = bits * 85 + DIGITS85.index(char)
        out.append(struct.unpack("<f", struct.pack("<I", bits))[0])
    return out


def _float32(value: float) -> float:
    return struct.unpack("<f", struct.pack("<f", value))[0]


def _statistic(values: list[float], which: str) -> float:
    """The mean ("a") or standard deviation ("s") of ``values``, as step-data.js computes it."""
    total = 0.0
    for value in values:
        total += value
    mean = total / len(values)
    if which == "a":
        return _float32(mean)
    m2 = 0.0
    for value in values:
        m2 += (value - mean) * (value - mean)
    return _float32(math.sqrt(m2 / (len(values) - 1)))


def unpacked_cards(payload: dict[str, Any]) -> list[tuple[str, str | None]]:
    """Every card of ``payload`` (the object in data.js) as (html, summary)."""
    p = payload["packed"]
    floats = _floats(p["floats"])
    words = p["words"].split(" ") if p["words"] else []
    width, codes = p["card_width"], p["card_skeletons"]
    cards: list[tuple[str, str | None]] = []
    float_at = word_at = 0
    counted: dict[str, int] = {}
    for k in range(len(codes) // width):
        number = 0
        for char in codes[k * width : (k + 1) * width]:
            number = number * 64 + DIGITS64.index(char)
        kinds_index, list_index = p["skeletons"][number]
        kinds = p["kinds"][kinds_index].split(" ") if p["kinds"][kinds_index] else []
        if kinds and kinds[0].startswith("@"):  # another kinds string with a few holes changed
            changes, kinds = kinds[1:], p["kinds"][int(kinds[0][1:])].split(" ")
            for change in changes:
                hole, _, kind = change.partition("=")
                kinds[int(hole)] = kind
        tokens = [token.partition(">") for token in kinds]
        segments = [p["segments"][s] for s in p["segment_lists"][list_index]]
        slots: dict[str, tuple[str, str, int]] = {}
        used = 0
        texts, pad_words = [], []
        for kind, pad, rule in tokens:  # each hole's text, and the count its pad takes from words
            text = ""
            if kind == "w":
                text = words[word_at]
                word_at += 1
            elif kind[0] in "ij":  # a counter: one on, or a step in words
                step = 1 if kind[0] == "i" else int(words[word_at])
                word_at += kind[0] == "j"
                counted[kind[1:]] = counted.get(kind[1:], 0) + step
                text = kind[1:] + str(counted[kind[1:]])
            elif kind[0] in "vr":
                significant, _, ref = kind[1:].rpartition(".") if kind[0] == "r" else ("", "", kind[1:])
                if ref not in slots:
                    if ref[0] in "as":  # a statistic of the card's first n slots
                        value = _statistic(floats[float_at : float_at + int(ref[1:])], ref[0])
                    else:
                        used = max(used, int(ref) + 1)
                        value = floats[float_at + int(ref)]
                    slots[ref] = _float32_number(value)
                text = exact_text(*slots[ref]) if kind[0] == "v" else rounded_text(*slots[ref], int(significant))
            texts.append(text)
            pad_words.append(int(words[word_at]) if pad and not rule else 0)
            word_at += bool(pad and not rule)
        for h, (kind, _, _) in enumerate(tokens):  # a column's width: its longest hole's text and more
            if kind[0] == "c":
                padded = [len(texts[j]) for j, (_, pad, rule) in enumerate(tokens) if pad and rule == f"@{h}"]
                texts[h] = str(max(padded) + int(kind[1:]))
        out, summary = "", None
        for h, (kind, pad, rule) in enumerate(tokens):
            segment, text = segments[h], texts[h]
            if pad:
                target = int(texts[int(rule[1:])]) if rule.startswith("@") else int(rule) if rule else pad_words[h] + len(text)
                segment = segment.replace("\x01", " " * max(0, target - len(text)))
            out += segment
            if kind == "|":
                summary, out = out, ""
            else:
                out += text
        float_at += used
        cards.append((out + segments[len(tokens)], summary))
    return cards
