"""A small, fast YAML writer for Kubernetes objects (JSON-like data), block style.

PyYAML spends most of its dump time deciding, in Python, how to write each
scalar; Kubernetes objects need only maps, lists, strings, integers and
booleans, so this writer decides with one regular expression per string and is
several times faster. It is conservative: a string is written plain only when
it can mean nothing but that string to any YAML 1.1 or 1.2 reader (kubectl,
Argo CD, PyYAML); otherwise it is double-quoted, or a literal block when it is
multi-line text that a block preserves exactly.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

from .limits import room_for_depth

# Plain only: starts with a letter, `_` or `/`, then letters, digits and a few safe marks; no ": " or " #".
_PLAIN = re.compile(r"[A-Za-z_/][A-Za-z0-9_./:@+=,()\[\]-]*(?: [A-Za-z0-9_./@+=,()\[\]-]+)*")
# Words some YAML reader takes for a boolean or null.
_RESERVED = frozenset({"y", "yes", "n", "no", "on", "off", "true", "false", "null", "nan", "inf"})
# Characters that need an escape in a double-quoted scalar: C0/C1 controls, DEL, line/paragraph
# separators, BOM, surrogates and non-characters, plus the quote and backslash themselves. In ASCII text
# only C0 controls, DEL, the quote and the backslash can be there: the whole class, which takes 0.4 ms to
# compile, is compiled only for text that is not ASCII (re's cache)
_ESCAPE = '[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff"\\\\]'
_ASCII_ESCAPE = re.compile('[\x00-\x1f\x7f"\\\\]')
_SHORT = {
    "\0": "\\0",
    "\a": "\\a",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\v": "\\v",
    "\f": "\\f",
    "\r": "\\r",
    "\x1b": "\\e",
    '"': '\\"',
    "\\": "\\\\",
    "\x85": "\\N",
    "\xa0": "\\_",
    "\u2028": "\\L",
    "\u2029": "\\P",
}
# Text a literal block keeps exactly: printable, no carriage returns, no trailing blanks, and no
# line starting with a tab (go-yaml reads that as bad indentation).
_BLOCK_UNSAFE = (  # compiled on the first multi-line string (re's cache)
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff]|[ \t]\n|[ \t]$|(?:^|\n)\t"
)


def _escape(match: re.Match) -> str:
    char = match.group()
    if char in _SHORT:
        return _SHORT[char]
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def quote(text: str) -> str:
    return '"' + (_ASCII_ESCAPE.sub(_escape, text) if text.isascii() else re.sub(_ESCAPE, _escape, text)) + '"'


@lru_cache(maxsize=8192)  # keys and many values repeat in every object
def _plain(text: str) -> bool:
    return (
        bool(_PLAIN.fullmatch(text)) and text.lower() not in _RESERVED and not text.endswith(":") and ": " not in text
    )


def _key(text: str) -> str:
    return text if _plain(text) else quote(text)


def _block(text: str, indent: int) -> str | None:
    """`|` literal block lines for multi-line text, or None when a block would not keep it exactly."""
    if re.search(_BLOCK_UNSAFE, text) or text.startswith(("\n", " ")):
        return None
    body = text[:-1] if text.endswith("\n") else text
    chomp = "" if text.endswith("\n") and not text.endswith("\n\n") else ("-" if not text.endswith("\n") else "+")
    if chomp == "+":
        body = text[:-1]
    pad = " " * indent
    lines = "".join(f"{pad}{line}\n" if line else "\n" for line in body.split("\n"))
    return f"|{chomp}\n{lines}"


def _scalar(value, indent: int) -> str:
    """The scalar as it follows `key: ` or `- `; block scalars end with their own newline."""
    if isinstance(value, str):
        if "\n" in value:
            block = _block(value, indent)
            if block is not None:
                return block
            return quote(value) + "\n"
        return (value if _plain(value) else quote(value)) + "\n"
    if value is True:
        return "true\n"
    if value is False:
        return "false\n"
    if value is None:
        return "null\n"
    if isinstance(value, int):
        return f"{value}\n"
    if isinstance(value, float):
        return _float(value) + "\n"
    if isinstance(value, dict):
        return "{}\n"
    if isinstance(value, list):
        return "[]\n"
    raise TypeError(f"cannot serialize {type(value).__name__}")


def _float(value: float) -> str:
    """A float both YAML 1.1 (PyYAML: a `.` and a signed exponent) and go-yaml read as that float."""
    if not math.isfinite(value):
        raise ValueError(f"{value} is not a JSON number")
    text = repr(value)
    mantissa, e, exponent = text.partition("e")
    return f"{mantissa if '.' in mantissa else mantissa + '.0'}{e}{exponent}"


def _mapping(mapping: dict, indent: int, out: list) -> None:
    pad = " " * indent
    for key, value in mapping.items():
        if isinstance(value, dict) and value:
            out.append(f"{pad}{_key(key)}:\n")
            _mapping(value, indent + 2, out)
        elif isinstance(value, list) and value:
            out.append(f"{pad}{_key(key)}:\n")
            _sequence(value, indent, out)
        else:
            out.append(f"{pad}{_key(key)}: {_scalar(value, indent + 2)}")


def _sequence(items: list, indent: int, out: list) -> None:
    pad = " " * indent
    for item in items:
        if (isinstance(item, dict) or isinstance(item, list)) and item:
            nested: list = []
            (_mapping if isinstance(item, dict) else _sequence)(item, indent + 2, nested)
            nested[0] = f"{pad}- {nested[0][indent + 2 :]}"
            out.extend(nested)
        else:
            out.append(f"{pad}- {_scalar(item, indent + 2)}")


def dump_all(documents) -> str:
    """A YAML stream, each document starting with `---`."""
    out: list = []
    with room_for_depth():  # a level of nesting is one frame of _mapping/_sequence
        for document in documents:
            out.append("---\n")
            if isinstance(document, dict) and document:
                _mapping(document, 0, out)
            elif isinstance(document, list) and document:  # a list as a value of its own: `trainc diff`'s hunks
                _sequence(document, 0, out)
            else:
                out.append(_scalar(document, 2))
    return "".join(out)
