"""Draw the bit layouts of float32, float16, bfloat16 and the two fp8 formats as SVG files.

Each format is a row of one box per bit, coloured by field (sign, exponent, mantissa), with the
field widths written underneath. The output goes to ``lectures/images/<format>.svg`` and is
committed, so lectures never draw at trace time. This script only writes SVG text: it must not
import torch or anything outside the standard library.

Run: ``python scripts/draw_float_formats.py`` (from anywhere; paths are resolved from this file).
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

OUT_DIR = Path(__file__).resolve().parent.parent / "lectures" / "images"

BOX_PX = 22
MARGIN_PX = 12
TITLE_PX = 26
LABEL_PX = 56
LABEL_ROW_PX = 16  # exponent labels sit one row lower so narrow fields never collide

SIGN_FILL = "#e4572e"
EXPONENT_FILL = "#2e86ab"
MANTISSA_FILL = "#76b041"


class FloatFormat(NamedTuple):
    file_stem: str
    title: str
    exponent_bits: int
    mantissa_bits: int

    @property
    def total_bits(self) -> int:
        return 1 + self.exponent_bits + self.mantissa_bits


FORMATS = [
    FloatFormat("float32", "float32 (single precision)", 8, 23),
    FloatFormat("float16", "float16 (half precision)", 5, 10),
    FloatFormat("bfloat16", "bfloat16 (brain float)", 8, 7),
    FloatFormat("fp8_e4m3", "fp8 E4M3", 4, 3),
    FloatFormat("fp8_e5m2", "fp8 E5M2", 5, 2),
]


def _field_label(x_px: float, width_px: float, y_px: float, text: str) -> str:
    # Narrow fields (the sign) get their label anchored at the start so it never overflows left.
    anchor = "middle" if width_px >= 60 else "start"
    x = x_px + width_px / 2 if anchor == "middle" else x_px
    return f'<text x="{x:.1f}" y="{y_px}" text-anchor="{anchor}" font-size="12">{text}</text>'


def svg_for(fmt: FloatFormat) -> str:
    """The whole SVG document for one format."""
    fields = [
        ("sign", 1, SIGN_FILL),
        ("exponent", fmt.exponent_bits, EXPONENT_FILL),
        ("mantissa", fmt.mantissa_bits, MANTISSA_FILL),
    ]
    width_px = 2 * MARGIN_PX + max(fmt.total_bits * BOX_PX, 200)
    height_px = TITLE_PX + BOX_PX + LABEL_PX
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width_px}" height="{height_px}" '
        f'viewBox="0 0 {width_px} {height_px}" font-family="sans-serif">',
        f"<title>{fmt.title}: 1 sign bit, {fmt.exponent_bits} exponent bits, {fmt.mantissa_bits} mantissa bits</title>",
        f'<text x="{MARGIN_PX}" y="{TITLE_PX - 8}" font-size="14" font-weight="bold">{fmt.title} = {fmt.total_bits} bits</text>',
    ]
    bit_index = 0
    for field_number, (name, nbits, fill) in enumerate(fields):
        field_x = MARGIN_PX + bit_index * BOX_PX
        for _ in range(nbits):
            x = MARGIN_PX + bit_index * BOX_PX
            parts.append(
                f'<rect x="{x}" y="{TITLE_PX}" width="{BOX_PX}" height="{BOX_PX}" fill="{fill}" stroke="#ffffff" stroke-width="1"/>'
            )
            # Bits are numbered from the most significant (left) down to 0, as in the specs.
            bit_number = fmt.total_bits - 1 - bit_index
            parts.append(
                f'<text x="{x + BOX_PX / 2:.1f}" y="{TITLE_PX + 15}" text-anchor="middle" font-size="9" fill="#ffffff">{bit_number}</text>'
            )
            bit_index += 1
        field_px = nbits * BOX_PX
        bracket_y = TITLE_PX + BOX_PX + 4
        parts.append(
            f'<path d="M{field_x + 2} {bracket_y} v4 h{field_px - 4} v-4" fill="none" stroke="{fill}" stroke-width="1.5"/>'
        )
        label_y = bracket_y + 18 + LABEL_ROW_PX * (field_number % 2)
        parts.append(_field_label(field_x, field_px, label_y, f"{name} ({nbits})"))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main() -> None:
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    for fmt in FORMATS:
        path = OUT_DIR / f"{fmt.file_stem}.svg"
        path.write_text(svg_for(fmt), encoding="utf-8")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
