"""The common shape of hand-written Kubernetes YAML, read without libyaml: the same data, far sooner.

Most inputs are block mappings and sequences of plain or simply quoted scalars, with one-line flow
collections (`[torchrun, train.py]`, `{}`) and comments. For such text, `documents` gives exactly what
`yamltext.load_all` gives (the same values of the same types, keys in the same order), scalars resolved
by the same go-yaml rules (`goyaml.resolve`); for any other text, anything it is not sure of (an anchor,
a tag, a block scalar, an escape, a scalar over two lines, a duplicate key, a syntax error, a tab, a
line break other than LF), it gives None and libyaml reads the text, and reports its errors with their
positions. It decides by the text alone, so a file is read the same way on every run. Reading YAML is
then only this module's for most builds: PyYAML and libyaml are not even imported.
"""

from __future__ import annotations

import re
from functools import cache
from sys import intern

from . import goyaml

_CONTROL = re.compile(r"[^\n -~]")  # in ASCII text: tabs, carriage returns, control characters
_KEY = re.compile(r"([A-Za-z0-9_][A-Za-z0-9_./-]*):(?: +|$)")
# a scalar in a one-line flow collection: double-quoted without escapes, single-quoted, or plain (no
# indicator first but a `-` before text, no flow indicator, `#`, `:` or `?` inside), then a comma or the closing
# bracket; a plain scalar's spaces are taken, possessively, only before more of it, so a long run of spaces is
# read once (a lazy match read it again for every character: quadratic in a hostile line)
_FLOW_ITEM = re.compile(
    r' *(?:"([^"\\]*)"|\'((?:[^\']|\'\')*+)\'|((?:-(?=[^\s,\]}])|[^-\s,\[\]{}#&*!|>\'"%@`:?])'
    r"(?:[^,\[\]{}#:? ]| +(?=[^,\[\]{}#:? ]))*+)) *([,\]}])"
)
_CLOSING = re.compile(r" *[\]}]")
_FLOW_PAIR = re.compile(r" *([A-Za-z0-9_][A-Za-z0-9_./-]*): +")
_PLAIN_FIRST = frozenset("-?:,[]{}#&*!|>'\"%@`")
_MAX_LEVELS = 64  # deeper text is libyaml's to read (and to refuse past limits.MAX_DEPTH)


@cache
def _outside() -> re.Pattern:
    """What libyaml reads otherwise or refuses in any text: tabs, carriage returns and the other line breaks (NEL,
    U+2028, U+2029), byte order marks, control and non-printable characters (compiled when first needed: a class
    this large takes milliseconds to compile)."""
    return re.compile("[^\n -~\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")


class _Unsure(Exception):
    """The text is not of the shape read here: libyaml reads it."""


def documents(text: str) -> list | None:
    """The documents of a YAML stream as `yamltext.load_all` gives them, or None when libyaml must read it."""
    if (_CONTROL if text.isascii() else _outside()).search(text) is not None:
        return None
    found, lines, explicit = [], [], False
    try:
        for line in text.split("\n"):
            if line.startswith(("---", "...")):
                if line.rstrip() != "---":  # content or a comment after the marker, or a document end
                    raise _Unsure
                if lines or explicit:
                    found.append(_document(lines))
                lines, explicit = [], True
                continue
            content = line.lstrip(" ")
            if content and content[0] != "#":
                indent, content = len(line) - len(content), content.rstrip(" ")
                lines.append((indent, content, content == "-" or content[:2] == "- "))
        if lines or explicit:
            found.append(_document(lines))
    except (_Unsure, RecursionError):
        return None
    return found


_END = (-1, "", False)  # after a document's last line: less indented than any line, so every block ends there


def _document(lines: list) -> object:
    """`lines`: (indent, content, whether it is a sequence item) of each line that is neither blank nor a comment."""
    if not lines or lines[0][0] != 0 or lines[0][1].startswith("%"):
        raise _Unsure  # an empty explicit document, an indented root, a directive
    lines.append(_END)
    value, end = _block(lines, 0, 0, 0)
    if end != len(lines) - 1:
        raise _Unsure
    return value


def _block(lines: list, at: int, indent: int, level: int) -> tuple[object, int]:
    """The block collection starting at line `at`, at `indent`, and the line after it."""
    if level > _MAX_LEVELS:
        raise _Unsure
    if lines[at][2]:
        return _sequence(lines, at, indent, level)
    return _mapping(lines, at, indent, level)


def _mapping(lines: list, at: int, indent: int, level: int) -> tuple[dict, int]:
    mapping: dict = {}
    line = lines[at]
    while line[0] == indent and not line[2]:
        content = line[1]
        key = _KEY.match(content)
        if key is None:
            raise _Unsure  # a quoted or complex key
        name = key[1]
        if name in mapping or len(name) > 1000 or goyaml.resolve(name)[0] != goyaml.STR:
            raise _Unsure  # a repeat, a key longer than YAML allows, one go-yaml reads as no string
        rest = content[key.end() :]
        at += 1
        line = lines[at]
        if rest and rest[0] != "#":
            mapping[intern(name)] = _inline(rest)
            if line[0] > indent:  # a scalar going on over the next line
                raise _Unsure
        elif line[0] > indent or (line[0] == indent and line[2]):
            mapping[intern(name)], at = _block(lines, at, line[0], level + 1)
            line = lines[at]
        else:
            mapping[intern(name)] = None
    if line[0] > indent:
        raise _Unsure
    return mapping, at


def _sequence(lines: list, at: int, indent: int, level: int) -> tuple[list, int]:
    items: list = []
    line = lines[at]
    while line[0] == indent and line[2]:
        content = line[1]
        rest = content[2:].lstrip(" ")
        if not rest or rest[0] == "#" or rest == "-" or rest[:2] == "- ":
            raise _Unsure  # an item on the lines below, or a sequence in a sequence
        if _KEY.match(rest):  # a mapping starting on the item's line: its keys line up with the first
            column = indent + len(content) - len(rest)
            lines[at] = (column, rest, False)
            item, at = _mapping(lines, at, column, level + 1)
            items.append(item)
        else:
            items.append(_inline(rest))
            at += 1
            if lines[at][0] > indent:
                raise _Unsure
        line = lines[at]
    if line[0] > indent:
        raise _Unsure
    return items, at


def _inline(text: str) -> object:
    """The value written on a key's or an item's line: a scalar or a one-line flow collection."""
    first = text[0]
    if first == '"' or first == "'":
        value, end = _quoted(text)
        _comment_only(text[end:])
        return value
    if first == "[" or first == "{":
        value, end = _flow(text)
        _comment_only(text[end:])
        return value
    if first in _PLAIN_FIRST and not (first == "-" and text[1:2] not in ("", " ")):  # `--epochs`, `-1`
        raise _Unsure
    cut = text.find(" #")
    plain = text if cut < 0 else text[:cut].rstrip(" ")
    if ": " in plain or plain.endswith(":"):
        raise _Unsure
    return _plain(plain)


def _comment_only(rest: str) -> None:
    if rest and not (rest[0] == " " and rest.lstrip(" ").startswith("#")):
        raise _Unsure


def _quoted(text: str) -> tuple[str, int]:
    if text[0] == '"':
        end = text.find('"', 1)
        if end < 0 or "\\" in text[1:end]:
            raise _Unsure
        return text[1:end], end + 1
    end = 1
    while True:
        end = text.find("'", end)
        if end < 0:
            raise _Unsure
        if text[end + 1 : end + 2] != "'":
            return text[1:end].replace("''", "'"), end + 1
        end += 2


def _plain(text: str) -> object:
    """A plain scalar as the loader constructs it (`yamltext.Loader.construct_go_scalar`)."""
    tag, value = goyaml.resolve(text)
    if tag != goyaml.FLOAT:
        return value
    number = goyaml.json_number(value)
    if number is None:
        raise _Unsure  # refused, with its position, by the loader
    return number


def _flow(text: str) -> tuple[object, int]:
    """A one-line flow sequence of scalars, or flow mapping of plain keys to scalars."""
    closing = "]" if text[0] == "[" else "}"
    at = 1
    if text[1:].lstrip(" ").startswith(closing):
        return ([] if closing == "]" else {}), text.index(closing) + 1
    items: list = []
    mapping: dict = {}
    while True:
        if closing == "}":
            pair = _FLOW_PAIR.match(text, at)
            if pair is None or goyaml.resolve(pair[1])[0] != goyaml.STR or pair[1] in mapping:
                raise _Unsure
            at = pair.end()
        item = _FLOW_ITEM.match(text, at)
        if item is None:
            raise _Unsure
        double, single, plain, after = item.groups()
        if double is not None:
            value = double
        elif single is not None:
            value = single.replace("''", "'")
        else:
            value = _plain(plain)
        if closing == "}":
            mapping[intern(pair[1])] = value
        else:
            items.append(value)
        at = item.end()
        if after != ",":
            if after != closing:
                raise _Unsure
            return (items if closing == "]" else mapping), at
        if _CLOSING.match(text, at):  # a trailing comma (matched in place: a slice per item is quadratic)
            raise _Unsure
