from tracer.site.cards.jaxtyping_dims import annotation_dims, name_dims

SOURCE = """def main():
    x: Float[torch.Tensor, "batch seq hidden"] = torch.ones(2, 3, 4)
    y: Int[torch.Tensor, "*batch 3"] = z
    w = torch.ones(1)
"""


def test_annotation_dims_by_line_and_name():
    assert annotation_dims(SOURCE, 2, "x") == ["batch", "seq", "hidden"]
    assert annotation_dims(SOURCE, 2, "y") is None
    assert annotation_dims(SOURCE, 4, "w") is None
    assert annotation_dims("def broken(:\n", 1, "x") is None


def test_name_dims_pairs_names_with_sizes():
    assert name_dims(["batch", "seq", "hidden"], [2, 3, 4]) == [("batch", "2"), ("seq", "3"), ("hidden", "4")]
    assert name_dims(["batch", "seq"], [2, 3, 4]) is None
    assert name_dims(["*batch", "3"], [5, 6, 3]) == [("batch", "(5, 6)"), ("3", "3")]
    assert name_dims(["...", "d"], [7]) == [("...", "()"), ("d", "7")]
    assert name_dims(["#b", "_c"], [1, 2]) == [("b", "1"), ("c", "2")]
