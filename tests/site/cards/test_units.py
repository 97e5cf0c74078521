import math

from tracer.site.cards.units import exact_cell, exact_number, format_number, readable_number, rounded_float


def test_readable_number_groups_thousands_and_goes_scientific_at_the_ends():
    assert readable_number(40000000000.0) == "40,000,000,000"
    assert readable_number(40_000_000_000) == "40,000,000,000"
    assert readable_number(1e-12) == "1e-12"
    assert readable_number(1.5e-5) == "1.5e-5"
    assert readable_number(1e-100) == "1e-100" and readable_number(1e16) == "1e+16" and readable_number(2e-300) == "2e-300"
    assert format_number(-1.1925586e-06) == "-1.193e-6" and format_number(1e-5) == "1e-5"  # one exponent digit where one says it
    assert readable_number(2**70) == "1,180,591,620,717,411,303,424"  # an int is exact, however long
    assert readable_number(6.02214076e23) == "6.02214076e+23"  # a float is its shortest round-trip decimal
    assert readable_number(-123456.789) == "-123,456.789"
    assert readable_number(2020) == "2020" and readable_number(1024) == "1024"  # short numbers stay
    assert readable_number(0.1) == "0.1" and readable_number(3.0) == "3.0" and readable_number(0.0) == "0.0"
    assert readable_number(math.inf) == "inf" and readable_number(math.nan) == "nan"
    assert readable_number(True) == "True"


def test_significant_digits_for_containers():
    assert readable_number(0.30000000000000004, significant=6) == "0.3"
    assert readable_number(123456.789, significant=6) == "123,457"


def test_exact_number_is_python_repr():
    assert exact_number(40000000000.0) == "40000000000.0"
    assert exact_number(1e-12) == "1e-12"


def test_tensor_elements_group_large_integers_only():
    assert format_number(123456) == "123,456" and format_number(2020) == "2020"
    assert format_number(1e-12) == "1e-12" and format_number(0.333333) == "0.3333"


def test_numbers_on_a_card_are_exact():
    info_min, info_max = -(2**63), 2**63 - 1
    assert readable_number(info_max) == "9,223,372,036,854,775,807" and readable_number(info_min) == "-9,223,372,036,854,775,808"
    assert readable_number(2**62) == "4,611,686,018,427,387,904"
    assert readable_number(2.0**53 + 1) == "9,007,199,254,740,992" and float("9007199254740992") == 2.0**53 + 1
    assert readable_number(5e-324) == "5e-324" and readable_number(-0.0) == "-0.0"
    assert readable_number(1000.1) == "1000.1" and readable_number(1e16) == "1e+16"
    for value in (0.1, 1 / 3, 2.0**53 + 1, 5e-324, 1.7976931348623157e308, 123456.789):
        assert float(readable_number(value).replace(",", "")) == value


def test_grid_cells_are_exact_when_short_and_say_when_rounded():
    assert exact_cell(2**53 + 1) == "9,007,199,254,740,993" and exact_cell(5e-324) == "5e-324"
    assert format_number(5e-324) == "5e-324"  # the shortest form, not 4.941e-324
    assert format_number(1000.1) == "1000" and exact_cell(1000.1) == "1000.1"
    assert exact_cell([1.0, -0.0]) == "1.0-0.0j"


def test_one_shape_text_writes_shapes_as_python_writes_tuples():
    from tracer.site.cards.units import shape_text

    assert shape_text([3, 2]) == "(3, 2)" and shape_text([3]) == "(3,)" and shape_text([]) == "()"
    assert shape_text((4,)) == str(tuple([4])) and shape_text([2, 3, 4]) == str((2, 3, 4))


def test_a_grid_rounds_a_float_from_its_exact_text_as_format_number_does():
    for value in (0.1, -0.057465725, 1e-5, 5e-324, 123456.7, 2.5, 40000.0, 1e300, -1.1925586e-06):
        assert rounded_float(value, exact_cell(value)) == rounded_float(value, None) == format_number(value)
