"""Plain YAML scalars read as kubectl reads them: go-yaml v2's resolver (sigs.k8s.io/yaml).

kubectl and the API server turn YAML into JSON with sigs.k8s.io/yaml, which decodes
with go-yaml v2 into interface{} values. Its resolver is neither YAML 1.1 (PyYAML's
default) nor 1.2: `y`/`n`/`on`/`off` are booleans, `12:30` is a string (no
sexagesimal numbers), `1e3` and `0o17` are numbers, timestamps stay strings. Map
keys that are not strings become their text (`1` → "1", `true` → "true"), as
sigs.k8s.io/yaml converts them for JSON.
"""

from __future__ import annotations

import math
import re
import struct
from functools import lru_cache

NULL, BOOL, INT, FLOAT, STR, MERGE = (
    f"tag:yaml.org,2002:{name}" for name in ("null", "bool", "int", "float", "str", "merge")
)

_WORDS = {
    **dict.fromkeys(("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), (BOOL, True)),
    **dict.fromkeys(("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), (BOOL, False)),
    **dict.fromkeys(("", "~", "null", "Null", "NULL"), (NULL, None)),
    **dict.fromkeys((".nan", ".NaN", ".NAN"), (FLOAT, math.nan)),
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), (FLOAT, math.inf)),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), (FLOAT, -math.inf)),
    "<<": (MERGE, "<<"),
}
# strconv.ParseInt(s, 0, 64) / ParseUint: Go's base prefixes, a leading 0 meaning octal.
_GO_INT = re.compile(r"([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)")
_YAML_STYLE_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_DOT_FLOAT = r"\.[0-9](?:_?[0-9])*(?:[eE][-+]?[0-9](?:_?[0-9])*)?"  # ParseFloat after a leading '.'
_INT64, _UINT64 = 2**63, 2**64
_MAX_DIGITS = {2: 64, 8: 22, 10: 20, 16: 16}  # the most digits a uint64 has in each base


def _go_int(plain: str) -> int | None:
    match = _GO_INT.fullmatch(plain)
    if match is None:
        return None
    sign, digits = match.groups()
    if digits[:2].lower() in ("0x", "0o", "0b"):
        base, digits = {"x": 16, "o": 8, "b": 2}[digits[1].lower()], digits[2:]
    else:
        base = 8 if digits[0] == "0" else 10
    if len(digits.lstrip("0")) > _MAX_DIGITS[base]:  # past 64 bits, and never a long (slow) conversion
        return None
    magnitude = int(digits, base)
    value = -magnitude if sign == "-" else magnitude
    if -_INT64 <= value < _INT64 or (not sign and value < _UINT64):  # ParseInt, then ParseUint (no sign)
        return value
    return None


def _go_float(text: str, pattern: re.Pattern | str) -> float | None:
    if re.fullmatch(pattern, text) is None:
        return None
    value = float(text)
    return None if math.isinf(value) else value  # ParseFloat fails with ErrRange past float64


@lru_cache(maxsize=4096)  # scalars repeat across the objects of a run
def resolve(value: str) -> tuple[str, object]:
    """(tag, value) of a plain scalar."""
    word = _WORDS.get(value)
    if word is not None:
        return word
    first = value[0]
    if first in "+-0123456789":
        plain = value.replace("_", "")
        number = _go_int(plain)
        if number is not None:
            return INT, number
        real = _go_float(plain, _YAML_STYLE_FLOAT)
        if real is not None:
            return FLOAT, real
    elif first == ".":
        real = _go_float(value, _DOT_FLOAT)
        if real is not None:
            return FLOAT, real
    return STR, value


def json_number(value: float) -> int | float | None:
    """A float as the JSON kubectl sends carries it: a whole one below 1e21 as an integer (Go's JSON writes it
    without a fraction, and the API server reads an integer), None for one JSON cannot hold (NaN, infinities)."""
    if not math.isfinite(value):
        return None
    return int(value) if value.is_integer() and abs(value) < 1e21 else value


def key_text(key) -> str | None:
    """A non-string map key as sigs.k8s.io/yaml writes it for JSON; None for keys it refuses (null)."""
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return str(key) if key < _INT64 else None  # go-yaml's uint64 keys: sigs.k8s.io/yaml refuses them
    if isinstance(key, float):
        return _float32_g(key)
    return None


def _float32_g(value: float) -> str:
    """strconv.FormatFloat(value, 'g', -1, 32): the shortest digits naming the same float32."""
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    single = _float32(value)
    if math.isinf(single):
        return ".inf" if single > 0 else "-.inf"
    text = next(text for digits in range(9) if _float32(float(text := f"{single:.{digits}e}")) == single)
    mantissa, exponent = text.split("e")
    mantissa, power = (mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa), int(exponent)
    if power < -4 or power >= 6:  # shortest 'g' uses %e past these exponents
        return f"{mantissa}e{'-' if power < 0 else '+'}{abs(power):02d}"
    return repr(float(text)).removesuffix(".0")


def _float32(value: float) -> float:
    """Go's float32(value): the nearest float32, infinite past its range."""
    try:
        return struct.unpack("f", struct.pack("f", value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)
