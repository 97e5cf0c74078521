"""tracer/site/cards/heatmap.py: colour scales, marks, sampling and the PNG it draws (decoded here by zlib)."""

from __future__ import annotations

import hashlib
import re
import struct
import zlib

from tracer.contract import paths
from tracer.site.cards.heatmap import DIVERGING_STOPS, SEQUENTIAL_STOPS, colour, file_name, heatmap


def css_gradient(stops: tuple[tuple[float, tuple[int, int, int]], ...]) -> str:
    """The stops as a CSS ``linear-gradient`` (left to right), as site.css writes the legend bars."""
    lo, hi = stops[0][0], stops[-1][0]
    return (
        "linear-gradient(to right, "
        + ", ".join(f"rgb({c[0]} {c[1]} {c[2]}) {round(100 * (t - lo) / (hi - lo))}%" for t, c in stops)
        + ")"
    )


def pixels(png: bytes) -> tuple[int, int, list[list[tuple[int, int, int, int]]]]:
    """Decode an 8-bit RGBA PNG whose rows all use filter 0 (what heatmap.py writes)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    at, idat, width = 8, b"", 0
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind, data = png[at + 4 : at + 8], png[at + 8 : at + 8 + length]
        assert struct.unpack(">I", png[at + 8 + length : at + 12 + length])[0] == zlib.crc32(kind + data)
        if kind == b"IHDR":
            width, height, depth, colour_type = struct.unpack(">IIBB", data[:10])
            assert (depth, colour_type) == (8, 6)
        elif kind == b"IDAT":
            idat += data
        at += 12 + length
    raw = zlib.decompress(idat)
    stride = 1 + 4 * width
    rows = []
    for y in range(len(raw) // stride):
        line = raw[y * stride : (y + 1) * stride]
        assert line[0] == 0
        rows.append([tuple(line[1 + 4 * x : 5 + 4 * x]) for x in range(width)])
    return width, len(rows), rows


def cell(view, image, r: int, c: int):
    size = view["cell_px"]
    return image[r * size + 1][c * size + 1]


def test_signed_data_is_diverging_and_centred_on_zero():
    view = heatmap([[-2.0, 0.0, 1.0]], (1, 3))
    assert view["scale"] == "diverging" and (view["min"], view["max"]) == ("-2.0", "1.0")
    _w, _h, image = pixels(view["png"])
    assert cell(view, image, 0, 0)[:3] == DIVERGING_STOPS[0][1]  # -2 is the limit: the blue end
    assert cell(view, image, 0, 1)[:3] == DIVERGING_STOPS[2][1]  # 0 is the centre
    assert cell(view, image, 0, 2)[:3] == colour(0.5, DIVERGING_STOPS)  # 1 is half way to the orange end


def test_unsigned_data_is_sequential_from_min_to_max():
    view = heatmap([[0, 5], [10, 20]], (2, 2))
    assert view["scale"] == "sequential" and (view["min"], view["max"]) == ("0", "20")
    _w, _h, image = pixels(view["png"])
    assert cell(view, image, 0, 0)[:3] == SEQUENTIAL_STOPS[0][1] and cell(view, image, 1, 1)[:3] == SEQUENTIAL_STOPS[-1][1]
    light = [sum(cell(view, image, r, c)[:3]) for r, c in ((0, 0), (0, 1), (1, 0), (1, 1))]
    assert light == sorted(light, reverse=True)  # darker as values grow


def test_nan_and_infinities_are_marked_and_left_out_of_the_scale():
    view = heatmap([[1.0, "nan"], ["inf", "-inf"], [3.0, 2.0]], (3, 2))
    assert view["nan"] and view["inf"] and (view["min"], view["max"]) == ("1.0", "3.0")
    _w, _h, image = pixels(view["png"])
    size = view["cell_px"]
    nan_cell = [image[y][size + x][:3] for y in range(size) for x in range(size)]
    assert (150, 150, 150) in nan_cell and (40, 40, 40) in nan_cell  # grey with a diagonal
    plus = [image[1 * size + y][x][:3] for y in range(size) for x in range(size)]
    minus = [image[1 * size + y][size + x][:3] for y in range(size) for x in range(size)]
    assert plus.count((255, 255, 255)) > minus.count((255, 255, 255)) > 0  # "+" has more white than "-"


def test_a_sampled_preview_is_labelled_and_maps_drawn_cells_to_real_indices():
    row = [1.0] * 3 + ["…"] + [2.0] * 3
    view = heatmap([row] * 3 + ["…"] + [row] * 3, (64, 50))
    assert view["sampled"] and view["row_index"] == "0-2,,61-63" and view["col_index"] == "0-2,,47-49"
    width, height, image = pixels(view["png"])
    assert (width, height) == (7 * view["cell_px"], 7 * view["cell_px"])
    assert cell(view, image, 3, 0)[3] == 0 and cell(view, image, 0, 3)[3] == 0  # gaps are transparent
    assert cell(view, image, 0, 0)[3] == 255


def test_64_by_64_is_drawn_at_4_px_a_cell_and_big_previews_stay_bounded():
    view = heatmap([[float(r * 64 + c) for c in range(64)] for r in range(64)], (64, 64))
    assert view["cell_px"] == 4 and (view["width"], view["height"]) == (256, 256) and not view["sampled"]
    assert heatmap([[float(c) for c in range(400)]], (1, 400))["cell_px"] == 4  # never below 4 px


def test_nothing_to_draw():
    assert heatmap([[1.0, 1.0], [1.0, 1.0]], (2, 2)) is None  # constant: the grid says it all
    assert heatmap([[[1.0, 2.0], [3.0, 4.0]]], (1, 2)) is None  # complex values are pairs
    assert heatmap([], (0, 0)) is None and heatmap("…", None) is None
    assert heatmap([[True, False]], (1, 2))["scale"] == "sequential"


def test_equal_heatmaps_share_a_file_name():
    assert heatmap([[1, 2]], (1, 2))["name"] == heatmap([[1, 2]], (1, 2))["name"] != heatmap([[2, 1]], (1, 2))["name"]


def test_different_maps_whose_hashes_share_32_bits_get_different_names():
    # A site's maps share one folder: one name for two maps would show one map on both cards. These
    # two inputs (found by a birthday search, about 130,000 hashes) share their SHA-1's first 32 bits,
    # as two of a big site's maps would.
    one, other = b"map 5848", b"map 128920"
    assert hashlib.sha1(one).hexdigest()[:8] == hashlib.sha1(other).hexdigest()[:8]
    assert file_name(one) != file_name(other)
    assert re.fullmatch(r"[0-9a-f]+\.png", file_name(one))  # safe in a URL and on a case-blind disk


def test_site_css_legend_bars_use_the_same_stops():
    css = (paths.ASSETS_DIR / "site.css").read_text(encoding="utf-8")
    bars = dict(re.findall(r"\.lt-hm\.([ds]) > b \{ background: (linear-gradient\([^;]*\)); \}", css))
    assert bars == {"d": css_gradient(DIVERGING_STOPS), "s": css_gradient(SEQUENTIAL_STOPS)}


def test_each_cell_is_a_square_of_one_colour_beside_marked_and_elided_cells():
    view = heatmap([[1.0, "…", 3.0], [2.0, "…", "nan"], [4.0, "…", 1.0]], (3, 9))
    _w, _h, image = pixels(view["png"])
    size = view["cell_px"]
    for r, c in ((0, 0), (0, 2), (1, 0), (2, 0), (2, 2)):
        square = {image[r * size + y][c * size + x] for y in range(size) for x in range(size)}
        assert len(square) == 1 and square.pop()[3] == 255
    for r in range(3):  # the elided column: transparent on every row, with or without a marked cell
        assert {image[r * size + y][size + x][3] for y in range(size) for x in range(size)} == {0}
    assert (
        cell(view, image, 0, 0) == cell(view, image, 2, 2) != cell(view, image, 2, 0)
    )  # equal values, equal colours, on either path


def test_equal_values_are_one_colour_and_zero_has_no_sign():
    view = heatmap([[0.0, -0.0, 1.0], [-1.0, 0.0, -0.0], [1.0, "nan", 0.0]], (3, 3))
    _w, _h, image = pixels(view["png"])
    zeros = {cell(view, image, r, c) for r, c in ((0, 0), (0, 1), (1, 1), (1, 2), (2, 2))}
    assert zeros == {(*DIVERGING_STOPS[2][1], 255)}  # the centre, on a row with a NaN mark too
    assert cell(view, image, 0, 2) == cell(view, image, 2, 0) == (*DIVERGING_STOPS[-1][1], 255)


def test_a_whole_tensor_map_marks_nan_and_inf_and_spans_the_tensors_range():
    import torch

    from tracer.capture.heatmap_codes import tensor_heatmap
    from tracer.site.cards.heatmap import whole_heatmap

    t = torch.arange(36.0).reshape(6, 6)
    t[0, 1], t[2, 3] = float("nan"), float("inf")
    view = whole_heatmap(tensor_heatmap(t))
    assert view["nan"] and view["inf"] and view["alt"]["specials"] == ["NaN", "±Inf"]
    _w, _h, image = pixels(view["png"])
    assert cell(view, image, 0, 0)[:3] == SEQUENTIAL_STOPS[0][1] and cell(view, image, 5, 5)[:3] == SEQUENTIAL_STOPS[-1][1]
    size = view["cell_px"]
    assert (150, 150, 150) in {image[y][size + x][:3] for y in range(size) for x in range(size)}  # the NaN cell
    plain = whole_heatmap(tensor_heatmap(torch.arange(36.0).reshape(6, 6)))
    assert not plain["nan"] and not plain["inf"] and plain["alt"]["specials"] == []
