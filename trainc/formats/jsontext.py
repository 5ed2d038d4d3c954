"""JSON input, decoded as kubectl and the API server decode it, and located for errors.

A stream whose first non-blank character is `{` is JSON (apimachinery's sniff)
and is decoded as JSON, a stream of values: YAML reads JSON differently where it
matters (the surrogate-pair escapes Python's `json.dumps` writes for every
character beyond U+FFFF are an error in YAML, and raw U+2028 or U+0085 in a
string are line breaks there). Go's decoder refuses numbers past float64 and
reads an unpaired surrogate escape as U+FFFD; so does this one. Positions are
found in the JSON text itself, lines counted as JSON counts them.
"""

from __future__ import annotations

import bisect
import json
import math
import re
from functools import cache, lru_cache

from ..errors import Record
from .limits import MAX_DEPTH, room_for_depth


class JsonError(Exception):
    """JSON that Go's decoder refuses: (message, offset)."""


_SPACE = re.compile(r"[ \t\r\n]*")
# JSON's tokens, as RFC 8259 (and Go's scanner) spell them.
_STRING_PATTERN = r'"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"'
_NUMBER_PATTERN = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?"
# strings (whose brackets do not nest) and brackets, read leniently, as the depth check reads text that may not
# decode; a string's loop unrolled (runs of plain characters, each escape between): alternating per character is slower
_LENIENT_STRING_PATTERN = r'"[^"\\]*(?:\\.[^"\\]*)*"'


class _Patterns(Record):
    """The patterns of what valid JSON needs none of (errors, depth, positions, surrogate escapes): compiled on
    first use (`_patterns`), as most runs never use them (1.2 ms at start)."""

    string: re.Pattern
    scalar: re.Pattern
    token: re.Pattern
    to_bracket: re.Pattern
    unclosed: re.Pattern
    bracket: re.Pattern
    number_or_string: re.Pattern
    line_break: re.Pattern
    escapes: re.Pattern
    surrogate_pair: re.Pattern


@cache
def _patterns() -> _Patterns:
    return _Patterns(
        string=re.compile(_STRING_PATTERN),
        scalar=re.compile(f"{_NUMBER_PATTERN}|true|false|null"),
        token=re.compile(_LENIENT_STRING_PATTERN + r"|[\[\]{}]", re.S),
        # from a token's end to the next bracket outside strings, in one match: strings, runs of other characters,
        # a quote that opens no string (skipped, as `token`'s scan skips it), each taken whole (possessive: never a
        # bracket inside)
        to_bracket=re.compile(r"(?:" + _LENIENT_STRING_PATTERN + r'|[^\[\]{}"]++|")*+([\[\]{}])', re.S),
        # the first quote that opens no string: past it no quote does (each would read on to the end as it did), so
        # every bracket there counts; found in one pass, where trying each quote would read the rest again for each
        unclosed=re.compile(r'(?:[^"]++|' + _LENIENT_STRING_PATTERN + r')*+"', re.S),
        bracket=re.compile(r"[\[\]{}]"),
        number_or_string=re.compile(f"{_STRING_PATTERN}|{_NUMBER_PATTERN}|-?Infinity|NaN"),
        line_break=re.compile(r"\r\n|\n|\r"),
        # escapes in a JSON string (`\\` first, so `\\ud800` is no escape) and runs of UTF-16 surrogate escapes
        escapes=re.compile(r"\\\\|((?:\\u[dD][89a-fA-F][0-9a-fA-F]{2})+)"),
        surrogate_pair=re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"),
    )


class _Duplicate(Exception):
    """An object repeats a key (the decoder's hook cannot say where; `_first_duplicate` finds it)."""


class _OutOfRange(Exception):
    """A number past float64: (its literal)."""


def _object(pairs: list) -> dict:
    mapping = dict(pairs)
    if len(mapping) != len(pairs):
        raise _Duplicate()
    return mapping


class _Constant(Exception):
    """NaN or Infinity, which Python's decoder reads and Go's refuses: (its literal)."""


def _constant(name: str):
    raise _Constant(name)  # Python's json reads NaN and Infinity; Go's does not


def _float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _OutOfRange(text)
    return value


def _int(text: str) -> int | float:
    """int64 as such; past it Go's decoder (apimachinery's unstructured JSON) falls back to float64."""
    digits = text.lstrip("-")
    if len(digits) <= 18 or (len(digits) == 19 and -(2**63) <= int(text) < 2**63):
        return int(text)
    return _float(text)


_DECODER = json.JSONDecoder(object_pairs_hook=_object, parse_constant=_constant, parse_float=_float, parse_int=_int)


def _lone_surrogates(match: re.Match) -> str:
    """A run of surrogate escapes with each unpaired one made U+FFFD (6 characters, as long), as Go's
    JSON decoder reads it; a valid high+low pair stays one character beyond U+FFFF."""
    run = match.group(1)
    if run is None:
        return match.group()
    out, at = [], 0
    while at < len(run):
        pair = _patterns().surrogate_pair.match(run, at)
        out.append(pair.group() if pair else "\\ufffd")
        at = pair.end() if pair else at + 6
    return "".join(out)


def _go_escapes(text: str) -> str:
    return _patterns().escapes.sub(_lone_surrogates, text) if "\\u" in text else text


def values(text: str) -> list:
    """The values of a JSON stream; JsonError for text that is no JSON stream Go's decoder reads
    (kubectl refuses `{`-led text that is not JSON, rather than reading it as YAML). Nesting past MAX_DEPTH is
    refused first, whatever else is wrong: decoded at C speed, the text is scanned for where only when the decoder
    stops or its values nest that deep (`_check_depth`, a step per bracket: a cluster state is megabytes)."""
    try:
        decoded = _decoded(text)
    except (JsonError, RecursionError):
        _check_depth(text)
        raise
    if text.count("[") + text.count("{") > MAX_DEPTH and _deeper(decoded):
        _check_depth(text)
    return decoded


def _deeper(decoded: list) -> bool:
    """Whether a decoded value nests more than MAX_DEPTH levels of objects and arrays."""
    stack = [(value, 1) for value in decoded if type(value) is dict or type(value) is list]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        for child in value.values() if type(value) is dict else value:
            if type(child) is dict or type(child) is list:
                stack.append((child, depth + 1))
    return False


def _decoded(text: str) -> list:
    decoded, at = [], _SPACE.match(text).end()
    clean = _go_escapes(text)  # the same length as `text`: offsets stay
    with room_for_depth():  # Python < 3.12 decodes each level of JSON in a frame
        while at < len(clean):
            try:
                value, end = _DECODER.raw_decode(clean, at)
            except _OutOfRange as exc:
                raise JsonError(f"number {exc.args[0]} is out of range", _token_at(text, at, exc.args[0])) from None
            except _Duplicate:  # Go scans a value whole before decoding it: a syntax error in it comes first
                broken = _syntax_error(text, at, single=True)
                if broken is not None:
                    raise JsonError(
                        f"{broken[0]} (text starting with {{ is read as JSON, as kubectl reads it)", broken[1]
                    ) from None
                key, offset = _first_duplicate(text, at)
                raise JsonError(f'duplicate key "{key}"', offset) from None
            except _Constant as exc:
                raise JsonError(f"{exc.args[0]} is not JSON", _token_at(text, at, exc.args[0])) from None
            except json.JSONDecodeError as exc:
                message, offset = _syntax_error(text, at) or (exc.msg, exc.pos)
                raise JsonError(
                    f"{message} (text starting with {{ is read as JSON, as kubectl reads it)", offset
                ) from None
            decoded.append(value)
            at = _SPACE.match(clean, end).end()
    return decoded


_AFTER = {"o": ("after object key:value pair", ",", "}"), "a": ("after array element", ",", "]")}


def _syntax_error(text: str, at: int, single: bool = False) -> tuple[str, int] | None:
    """Where and why a JSON stream breaks, in Go's words (encoding/json's scanner), from offset `at`
    (in its value there only, if `single`): the same on every Python, whose own messages and offsets
    vary between versions."""
    stack, expect, position = [], "value", at
    while True:
        position = _SPACE.match(text, position).end()
        if position >= len(text):
            return None if expect in ("value", "after") and not stack else ("unexpected end of JSON input", position)
        char = text[position]
        if expect in ("value", "value or ]"):
            if expect == "value or ]" and char == "]":
                stack.pop()
                expect, position = "after", position + 1
            elif char in "[{":
                stack.append("a" if char == "[" else "o")
                expect, position = ("value or ]" if char == "[" else "key or }"), position + 1
            elif char == '"':
                end = _string_end(text, position)
                if isinstance(end, tuple):
                    return end
                expect, position = "after", end
            elif (match := _patterns().scalar.match(text, position)) is not None:
                expect, position = "after", match.end()
            else:
                return f"invalid character {_quote(char)} looking for beginning of value", position
        elif expect in ("key", "key or }"):
            if expect == "key or }" and char == "}":
                stack.pop()
                expect, position = "after", position + 1
            elif char == '"':
                end = _string_end(text, position)
                if isinstance(end, tuple):
                    return end
                expect, position = ":", end
            else:
                return f"invalid character {_quote(char)} looking for beginning of object key string", position
        elif expect == ":":
            if char != ":":
                return f"invalid character {_quote(char)} after object key", position
            expect, position = "value", position + 1
        elif not stack:  # one value of the stream is complete: the next begins
            if single:
                return None
            expect = "value"
        else:
            context, separator, closing = _AFTER[stack[-1]]
            if char == separator:
                expect = "key" if stack[-1] == "o" else "value"
            elif char == closing:
                stack.pop()
                expect = "after"
            else:
                return f"invalid character {_quote(char)} {context}", position
            position += 1


def _string_end(text: str, start: int) -> int | tuple[str, int]:
    """The end of the JSON string at `start`, or (message, offset) of what breaks it."""
    match = _patterns().string.match(text, start)
    if match is not None:
        return match.end()
    position = start + 1
    while position < len(text):
        char = text[position]
        if char == '"':
            break
        if char < " ":
            return f"invalid character {_quote(char)} in string literal", position
        if char == "\\":
            escape = text[position + 1 : position + 2]
            if escape == "u":
                digits = text[position + 2 : position + 6]
                bad = next((i for i, d in enumerate(digits) if d not in "0123456789abcdefABCDEF"), len(digits))
                if bad < 4:
                    if position + 2 + bad >= len(text):
                        break
                    return (
                        f"invalid character {_quote(text[position + 2 + bad])} in \\u hexadecimal character escape",
                        position + 2 + bad,
                    )
                position += 6
                continue
            if escape and escape not in '"\\/bfnrt':
                return f"invalid character {_quote(escape)} in string escape code", position + 1
            position += 2
            continue
        position += 1
    return "unexpected end of JSON input", len(text)


def _quote(char: str) -> str:
    """Go's quoteChar: 'x', with quotes and controls escaped."""
    if char == "'":
        return "'\\''"
    if char == '"':
        return "'\"'"
    return "'" + json.dumps(char)[1:-1] + "'" if char < " " or char == "\x7f" else f"'{char}'"


def _token_at(text: str, start: int, token: str) -> int:
    """The offset of the number or constant `token` (never a look-alike inside a string) after `start`."""
    return next(found.start() for found in _patterns().number_or_string.finditer(text, start) if found.group() == token)


def _check_depth(text: str) -> None:
    """Refuse nesting past MAX_DEPTH, at the bracket that opens level MAX_DEPTH + 1 (as libyaml reports it): one
    match per bracket outside strings (`to_bracket`) up to a quote that opens no string (`unclosed`), then every
    bracket; nothing copied, each character read a bounded number of times (a hostile text of escaped quotes)."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    unclosed = _patterns().unclosed.match(text)
    end = len(text) if unclosed is None else unclosed.end() - 1
    depth, at, match = 0, 0, _patterns().to_bracket.match
    while (found := match(text, at, end)) is not None:
        at = found.end()
        depth = _step(found.group(1), depth, found.start(1))
    for found in _patterns().bracket.finditer(text, end):
        depth = _step(found.group(), depth, found.start())


def _step(bracket: str, depth: int, offset: int) -> int:
    """The depth after `bracket` (at `offset`), from `depth`; refused past MAX_DEPTH."""
    if bracket in "[{":
        if depth >= MAX_DEPTH:
            raise JsonError(f"nested deeper than {MAX_DEPTH} levels", offset)
        return depth + 1
    return depth - 1


def line_column(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of a character offset, lines broken where JSON breaks them."""
    starts = _line_starts(text)
    line = bisect.bisect_right(starts, offset)
    return line, offset - starts[line - 1] + 1


@lru_cache(maxsize=8)  # every error in a file counts lines in the same text
def _line_starts(text: str) -> list[int]:
    return [0, *(match.end() for match in _patterns().line_break.finditer(text))]


class _Index:
    """Where values, keys and container members start in one JSON text, found on demand and kept."""

    def __init__(self, text: str):
        self.text = text
        self._ends: dict[int, int] = {}
        self._members: dict[int, list] = {}
        self._by_name: dict[int, dict] = {}

    def end(self, at: int) -> int:
        if at not in self._ends:
            text, first = self.text, self.text[at]
            if first == '"':
                self._ends[at] = _patterns().string.match(text, at).end()
            elif first in "[{":
                depth = 0
                for token in _patterns().token.finditer(text, at):
                    depth += token.group() in ("[", "{")
                    depth -= token.group() in ("]", "}")
                    if depth == 0:
                        self._ends[at] = token.end()
                        break
            else:
                self._ends[at] = _patterns().scalar.match(text, at).end()
        return self._ends[at]

    def members(self, at: int) -> list:
        """[(key or index, key offset or None, value offset)] of the container at `at`."""
        if at not in self._members:
            text, found, index = self.text, [], 0
            closing = "}" if text[at] == "{" else "]"
            position = _SPACE.match(text, at + 1).end()
            while position < len(text) and text[position] != closing:
                if closing == "}":
                    key_end = _patterns().string.match(text, position).end()
                    key = json.loads(_go_escapes(text[position:key_end]))
                    value = _SPACE.match(text, _SPACE.match(text, key_end).end() + 1).end()
                    found.append((key, position, value))
                else:
                    value = position
                    found.append((index, None, value))
                    index += 1
                position = _SPACE.match(text, self.end(value)).end()
                if position < len(text) and text[position] == ",":
                    position = _SPACE.match(text, position + 1).end()
            self._members[at] = found
        return self._members[at]

    def member(self, at: int, name) -> tuple | None:
        """(key offset or None, value offset) of the first member `name` (key or index) of the container at `at`."""
        if at not in self._by_name:
            found: dict = {}
            for member, key_at, child in self.members(at):
                found.setdefault(member, (key_at, child))
            self._by_name[at] = found
        return self._by_name[at].get(name)

    def starts(self) -> list[int]:
        """The offset of each top-level value of the stream."""
        found, at = [], _SPACE.match(self.text).end()
        while at < len(self.text):
            found.append(at)
            at = _SPACE.match(self.text, self.end(at)).end()
        return found


@lru_cache(maxsize=8)  # errors in one file reuse the index of its text
def _index(text: str) -> _Index:
    return _Index(text)


def locate(text: str, value: int, path: tuple, key: bool = False, exact: bool = False) -> tuple[int, int] | None:
    """(line, column) of the deepest node of `path` in top-level value number `value` (of its key, with `key`);
    with `exact`, None unless the whole path is there."""
    index = _index(text)
    at = index.starts()[value]
    for depth, part in enumerate(path, 1):
        match = index.member(at, part) if text[at] in "[{" and isinstance(part, (str, int)) else None
        if match is None:
            if exact:
                return None
            break
        key_at, at = match
        if key and depth == len(path) and key_at is not None:
            at = key_at
    return line_column(text, at)


def _first_duplicate(text: str, start: int) -> tuple[str, int]:
    """The first key repeated in an object of the value at `start`, and the offset of its repetition."""
    index, pending = _index(text), [start]
    while pending:
        at = pending.pop()
        if text[at] not in "[{":
            continue
        members, seen = index.members(at), set()
        for name, key_at, child in members:
            if key_at is not None and name in seen:
                return name, key_at
            seen.add(name)
        pending.extend(child for _, _, child in reversed(members))
    return "", start
