"""packed_data: cards packed for data.js decode (by the Python twin of step-data.js) to their very
text, and numbers the decoder can work out are not stored (tests/browser/test_browser_step_data.py
decodes real sites' cards in Chromium)."""

from __future__ import annotations

import json
import struct

from helpers.step_data import unpacked_cards
from tracer.site.pages.packed_data import DIGITS85, encode_floats, pack_cards


def _packed(cards: list[str], summaries: list[str | None] | None = None) -> dict:
    packed = pack_cards(cards, [[k] for k in range(len(cards))], summaries or [None] * len(cards))
    return json.loads(json.dumps(packed))  # as data.js carries it


def _decoded(packed: dict) -> list[tuple[str, str | None]]:
    return unpacked_cards({"packed": packed})


def test_the_float_stream_is_five_digits_a_number_in_planes_that_a_json_string_and_a_page_hold_as_they_are():
    text = encode_floats([1.5, -2.25e-30, 3.0e38, 0.1, 0.0])
    assert len(text) == 25
    assert set(text) <= set(DIGITS85)
    assert not set(DIGITS85) & set("\"\\<>&'")
    assert text[0::5] == "KfnM0"  # 1.5 (0x3fc00000), most significant digit first, one digit in each plane
    assert text[4::5] == "00000"  # 0.0
    assert text[:5] == "KjeJ0"  # every number's first digit (its sign and exponent, mostly)


def test_a_tensors_mean_and_std_are_worked_out_from_its_elements_and_not_stored():
    # each card: four elements, then their mean and sample standard deviation as float32 writes them
    one = "<pre>0.7 0.2 0.3 0.1</pre> <b>mean</b> 0.325 <b>std</b> 0.26299557 <b>max</b> 0.7"
    two = "<pre>0.061887886 0.05928086 0.009273165 0.030979125</pre> <b>mean</b> 0.040355258 <b>std</b> 0.025005605"
    packed = _packed([one, two])
    assert _decoded(packed) == [(one, None), (two, None)]
    for skeleton in packed["skeletons"]:
        kinds = packed["kinds"][skeleton[0]].split(" ")
        assert "va4" in kinds and "vs4" in kinds
    assert len(packed["floats"]) == 5 * (4 + 4)  # the elements of each card, no statistic


def test_a_statistic_the_decoder_would_write_differently_is_stored():
    wrong_mean = "<pre>0.7 0.2 0.3 0.1</pre> <b>mean</b> 0.32500002 <b>std</b> 0.26299557"
    wrong_std = "<pre>0.7 0.2 0.3 0.1</pre> <b>mean</b> 0.325 <b>std</b> 0.2629956"
    packed = _packed([wrong_mean, wrong_std])
    assert _decoded(packed) == [(wrong_mean, None), (wrong_std, None)]
    assert len(packed["floats"]) == 5 * (6 + 5)  # both numbers of the first card (a std follows a mean), the std of the second


def test_a_summary_that_shortens_a_number_leaves_the_elements_the_first_slots():
    card = "<pre>0.061887886 0.05928086 0.009273165 0.030979125</pre> <b>mean</b> 0.040355258"
    summary = "[0.06189, 0.05928, 0.009273, 0.0309…"
    packed = _packed([card], [summary])
    assert _decoded(packed) == [(card, summary)]
    assert "va4" in packed["kinds"][0].split(" ")


def _grid(cells: list[str]) -> str:
    width = max(map(len, cells)) + 1
    return f'<pre style="--col: {width}">' + "".join(" " * (width - len(cell)) + cell for cell in cells) + "</pre>"


def test_a_columns_width_is_worked_out_from_its_cells_and_not_stored():
    cards = [_grid(["1.5", "22.75"]), _grid(["100.25", "3.5"]), _grid(["7.125", "8.5"])]
    packed = _packed(cards)
    assert _decoded(packed) == [(card, None) for card in cards]
    assert [packed["kinds"][skeleton[0]].split(" ")[0] for skeleton in packed["skeletons"]] == ["c1"]
    assert packed["words"].split(" ") == ["1.5", "22.75", "100.25", "3.5", "7.125", "8.5"]


def test_a_counted_name_is_stored_as_its_step_from_the_last_one_and_not_at_all_when_one():
    cards = [f"<dd>s{number} · 16 B</dd><i>{size}</i>" for number, size in ((1, 7), (2, 8), (4, 9), (5, 10), (15, 11))]
    packed = _packed(cards)
    assert _decoded(packed) == [(card, None) for card in cards]
    assert packed["words"].split(" ") == ["7", "8", "2", "9", "10", "10", "11"]
    assert sorted(packed["kinds"]) == ["is w", "js w"]


def test_cards_with_the_same_text_between_their_numbers_share_their_segments_whatever_their_kinds():
    # the second card's last number is its first one rounded: another kinds string, the same segments;
    # its -0.9995123 rounds to -1 (3 digits), yet the viewBox's -1 is the same word in every card
    svg = "<svg viewBox='-1 -1 9 9'></svg>"
    cards = [f"<b>0.7</b> and <i>0.2</i> {svg}", f"<b>-0.9995123</b> and <i>-0.9995</i> {svg}"]
    packed = _packed(cards)
    assert _decoded(packed) == [(card, None) for card in cards]
    assert len(packed["kinds"]) == 2 and len(packed["segment_lists"]) == 1
    assert "-1" not in packed["words"].split(" ")


def _float32_text(value: float) -> str:
    """``value`` as float32's shortest decimal (the packer's float slots)."""
    exact = struct.unpack("<f", struct.pack("<f", value))[0]
    for digits in range(1, 10):
        text = f"{exact:.{digits - 1}e}"
        if struct.unpack("<f", struct.pack("<f", float(text)))[0] == exact:
            return repr(float(text))
    raise AssertionError(value)


def test_a_kinds_string_that_differs_from_its_templates_usual_one_in_a_few_holes_is_written_as_the_changes():
    def card(offset: float, last: str) -> str:
        return "<p>" + " ".join(_float32_text(k + offset) for k in range(1, 13)) + f"</p><b>{last}</b>"

    usual, other = card(0.123456, "1.123"), card(0.223456, "1.223")  # the last: the first rounded
    unusual = card(0.323456, _float32_text(2.323456))  # the last: the second again
    packed = _packed([usual, other, unusual])
    assert _decoded(packed) == [(usual, None), (other, None), (unusual, None)]
    whole, changed = packed["kinds"]
    assert whole == " ".join(f"v{k}" for k in range(12)) + " r4.0"
    assert changed == "@0 12=v1"
