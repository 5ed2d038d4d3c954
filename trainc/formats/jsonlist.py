"""`-o json`: objects as the JSON `kubectl get -o json` prints for several, a v1 List.

kubectl writes unstructured objects with Go's encoder: keys sorted, four-space indent, `<`, `>`, `&`,
U+2028 and U+2029 escaped, other characters as UTF-8, and numbers as Go formats a float64 (no exponent
from 1e-6 up to 1e21).
"""

from __future__ import annotations

import json
from decimal import Decimal

from .limits import room_for_depth

_GO_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_TRANSLATION = str.maketrans(_GO_ESCAPES)


def dump_list(objects: list) -> str:
    """The objects as a kubectl-style List, ending in a newline."""
    out: list = []
    with room_for_depth():  # a level of nesting is one frame of _value
        _value({"apiVersion": "v1", "items": objects, "kind": "List", "metadata": {"resourceVersion": ""}}, 0, out)
    out.append("\n")
    return "".join(out)


def _value(value, indent: int, out: list) -> None:
    if isinstance(value, dict) and value:
        pad = " " * (indent + 4)
        out.append("{\n")
        for number, key in enumerate(sorted(value)):
            out.append(",\n" if number else "")
            out.append(f"{pad}{_string(key)}: ")
            _value(value[key], indent + 4, out)
        out.append(f"\n{' ' * indent}}}")
    elif isinstance(value, list) and value:
        pad = " " * (indent + 4)
        out.append("[\n")
        for number, item in enumerate(value):
            out.append(",\n" if number else "")
            out.append(pad)
            _value(item, indent + 4, out)
        out.append(f"\n{' ' * indent}]")
    elif isinstance(value, float):
        out.append(_float(value))
    elif isinstance(value, str):
        out.append(_string(value))
    else:  # bool, int, None, {} and []
        out.append(json.dumps(value))


def _string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False).translate(_TRANSLATION)


def _float(value: float) -> str:
    """strconv.FormatFloat(value, 'f' or 'e', -1, 64) as encoding/json chooses: the shortest digits."""
    if value == 0:
        return "-0" if str(value).startswith("-") else "0"
    if 1e-6 <= abs(value) < 1e21:
        return format(Decimal(repr(value)).normalize(), "f")
    mantissa, _, exponent = repr(value).partition("e")
    sign = "-" if exponent.startswith("-") else "+"
    return f"{mantissa.removesuffix('.0')}e{sign}{int(exponent.lstrip('+-'))}"
