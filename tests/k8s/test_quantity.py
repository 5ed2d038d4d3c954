"""Expected strings come from kubectl (apimachinery) unless a test says otherwise."""

import copy
import pickle

import pytest

from trainc.k8s.quantity import BINARY_SI, DECIMAL_EXPONENT, DECIMAL_SI, Quantity, parse

FORMAT_ERROR = "quantities must match the regular expression"
SUFFIX_ERROR = "unable to parse quantity's suffix"
NUMERIC_ERROR = "unable to parse numeric part of quantity"


@pytest.mark.parametrize(
    ("text", "expected", "format"),
    [
        ("0", "0", DECIMAL_SI),
        ("2.5", "2500m", DECIMAL_SI),
        ("2500m", "2500m", DECIMAL_SI),
        ("0.7", "700m", DECIMAL_SI),
        ("0.1", "100m", DECIMAL_SI),
        ("1000m", "1", DECIMAL_SI),
        ("1.0", "1", DECIMAL_SI),
        ("1024", "1024", DECIMAL_SI),
        ("1000", "1k", DECIMAL_SI),
        ("100000000n", "100m", DECIMAL_SI),
        ("100n", "100n", DECIMAL_SI),
        ("-0.5", "-500m", DECIMAL_SI),
        ("4Gi", "4Gi", BINARY_SI),
        ("1.5Mi", "1536Ki", BINARY_SI),
        ("1.5Gi", "1536Mi", BINARY_SI),
        ("1025Ki", "1025Ki", BINARY_SI),
        ("1024Ki", "1Mi", BINARY_SI),
        ("2048Ki", "2Mi", BINARY_SI),
        ("-1.5Ki", "-1536", BINARY_SI),
        ("0.5Ki", "512", BINARY_SI),
        ("1024.5Ki", "1049088", BINARY_SI),
        ("1023.999999999Ki", "1048575999998976n", BINARY_SI),
        ("1e3", "1e3", DECIMAL_EXPONENT),
        ("1e4", "10e3", DECIMAL_EXPONENT),
        ("12e-3", "12e-3", DECIMAL_EXPONENT),
        ("1.2e3", "1200", DECIMAL_EXPONENT),
        ("1E", "1E", DECIMAL_SI),
        ("12E", "12E", DECIMAL_SI),
    ],
)
def test_parse_prints_canonical_form(text, expected, format):
    quantity = parse(text)
    assert str(quantity) == expected
    assert quantity.format == format
    assert parse(expected) == quantity


@pytest.mark.parametrize("text", ["+5", "007", "01Ki", "1.", "12.", "1.500", "1.234e3", "1E3", "1.0e1", "5e+3"])
def test_string_keeps_input_that_go_thinks_is_canonical(text):
    assert str(parse(text)) == text


@pytest.mark.parametrize(
    ("text", "expected", "format"),
    [
        ("0.0000000001", "1n", DECIMAL_SI),
        ("-0.0000000001", "-1n", DECIMAL_SI),
        ("3.001n", "4n", DECIMAL_SI),
        (".5n", "1n", DECIMAL_SI),
        ("-.5e-10", "-1e-9", DECIMAL_EXPONENT),
        ("0.000000000001Ki", "2n", DECIMAL_SI),  # also leaves BinarySI
        ("0.0009765625Ki", "1", BINARY_SI),
        ("8Ei", "9223372036854775807", BINARY_SI),
        ("-8Ei", "-9223372036854775807", BINARY_SI),
        ("9223372036854775807Ki", "9223372036854775807", BINARY_SI),
        ("9999999999999999999", "9999999999999999999", DECIMAL_SI),
    ],
)
def test_parse_rounds_to_nano_and_clamps_binary(text, expected, format):
    quantity = parse(text)
    assert (str(quantity), quantity.format) == (expected, format)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("-", "0"),
        ("+.", "0"),
        (".", "0"),
        ("m", "0"),
        ("Ki", "0"),
        ("e3", "0"),
        ("-0.0", "0"),
        ("00", "0"),
        ("1e4294967296", "1e4294967296"),  # exponent truncated to int32: value 1
        ("1e4294967297", "10"),
        ("1e9223372036854775807", "100e-3"),
    ],
)
def test_parse_accepts_what_go_scanner_accepts(text, expected):
    assert str(parse(text)) == expected


def test_exponent_truncation_changes_value():
    assert parse("1e4294967296") == parse("1")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", FORMAT_ERROR),
        ("1Zi", FORMAT_ERROR),
        ("..", FORMAT_ERROR),
        ("1.1.M", FORMAT_ERROR),
        ("1+1.0M", FORMAT_ERROR),
        ("0.1am", FORMAT_ERROR),
        ("aoeu", FORMAT_ERROR),
        (" 1", FORMAT_ERROR),
        ("1 ", FORMAT_ERROR),
        ("1,5", FORMAT_ERROR),
        ("\u0661", FORMAT_ERROR),  # non-ASCII digit
        ("nan", FORMAT_ERROR),
        ("0.1mi", SUFFIX_ERROR),
        (".5i", SUFFIX_ERROR),
        ("1i", SUFFIX_ERROR),
        ("-3.01e-", SUFFIX_ERROR),
        ("1e", SUFFIX_ERROR),
        ("1Ki2", SUFFIX_ERROR),
        ("1Ee3", SUFFIX_ERROR),
        ("1e9223372036854775808", SUFFIX_ERROR),
        ("e-10", NUMERIC_ERROR),
    ],
)
def test_invalid_quantities_raise_go_errors(text, message):
    with pytest.raises(ValueError, match=f"^{message}"):
        parse(text)


def test_format_error_message_is_apimachinery_message():
    with pytest.raises(ValueError) as info:
        parse("1Zi")
    assert str(info.value) == (
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    )


@pytest.mark.parametrize(
    ("scalar", "expected"),
    [
        (4, "4"),
        (0, "0"),
        (-3, "-3"),
        (2.5, "2500m"),
        (2.0, "2"),
        (0.1, "100m"),
        (1.125, "1.125"),
        (1000.0, "1k"),
        (1e16, "10P"),
        (1e-05, "10u"),
        (1e-06, "1u"),
        (1.5e-07, "150e-9"),
        (1e-09, "1e-9"),
        (1e21, "1e+21"),
        (-0.0, "0"),
    ],
)
def test_yaml_numbers_parse_like_go_json_text(scalar, expected):
    assert str(parse(scalar)) == expected


@pytest.mark.parametrize("scalar", [float("inf"), float("nan"), True])
def test_non_numeric_scalars_are_rejected(scalar):
    with pytest.raises(ValueError, match=FORMAT_ERROR):
        parse(scalar)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("4", 4),
        ("2.5", 3),
        ("2500m", 3),
        ("0.7", 1),
        ("3.7", 4),
        ("0", 0),
        ("1n", 1),
        ("4Gi", 4 * 2**30),
        ("1e3", 1000),
        ("-0.5", -1),
        ("-1.5", -2),
        ("-2", -2),
    ],
)
def test_ceil_rounds_away_from_zero_like_go_value(text, expected):
    assert parse(text).ceil() == expected


@pytest.mark.parametrize(
    ("left", "factor", "right", "expected", "format"),
    [
        ("1Gi", 2, "512Mi", "2560Mi", BINARY_SI),
        ("500m", 2, "250m", "1250m", DECIMAL_SI),
        ("1", 1, "500m", "1500m", DECIMAL_SI),
        ("500m", 1, "1Gi", "1073741824500m", DECIMAL_SI),
        ("1Ki", 1, "500m", "1024500m", BINARY_SI),  # BinarySI prints non-integers as decimal
        ("1Ki", 1, "1k", "2024", BINARY_SI),
        ("1e3", 1, "1", "1001", DECIMAL_EXPONENT),
        ("1e3", 1, "1k", "2e3", DECIMAL_EXPONENT),
        ("0", 1, "1Ki", "1Ki", BINARY_SI),  # a zero receiver takes the other format
        ("0Ki", 1, "500m", "500m", DECIMAL_SI),
        ("1Gi", 0, "512Mi", "512Mi", BINARY_SI),
        ("2", 1, "-2", "0", DECIMAL_SI),
        ("1.500", 1, "0", "1500m", DECIMAL_SI),  # arithmetic drops the kept input text
    ],
)
def test_sum_keeps_receiver_format(left, factor, right, expected, format):
    total = parse(left) * factor + parse(right)
    assert (str(total), total.format) == (expected, format)


@pytest.mark.parametrize(
    ("text", "factor", "expected"),
    [
        ("4Gi", 102, "408Gi"),
        ("1.5Gi", 3, "4608Mi"),
        ("100m", 10, "1"),
        ("250m", 4, "1"),
        ("333m", 3, "999m"),
        ("1Ki", -1, "-1Ki"),
        ("1Gi", 0, "0"),
        ("1E", 1000, "1e21"),  # upstream falls back to "e"; kubectl 1.32 still prints "1"
        ("1Ei", 1024, "1024Ei"),  # Go would print "1"; we keep the value
        ("+5", 1, "5"),
    ],
)
def test_multiply_is_exact(text, factor, expected):
    assert str(parse(text) * factor) == expected


def test_sum_of_many_requests_is_exact():
    total = parse("0")
    for _ in range(10):
        total = total + parse("0.1")
    assert total == parse("1")
    assert str(total) == "1"


@pytest.mark.parametrize(
    ("left", "right"),
    [("1Gi", "1073741824"), ("1k", "1e3"), ("1000m", "1"), ("0", "0Ki"), ("1.500", "1500m")],
)
def test_equality_ignores_format(left, right):
    assert parse(left) == parse(right)
    assert hash(parse(left)) == hash(parse(right))


@pytest.mark.parametrize(
    ("smaller", "larger"),
    [("100m", "1"), ("1G", "1Gi"), ("-1", "0"), ("999999999n", "1"), ("1Ei", "8Ei")],
)
def test_ordering(smaller, larger):
    low, high = parse(smaller), parse(larger)
    assert low < high and low <= high and high > low and high >= low
    assert not (high < low) and low != high
    assert sorted([high, low]) == [low, high]


@pytest.mark.parametrize(("text", "truthy"), [("0", False), ("0Ki", False), ("1n", True), ("-1", True)])
def test_bool_means_non_zero(text, truthy):
    assert bool(parse(text)) is truthy


def test_operations_with_other_types_are_rejected():
    with pytest.raises(TypeError):
        parse("1") + 1
    with pytest.raises(TypeError):
        parse("1") * 1.5
    with pytest.raises(TypeError):
        parse("1") < 1
    assert parse("1") != "1"


def test_constructor_is_exact_decimal():
    assert str(Quantity(15, -1)) == "1500m"
    assert str(Quantity(3 * 2**30, 0, BINARY_SI)) == "3Gi"
    assert str(Quantity(3, 9, BINARY_SI)) == "3000000000"
    assert str(Quantity(3, 9)) == "3G"
    assert Quantity(1500, -3) == Quantity(15, -1)
    with pytest.raises(ValueError):
        Quantity(1, 0, "Binary")


def test_copies_keep_value_format_and_text():
    original = parse("1.500")
    clones = (copy.copy(original), copy.deepcopy(original), pickle.loads(pickle.dumps(original)))
    for clone in clones:
        assert (clone, clone.format, str(clone)) == (original, DECIMAL_SI, "1.500")


def test_absurd_exponents_stay_cheap():
    assert str(parse("1e-999999999")) == "1e-9"
    assert str(parse("-0.1e-999999999")) == "-1e-9"
    assert str(parse("1e999999999")) == "1e999999999"
    assert str(parse("1e999999998")) == "100e999999996"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("0." + "0" * 4400 + "1", "1n"),  # Go rounds any positive amount up to 1n
        ("1." + "0" * 5000 + "1", "1000000001n"),
        ("0.1" + "0" * 2000 + "5m", "100001n"),
        ("1.5" + "0" * 1200, "1500m"),
        ("-" + "9" * 4400 + "Ki", "-9223372036854775807"),  # binary amounts are capped at MaxInt64
    ],
)
def test_thousands_of_digits_read_as_go_reads_them(text, expected):
    assert str(parse(text)) == expected


def test_thousands_of_digits_past_int64_or_binary_fractions():
    assert not parse("9" * 4400).fits_int64()
    with pytest.raises(ValueError, match="more than 1000 fraction digits with a binary suffix"):
        parse("0." + "1" * 1200 + "Ki")


@pytest.mark.parametrize("scale", [0, 3])
def test_saturated_is_the_scaled_amount_rounded_away_from_zero_and_clamped_to_int64(scale):
    """Kueue's SafeValue (scale 0) and SafeMilliValue (scale 3): ceil of the amount times 10**scale away from
    zero, MaxInt64 or MinInt64 past them, however large the exponent."""
    int64 = 2**63 - 1
    cases = {
        "1": 1,
        "1500m": 2,
        "-1500m": -2,
        "-1234567u": -2,
        "1n": 1,
        "0": 0,
        "64Gi": 64 * 2**30,
        "9223372036854775807": int64,
        "9223372036854775808": int64,
        "1e400": int64,
        "-1e400": -int64 - 1,
        "1e-400": 1,
    }
    for text, written in cases.items():
        quantity = parse(text)
        away = -(-abs(quantity.exact() * 10**scale) // 1) * quantity.sign()  # rounded away from zero
        expected = max(-int64 - 1, min(int64, away))
        assert quantity.saturated(scale) == expected and (scale or expected == written), text
