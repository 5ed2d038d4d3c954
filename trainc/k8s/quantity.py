"""Kubernetes resource quantities, behaving exactly like apimachinery's ``resource.Quantity``.

Resource totals end up in generated manifests, so they must be summed without
floating-point drift and printed the way the API server would print them.
A value is an exact decimal, ``coefficient * 10**exponent``.
"""

from __future__ import annotations

from functools import lru_cache

DECIMAL_SI = "DecimalSI"
BINARY_SI = "BinarySI"
DECIMAL_EXPONENT = "DecimalExponent"

_FORMAT_MESSAGE = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
_SUFFIX_MESSAGE = "unable to parse quantity's suffix"
_NUMERIC_MESSAGE = "unable to parse numeric part of quantity"

_DIGITS = "0123456789"
_SUFFIX_LETTERS = "eEinumkKMGTP"
_DECIMAL_SUFFIXES = {
    "n": -9,
    "u": -6,
    "m": -3,
    "": 0,
    "k": 3,
    "M": 6,
    "G": 9,
    "T": 12,
    "P": 15,
    "E": 18,
}
_DECIMAL_NAMES = {power: name for name, power in _DECIMAL_SUFFIXES.items()}
_BINARY_NAMES = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_BINARY_SUFFIXES = {name: 10 * power for power, name in enumerate(_BINARY_NAMES) if name}
_BINARY_CAP = 2**63 - 1  # Go silently clamps binary quantities to MaxInt64 while parsing.
_NANO = -9  # Parsing keeps nothing finer than 1n.
_MAX_WHOLE_DIGITS = 40  # past int64 many times over
_MAX_FRACTION_DIGITS = 1000


class Quantity:
    """An exact decimal amount plus the format that Go would print it in."""

    __slots__ = ("_coefficient", "_exponent", "_format", "_text")

    def __init__(self, coefficient: int, exponent: int = 0, format: str = DECIMAL_SI) -> None:
        if format not in (DECIMAL_SI, BINARY_SI, DECIMAL_EXPONENT):
            raise ValueError(f"unknown quantity format {format!r}")
        # Stripping factors of ten makes the representation unique, so == and hash are trivial.
        if coefficient:
            while coefficient % 10 == 0:
                coefficient //= 10
                exponent += 1
        else:
            exponent = 0
        self._coefficient = coefficient
        self._exponent = exponent
        self._format = format
        self._text = None

    @property
    def format(self) -> str:
        return self._format

    def ceil(self) -> int:
        """Go's ``Value()``: round away from zero, so any non-zero request asks for at least 1."""
        if self._exponent >= 0:
            return self._coefficient * 10**self._exponent
        return _divide_away_from_zero(self._coefficient, -self._exponent)

    def exact(self):
        """The amount as a fractions.Fraction, for exact division (a resourceFieldRef's divisor)."""
        from fractions import Fraction  # with decimal: only for a divisor

        return Fraction(self._coefficient) * Fraction(10) ** self._exponent

    def fits_int64(self) -> bool:
        """Whether Go's ``Value()``, an int64, holds this amount; cheap for any exponent."""
        return self._exponent < 19 and -(2**63) <= self.ceil() < 2**63

    def saturated(self, scale: int = 0) -> int:
        """ceil(amount * 10**scale) clamped to int64, as Kueue's SafeValue/SafeMilliValue read a quantity;
        cheap for any exponent (a quota of 1e2147483647 is MaxInt64)."""
        if _magnitude(self) + scale > 19:
            return _INT64_MAX if self._coefficient > 0 else -_INT64_MAX - 1
        exponent = self._exponent + scale  # ceil() of the amount scaled, without making it a Quantity
        value = (
            self._coefficient * 10**exponent if exponent >= 0 else _divide_away_from_zero(self._coefficient, -exponent)
        )
        return max(-_INT64_MAX - 1, min(_INT64_MAX, value))

    def sign(self) -> int:
        return (self._coefficient > 0) - (self._coefficient < 0)

    def is_integer(self) -> bool:
        """Whether the amount is whole (the coefficient has no trailing zeros, so a negative exponent is a
        fraction)."""
        return self._exponent >= 0

    def approximate_float(self) -> float:
        """Go's AsApproximateFloat64: the nearest float, infinite past float64's range."""
        if _magnitude(self) > 400:
            return float("inf") * self.sign()
        if _magnitude(self) < -400:
            return 0.0
        return float(f"{self._coefficient}e{self._exponent}")

    def __add__(self, other: "Quantity") -> "Quantity":
        if not isinstance(other, Quantity):
            return NotImplemented
        # Go's Add keeps the receiver's format unless the receiver is zero.
        format = self._format if self._coefficient else other._format
        if not other._coefficient or not self._coefficient:
            return Quantity(
                (self if self._coefficient else other)._coefficient,
                (self if self._coefficient else other)._exponent,
                format,
            )
        exponent = min(self._exponent, other._exponent)
        return Quantity(_scaled(self, exponent) + _scaled(other, exponent), exponent, format)

    def __mul__(self, factor: int) -> "Quantity":
        if not isinstance(factor, int):
            return NotImplemented
        return Quantity(self._coefficient * factor, self._exponent, self._format)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return (self._coefficient, self._exponent) == (other._coefficient, other._exponent)

    def __hash__(self) -> int:
        return hash((self._coefficient, self._exponent))

    def __lt__(self, other: "Quantity") -> bool:
        return _compare(self, other) < 0 if isinstance(other, Quantity) else NotImplemented

    def __le__(self, other: "Quantity") -> bool:
        return _compare(self, other) <= 0 if isinstance(other, Quantity) else NotImplemented

    def __gt__(self, other: "Quantity") -> bool:
        return _compare(self, other) > 0 if isinstance(other, Quantity) else NotImplemented

    def __ge__(self, other: "Quantity") -> bool:
        return _compare(self, other) >= 0 if isinstance(other, Quantity) else NotImplemented

    def __bool__(self) -> bool:
        return self._coefficient != 0

    def __str__(self) -> str:
        """Go's ``String()``: the parsed text when Go kept it, else the canonical form."""
        if self._text is not None:
            return self._text
        if not self._coefficient:
            return "0"
        if self._format == BINARY_SI:
            binary = _binary_text(self)
            if binary is not None:
                return binary
        return _decimal_text(self)

    def __repr__(self) -> str:
        return f"Quantity({str(self)!r}, {self._format!r})"


def parse(text: str | int | float) -> Quantity:
    """Go's ``ParseQuantity``, including what its lax scanner lets through ("1.", "-", "Ki")."""
    if isinstance(text, float):
        text = _float_text(text)
    elif isinstance(text, int):
        text = str(text)
    return _parsed(text) if len(text) <= 32 else _parse_text(text)


@lru_cache(maxsize=4096)  # a run reads the same few amounts over and over; a Quantity is never changed once made
def _parsed(text: str) -> Quantity:
    return _parse_text(text)


def _parse_text(text: str) -> Quantity:
    if not text:
        raise ValueError(_FORMAT_MESSAGE)
    if text == "0":
        return _with_text(Quantity(0), text)
    negative, number, whole, fraction, suffix = _split(text)
    base, power, format = _interpret(suffix)
    fast = _takes_int64_path(base, power, whole, fraction)
    if not fast and not number.strip("+-."):  # Go's slow path re-reads it and needs a digit.
        raise ValueError(_NUMERIC_MESSAGE)
    if len(whole) > _MAX_WHOLE_DIGITS:  # far past int64: no need to read every digit (Python will not)
        huge = Quantity(_BINARY_CAP, 0, BINARY_SI) if base == 2 else Quantity(1, len(whole) - 1 + power, format)
        return huge * -1 if negative else huge
    fraction, sticky = _sub_nano_digits(base, power, fraction)
    if base == 10:
        magnitude, exponent = int(whole + fraction), power - len(fraction)
    else:
        magnitude, exponent = int(whole + fraction) << power, -len(fraction)
    magnitude += sticky  # digits dropped below the nano the value is rounded up to anyway
    if exponent < _NANO:
        magnitude, exponent = _divide_away_from_zero(magnitude, _NANO - exponent), _NANO
    quantity = Quantity(magnitude, exponent, format)
    if format == BINARY_SI:
        quantity = _clamp_binary(quantity)
    if negative:
        quantity = quantity * -1
    if fast and _go_keeps_text(base, power, whole, fraction):
        return _with_text(quantity, text)
    return quantity


def _sub_nano_digits(base: int, power: int, fraction: str) -> tuple[str, int]:
    """(fraction, 1 if nonzero digits were dropped): decimal digits past the nano precision (plus one)
    only decide that the amount rounds up, which a last 1 keeps exact. Binary amounts scale them by
    2**power, so beyond a few thousand digits they are refused rather than read slowly."""
    if len(fraction) <= _MAX_FRACTION_DIGITS:
        return fraction, 0
    if base == 2:
        raise ValueError(f"more than {_MAX_FRACTION_DIGITS} fraction digits with a binary suffix")
    keep = max(-_NANO + power, 0) + 1
    return fraction[:keep], 1 if fraction[keep:].strip("0") else 0


def _float_text(value: float) -> str:
    """Spell a YAML float as Go's encoding/json does, since that is the text apimachinery parses."""
    text = repr(value)  # Shortest round-trip digits, like Go's strconv with precision -1.
    size = abs(value)
    if size and (size < 1e-6 or size >= 1e21):
        return text.replace("e-0", "e-")
    mantissa, _, exponent = text.partition("e")
    sign = "-" if mantissa[0] == "-" else ""
    whole, _, fraction = mantissa.lstrip("-").partition(".")
    digits = (whole + fraction).rstrip("0")
    point = len(whole) + int(exponent or 0)
    if point >= len(digits):
        return sign + (digits or "0") + "0" * (point - len(digits))
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    return f"{sign}{digits[:point]}.{digits[point:]}"


def _split(text: str) -> tuple[bool, str, str, str, str]:
    """Go's parseQuantityString: sign, number text, whole digits, fraction digits, suffix."""
    negative = text[0] == "-"
    end = len(text)
    position = 1 if text[0] in "+-" else 0
    while position < end and text[position] == "0":
        position += 1
    if position == end:
        return negative, "0", "0", "", ""
    whole_start = position
    while position < end and text[position] in _DIGITS:
        position += 1
    whole = text[whole_start:position] or "0"
    fraction = ""
    if position < end and text[position] == ".":
        fraction_start = position = position + 1
        while position < end and text[position] in _DIGITS:
            position += 1
        fraction = text[fraction_start:position]
    suffix = text[position:]
    exponent = suffix.lstrip(_SUFFIX_LETTERS)
    if exponent[:1] in ("+", "-"):
        exponent = exponent[1:]
    if exponent.strip(_DIGITS):
        raise ValueError(_FORMAT_MESSAGE)
    return negative, text[:position], whole, fraction, suffix


def _interpret(suffix: str) -> tuple[int, int, str]:
    """Return (base, power, format) for a suffix, as Go's quantitySuffixer does."""
    if suffix in _DECIMAL_SUFFIXES:
        return 10, _DECIMAL_SUFFIXES[suffix], DECIMAL_SI
    if suffix in _BINARY_SUFFIXES:
        return 2, _BINARY_SUFFIXES[suffix], BINARY_SI
    digits = suffix[2:] if suffix[1:2] in ("+", "-") else suffix[1:]
    if suffix[:1] not in ("e", "E") or not digits or digits.strip(_DIGITS):
        raise ValueError(_SUFFIX_MESSAGE)
    power = int(suffix[1:])
    if not -(2**63) <= power < 2**63:
        raise ValueError(_SUFFIX_MESSAGE)
    # Go parses the exponent as an int64, then truncates it to int32.
    return 10, (power + 2**31) % 2**32 - 2**31, DECIMAL_EXPONENT


def _takes_int64_path(base: int, power: int, whole: str, fraction: str) -> bool:
    """Whether Go parses on its int64 fast path, which decides error reporting and text reuse."""
    if base == 10:
        return len(whole) + len(fraction) <= 18 and power - len(fraction) >= _NANO
    return not fraction and 15 - len(whole) - power * 3 // 10 - 1 >= 0


def _go_keeps_text(base: int, power: int, whole: str, fraction: str) -> bool:
    """Go reuses fast-path input as String() when it looks canonical, e.g. "+5" or "1.500"."""
    digits = whole + fraction
    if base == 2:
        return int(digits) % 8 != 0
    return (power - len(fraction)) % 3 == 0 and not digits.endswith("000") and digits[0] != "0"


def _clamp_binary(quantity: Quantity) -> Quantity:
    """Go caps binary magnitudes at MaxInt64 and demotes fractions of one to DecimalSI."""
    if quantity.ceil() > _BINARY_CAP:
        return Quantity(_BINARY_CAP, 0, BINARY_SI)
    if quantity and _compare(quantity, Quantity(1)) < 0:
        return Quantity(quantity._coefficient, quantity._exponent, DECIMAL_SI)
    return quantity


def _with_text(quantity: Quantity, text: str) -> Quantity:
    quantity._text = text
    return quantity


def _divide_away_from_zero(value: int, digits: int) -> int:
    """value / 10**digits rounded away from zero; skips building 10**digits when it dwarfs value."""
    if digits >= value.bit_length():
        return (value > 0) - (value < 0)
    quotient, remainder = divmod(abs(value), 10**digits)
    quotient += remainder != 0
    return quotient if value >= 0 else -quotient


def _scaled(quantity: Quantity, exponent: int) -> int:
    return quantity._coefficient * 10 ** (quantity._exponent - exponent)


_INT64_MAX = 2**63 - 1
MAX_DIGITS = 1000  # trainc's bound on an exact sum's digits (apimachinery's inf.Dec has none and never returns)


def _magnitude(quantity: Quantity) -> int:
    """The decimal order of magnitude: digits of the coefficient plus the exponent (0 for zero)."""
    return len(str(abs(quantity._coefficient))) + quantity._exponent if quantity._coefficient else 0


def _compare(left: Quantity, right: Quantity) -> int:
    """-1, 0 or 1; by sign and order of magnitude first, so 1e2147483647 compares at once."""
    if left.sign() != right.sign() or not left._coefficient:
        return (left.sign() > right.sign()) - (left.sign() < right.sign())
    if _magnitude(left) != _magnitude(right):
        larger = _magnitude(left) > _magnitude(right)
        return (1 if larger else -1) * left.sign()
    exponent = min(left._exponent, right._exponent)
    difference = _scaled(left, exponent) - _scaled(right, exponent)
    return (difference > 0) - (difference < 0)


def compare(left: Quantity, right: Quantity) -> int:
    return _compare(left, right)


def bounded_sum(left: Quantity, right: Quantity) -> Quantity:
    """left + right, exactly; OverflowError when the exact sum needs more than MAX_DIGITS digits (it would
    never finish for 1e2147483647 + 1)."""
    if left._coefficient and right._coefficient and abs(left._exponent - right._exponent) > MAX_DIGITS:
        raise OverflowError(f"quantity out of range: the exact sum needs more than {MAX_DIGITS} digits")
    return left + right


def _binary_text(quantity: Quantity) -> str | None:
    """Ki..Ei for whole values of magnitude >= 1024; None means print decimal, as Go does."""
    if quantity._exponent < 0:
        return None
    value = quantity._coefficient * 10**quantity._exponent
    if abs(value) < 1024:
        return None
    power = 0
    # Go has no suffix past Ei and would print 2**70 as "1"; stopping at Ei keeps the value.
    while value % 1024 == 0 and power < len(_BINARY_NAMES) - 1:
        value //= 1024
        power += 1
    return f"{value}{_BINARY_NAMES[power]}"


def _decimal_text(quantity: Quantity) -> str:
    """Integer mantissa, exponent lowered to a multiple of three, as Go's AsCanonicalBytes."""
    exponent = quantity._exponent - quantity._exponent % 3
    mantissa = quantity._coefficient * 10 ** (quantity._exponent - exponent)
    if quantity._format != DECIMAL_EXPONENT and exponent in _DECIMAL_NAMES:
        return f"{mantissa}{_DECIMAL_NAMES[exponent]}"
    # Beyond E (or for DecimalExponent) Go falls back to an "e" exponent.
    return f"{mantissa}e{exponent}" if exponent else str(mantissa)
