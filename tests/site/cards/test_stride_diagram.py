from tracer.site.cards.stride_diagram import CELLS_PER_ROW, MAX_CELLS, index_formula, logical_grid, stride_diagram


def labels(diagram):
    return [cell["label"] for cell in diagram["cells"]]


def test_transposed_view_numbers_storage_cells_in_index_order():
    # x = arange(6).reshape(3, 2); y = x.T has shape (2, 3), stride (1, 2):
    # y[i, j] lives at cell i*1 + j*2, and y's row-major positions are 0..5 = (0,0) (0,1) (0,2) (1,0) ...
    # cell 0 <- (0,0)=0, cell 1 <- (1,0)=3, cell 2 <- (0,1)=1, cell 3 <- (1,1)=4, cell 4 <- (0,2)=2, cell 5 <- (1,2)=5
    diagram = stride_diagram([2, 3], [1, 2], 0, 6)
    assert labels(diagram) == ["0", "3", "1", "4", "2", "5"]
    assert [cell["index"] for cell in diagram["cells"]] == [0, 1, 2, 3, 4, 5]
    assert all(cell["highlighted"] for cell in diagram["cells"])
    assert diagram["formula"] == "offset = 0 + i·1 + j·2"
    assert diagram["grid"] == [[0, 2, 4], [1, 3, 5]]


def test_contiguous_tensor_is_numbered_in_storage_order():
    diagram = stride_diagram([3, 2], [2, 1], 0, 6)
    assert labels(diagram) == ["0", "1", "2", "3", "4", "5"]
    assert diagram["formula"] == "offset = 0 + i·2 + j·1"
    assert diagram["grid"] is None  # the layout grid would only repeat the strip


def test_slice_with_offset_leaves_earlier_cells_unhighlighted():
    # x[1:] of a 3x2 contiguous tensor: offset 2, shape (2, 2), stride (2, 1)
    diagram = stride_diagram([2, 2], [2, 1], 2, 6)
    assert [cell["highlighted"] for cell in diagram["cells"]] == [False, False, True, True, True, True]
    assert labels(diagram) == ["", "", "0", "1", "2", "3"]
    assert diagram["formula"] == "offset = 2 + i·2 + j·1"


def test_column_slice_skips_cells():
    # x[:, 1] of a 3x2 contiguous tensor: offset 1, shape (3,), stride (2,)
    diagram = stride_diagram([3], [2], 1, 6)
    assert labels(diagram) == ["", "0", "", "1", "", "2"]


def test_broadcast_view_puts_several_elements_on_one_cell():
    # torch.arange(3).expand(2, 3): stride (0, 1); cell j holds positions j and 3 + j
    diagram = stride_diagram([2, 3], [0, 1], 0, 3)
    assert labels(diagram) == ["0,3", "1,4", "2,5"]
    assert diagram["cells"][0]["positions"] == [0, 3]


def test_cells_wrap_into_rows():
    diagram = stride_diagram([40], [1], 0, 40)
    second_row = diagram["cells"][CELLS_PER_ROW]
    assert second_row["x"] == 0 and second_row["y"] > 0
    assert diagram["width"] == CELLS_PER_ROW * diagram["cell_width"]


def test_long_storage_is_cut_to_the_tensor_span():
    # a 4-element view starting deep inside a million-element storage
    diagram = stride_diagram([4], [1], 500_000, 1_000_000)
    assert diagram["cells"][0]["index"] == 500_000
    assert len(diagram["cells"]) == 4
    assert diagram["cut_before"] and diagram["cut_after"]
    big = stride_diagram([1000], [1], 0, 1000)
    assert len(big["cells"]) <= MAX_CELLS and big["cut_after"]


def test_scalar_and_empty_tensors():
    scalar = stride_diagram([], [], 3, 10)
    assert [c["index"] for c in scalar["cells"] if c["highlighted"]] == [3]
    assert scalar["formula"] == "offset = 3"
    assert stride_diagram([0, 3], [3, 1], 0, 0) is None


def test_formula_names_dims_and_grid_limits():
    assert index_formula([4, 1], 0, ["seq", "hidden"]) == "offset = 0 + i·4 + j·1   (i: seq, j: hidden)"
    assert logical_grid([2, 2, 2], [4, 2, 1], 0) is None
    assert logical_grid([4], [2], 1) == [[1, 3, 5, 7]]


def test_a_huge_tensor_gets_a_bounded_diagram_without_enumerating_its_elements():
    # 8192 x 8192 (a real CUDA trace's matmul operand): only a window of cells, no logical grid.
    import tracemalloc

    tracemalloc.start()
    diagram = stride_diagram([8192, 8192], [8192, 1], 0, 8192 * 8192)
    _, peak_nbytes = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert diagram["grid"] is None and diagram["numel"] == 8192 * 8192
    assert len(diagram["cells"]) < 1000
    assert peak_nbytes < 10 * 2**20  # listing 67M storage indices would take gigabytes


def test_cells_are_drawn_as_runs_not_one_element_each():
    # x[:, 1] of a 3x2 tensor: plain and highlighted cells alternate, so six one-cell boxes, no walls
    paths = stride_diagram([3], [2], 1, 6)["paths"]
    assert paths["plain"] == "M0 0h34v26h-34zM68 0h34v26h-34zM136 0h34v26h-34z"
    assert paths["highlighted"] == "M34 0h34v26h-34zM102 0h34v26h-34zM170 0h34v26h-34z"
    assert paths["plain_walls"] == paths["highlighted_walls"] == ""
    # 20 contiguous elements: one highlighted box per row of cells, its inner walls one line per row
    paths = stride_diagram([20], [1], 0, 20)["paths"]
    assert paths["plain"] == ""
    assert paths["highlighted"] == "M0 0h544v26h-544zM0 44h136v26h-136z"
    assert paths["highlighted_walls"] == "M34 13h510M34 57h102"


def test_labels_are_one_text_run_per_row_centred_on_their_cells():
    rows = stride_diagram([2, 6], [6, 1], 0, 12)["text_rows"]
    assert len(rows) == 1 and rows[0]["labels"] == "01234567891011" and rows[0]["indices"] == "01234567891011"
    xs = [int(x) for x in rows[0]["label_x"].split()]
    assert xs[:3] == [17, 51, 85]  # one-character labels sit on the cell centres (34 px cells)
    assert xs[-4:] == [354, 360, 388, 394]  # "10" and "11": two characters either side of 357 and 391
    assert rows[0]["label_y"] == 17 and rows[0]["index_y"] == 38


def test_first_indices_follow_row_major_order_and_stop_at_the_limit():
    import itertools

    from tracer.site.cards.stride_diagram import first_indices

    for shape in ([3], [2, 3], [2, 1, 3], [0, 2], [], [4, 0], [2, 2, 2, 2]):
        for limit in (0, 1, 5, 100):
            expected = list(itertools.islice(itertools.product(*[range(n) for n in shape]), limit))
            assert list(first_indices(shape, limit)) == expected, (shape, limit)
    # a dimension of 10^12 is never enumerated, only its first indices
    assert list(first_indices([10**12, 2], 3)) == [(0, 0), (0, 1), (1, 0)]
