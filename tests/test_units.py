import math

from tracer.site.cards.units import exact_number, format_number, readable_number


def test_readable_number_groups_thousands_and_goes_scientific_at_the_ends():
    assert readable_number(40000000000.0) == "40,000,000,000"
    assert readable_number(40_000_000_000) == "40,000,000,000"
    assert readable_number(1e-12) == "1e-12"
    assert readable_number(1.5e-5) == "1.5e-5"
    assert readable_number(2**70) == "1.18059e+21"
    assert readable_number(6.02214076e23) == "6.02214e+23"
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
