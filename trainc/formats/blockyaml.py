"""The common shape of hand-written Kubernetes YAML, read without libyaml: the same data, far sooner.

Most inputs are block mappings and sequences of plain or simply quoted scalars, with one-line flow
collections (`[torchrun, train.py]`, `{limits: {cpu: 1}}`), literal and folded block scalars (a script, a CEL
rule) and comments. For such text, `documents` gives exactly what `yamltext.load_all` gives (the same values
of the same types, keys in the same order), scalars resolved by the same go-yaml rules (`goyaml.resolve`);
for any other text, anything it is not sure of (an anchor, a tag, an escape, a scalar over two lines, a block
scalar's `+` or indentation indicator, a duplicate key, a syntax error, a tab, a line break other than LF),
it gives None and libyaml reads the text, and reports its errors with their positions. It decides by the text
alone, so a file is read the same way on every run. Reading YAML is then only this module's for most builds:
PyYAML and libyaml are not even imported.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from functools import cache, lru_cache
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
_NESTED = re.compile(r" *[\[{]")  # a flow collection as an item or a value
_AFTER = re.compile(r" *([,\]}])")
_FLOW_PAIR = re.compile(r" *([A-Za-z0-9_][A-Za-z0-9_./-]*): +")
# a line opening a block scalar: a key's value or an item, no indentation indicator nor `+`, maybe a comment
_HEADER = re.compile(
    r"(?:- +(?:[A-Za-z0-9_][A-Za-z0-9_./-]*: +)?|[A-Za-z0-9_][A-Za-z0-9_./-]*: +)([|>])(-?)(?: +#.*)?$"
)
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
    raw, at = text.split("\n"), 0
    try:
        while at < len(raw):
            line = raw[at]
            at += 1
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
                opened = ("|" in content or ">" in content) and _HEADER.match(content)
                block = None
                if opened:  # its lines are the scalar's, read here: none is a line of the document's shape
                    block, at = _block_scalar(raw, at, _parent(indent, content), opened)
                lines.append((indent, content, content == "-" or content[:2] == "- ", block))
        if lines or explicit:
            found.append(_document(lines))
    except (_Unsure, RecursionError):
        return None
    if _READ:
        _READ[-1][text] = None
    return found


_READ: list = []  # while `remembering`: {text: None} of the texts `documents` read and `_outline` has not


@contextmanager
def remembering(read: dict | None = None):
    """Within it, a text `documents` read is known to be of the shape read here when it is outlined to be placed,
    without reading it a second time (a parallel build's workers read their files, then place each TrainJob's
    messages in its text as they compile it: a fifth of the build with every check on). `read`, a dict given
    again, remembers across several: what one run reads, another stage of it places."""
    _READ.append({} if read is None else read)
    try:
        yield
    finally:
        _READ.pop()


def _readable(text: str, outlined: bool = False) -> bool:
    """Whether `documents` reads `text` (not libyaml); once `outlined`, it need not be remembered."""
    read = _READ[-1] if _READ else None
    if read is None or text not in read:
        if documents(text) is None:
            return False
    if outlined and read is not None:
        del read[text]
    return True


_END = (-1, "", False, None)  # after a document's last line: less indented than any line, so every block ends there
_OUTLINE_END = (-1, -1, "", False)  # the same in an outline's lines, which start with their line number


def _document(lines: list) -> object:
    """`lines`: (indent, content, whether it is a sequence item, the block scalar it opens or None) of each line
    that is neither blank nor a comment, nor in a block scalar."""
    if not lines:
        return None  # an explicit document with nothing in it (`---` last, or before another)
    if lines[0][0] != 0 or lines[0][1].startswith("%"):
        raise _Unsure  # an indented root, a directive
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
        rest, block = content[key.end() :], line[3]
        at += 1
        line = lines[at]
        if rest and rest[0] != "#":
            mapping[intern(name)] = _inline(rest) if block is None else block
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
            lines[at] = (column, rest, False, line[3])
            item, at = _mapping(lines, at, column, level + 1)
            items.append(item)
        else:
            items.append(_inline(rest) if line[3] is None else line[3])
            at += 1
            if lines[at][0] > indent:
                raise _Unsure
        line = lines[at]
    if line[0] > indent:
        raise _Unsure
    return items, at


def _parent(indent: int, content: str) -> int:
    """The column of the collection a block scalar's header line (`content`, at `indent`) writes into: its
    content is indented further."""
    if content[:2] != "- ":
        return indent
    rest = content[2:].lstrip(" ")
    return indent if rest[0] in "|>" else indent + len(content) - len(rest)  # `- |`, or `- key: |`'s mapping


def _block_scalar(raw: list, at: int, parent: int, header: re.Match) -> tuple[str, int]:
    """The literal (`|`) or folded (`>`) block scalar whose header (`_HEADER`) ends raw line `at - 1`, in a
    collection at column `parent`, as libyaml scans it, clipped or stripped (`-`); and the raw line after its last.
    Its indentation is its first line's; a folded scalar's lines are joined by a space, a line break kept where a
    blank line is or either line is indented further (libyaml's `leading_blank` and `trailing_blank`). What it
    does not read: a scalar that does not start on the next line, a blank line with spaces past its indentation,
    the `+` and indentation indicators (which `_HEADER` does not match)."""
    first = raw[at] if at < len(raw) else ""
    column = len(first) - len(first.lstrip(" "))
    if column <= parent or not first.strip(" "):
        raise _Unsure
    parts: list = []
    end = at
    while at < len(raw):
        line = raw[at]
        content = line.lstrip(" ")
        if content and len(line) - len(content) >= column:
            parts.append(line[column:])
            end = at = at + 1
        elif content:
            break
        elif len(line) > column:
            raise _Unsure
        else:
            parts.append(None)
            at += 1
    while parts[-1] is None:
        parts.pop()
    folded, pieces, blank = header[1] == ">", [parts[0]], 0
    indented = parts[0][0] == " "
    for part in parts[1:]:
        if part is None:
            blank += 1
            continue
        further = part[0] == " "
        if folded and not indented and not further:
            pieces.append("\n" * blank if blank else " ")
        else:
            pieces.append("\n" * (blank + 1))
        pieces.append(part)
        blank, indented = 0, further
    if header[2] != "-" and end < len(raw):  # clipped: its last line's break, when it has one
        pieces.append("\n")
    return "".join(pieces), end  # joined once: a scalar of a million lines is read in linear time


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


def _flow(text: str, start: int = 0, level: int = 0, places: list | None = None) -> tuple[object, int]:
    """The one-line flow sequence, or flow mapping of plain keys, at `start`: of scalars and such collections; and
    the index after it. With `places` (for `locate`), each entry's is added to it in order: (its key's index or None,
    its value's index: a scalar's first character, a quoted one's quote, a collection's bracket; a collection's own
    places, else None)."""
    if level > _MAX_LEVELS:
        raise _Unsure
    closing = "]" if text[start] == "[" else "}"
    at = start + 1
    empty = _CLOSING.match(text, at)
    if empty is not None:
        if text[empty.end() - 1] != closing:
            raise _Unsure
        return ([] if closing == "]" else {}), empty.end()
    items: list = []
    mapping: dict = {}
    while True:
        if closing == "}":
            pair = _FLOW_PAIR.match(text, at)
            if pair is None or goyaml.resolve(pair[1])[0] != goyaml.STR or pair[1] in mapping:
                raise _Unsure
            at = pair.end()
        nested = _NESTED.match(text, at)
        if nested is not None:
            inner = None if places is None else []
            value, at = _flow(text, nested.end() - 1, level + 1, inner)
            item = _AFTER.match(text, at)
            if item is None:
                raise _Unsure
            after = item[1]
            if places is not None:
                places.append((pair.start(1) if closing == "}" else None, nested.end() - 1, inner))
        else:
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
            if places is not None:
                first = item.start(3) if plain is not None else item.start(1 if double is not None else 2) - 1
                places.append((pair.start(1) if closing == "}" else None, first, None))
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


def spans(text: str) -> list[tuple[int, int]] | None:
    """`yamltext.document_spans` of text `documents` reads (None for other text): a document runs from its `---`
    line to the next document's, the first from the start of the text."""
    if not _readable(text):
        return None
    offsets, offset, content, explicit = [0], 0, False, False
    for line in text.split("\n"):
        if line.startswith("---"):  # nothing else follows the marker in text of this shape
            if content or explicit:
                offsets.append(offset)
            content, explicit = False, True
        elif line.strip(" ") and line.lstrip(" ")[0] != "#":
            content = True
        offset += len(line) + 1
    if not (content or explicit):
        return []
    return list(zip(offsets, [*offsets[1:], len(text)]))


# --- positions: where a path's node is in text of this shape, as libyaml's composed nodes mark it


UNSURE = "unsure"  # `locate`'s answer for text (or a node) it does not place: libyaml's composed nodes do


def locate(text: str, index: int, path, key: bool = False, exact: bool = False):
    """0-based (line, column) of the deepest node of `path` in document `index`, as `position.locate` finds it on
    libyaml's composed nodes (the key's with `key` at the last step; None with `exact` when the path is not all
    written), read off the lines; UNSURE for text `documents` does not read, and for a step onto an empty value,
    whose mark libyaml places by rules not kept here."""
    found = _walk(text, index, path, key)
    if found is UNSURE:
        return UNSURE
    _, mark, whole = found
    return None if exact and not whole else mark


def keys(text: str, index: int, path) -> list | None:
    """The keys of the mapping at `path` in document `index`, in order, read off the lines; None when no mapping is
    written there; UNSURE as `locate` answers it."""
    found = _walk(text, index, path)
    if found is UNSURE:
        return UNSURE
    node, _, whole = found
    if not whole or type(node) is _Inline or node.sequence:
        return None
    return list(node.entries if type(node) is _Flow else node._entries())


def _walk(text: str, index: int, path, key: bool = False):
    """(the deepest node of `path` written in document `index`, its mark or its key's with `key`, whether it is
    all of `path`), a flow collection read for its places; UNSURE as `locate` answers it."""
    outline = _outline(text)
    if outline is None or index >= len(outline):
        return UNSURE
    lines, indexes = outline[index]
    if len(lines) == 1:  # an empty document: its null's place is libyaml's
        return UNSURE
    node = _Block(lines, 0, lines[0][1], None, indexes)
    found = node.mark
    for depth, part in enumerate(path, 1):
        child = key_mark = None
        node = _placed(node, indexes)
        if type(node) is not _Inline:  # a scalar has nothing below it
            if type(part) is str and not node.sequence:
                child, key_mark = node.value_of(part)
            elif type(part) is int and node.sequence:
                child = node.item(part)
        if child is None:
            return node, found, False
        if child is UNSURE:
            return UNSURE
        node = child
        found = key_mark if key and depth == len(path) and key_mark else node.mark
    return _placed(node, indexes), found, True


def _placed(node, indexes: dict):
    """`node`, a one-line flow collection read for its places (once per document: a table asks of every entry)."""
    if type(node) is not _Inline or node.flow is None:
        return node
    flow = indexes.get((node.mark,))
    if flow is None:
        flow = indexes[(node.mark,)] = _Flow.read(node.mark, node.flow)
    return flow


class _Inline:
    """A scalar or one-line flow collection (`flow`: its text, from the first character) written on a key's or an
    item's line, or in a flow collection."""

    __slots__ = ("mark", "flow")

    def __init__(self, mark: tuple[int, int], flow: str | None = None):
        self.mark, self.flow = mark, flow


class _Flow:
    """A one-line flow collection: its items' or its keys' and values' marks, from the places `_flow` finds as it
    reads it (libyaml marks a scalar at its first character, a quoted one at its quote, a collection at its
    bracket)."""

    __slots__ = ("mark", "sequence", "entries")

    def __init__(self, mark: tuple[int, int], base: int, value, places: list):
        """`value` and `places` as `_flow` gives them; `base`, the column of the text's first character."""
        line = mark[0]
        self.mark, self.sequence = mark, isinstance(value, list)

        def node(item, at: int, inner):
            return _Inline((line, base + at)) if inner is None else _Flow((line, base + at), base, item, inner)

        if self.sequence:
            self.entries = [node(item, at, inner) for item, (_, at, inner) in zip(value, places)]
        else:
            self.entries = {
                name: (node(item, at, inner), (line, base + key))
                for (name, item), (key, at, inner) in zip(value.items(), places)
            }

    @classmethod
    def read(cls, mark: tuple[int, int], text: str) -> _Flow:
        """The flow collection `text` (text `documents` read) written from `mark`."""
        places: list = []
        value, _ = _flow(text, 0, 0, places)
        return cls(mark, mark[1], value, places)

    def value_of(self, name: str):
        """(the value's node, its key's mark) of key `name`; (None, None) when it has none."""
        return self.entries.get(name, (None, None))

    def item(self, wanted: int):
        """The node of item `wanted`; None when there are fewer."""
        return self.entries[wanted] if 0 <= wanted < len(self.entries) else None


def _flow_text(rest: str) -> str | None:
    """`rest`, a value written on a line, when it is a flow collection."""
    return rest if rest[0] in "[{" else None


class _Block:
    """A block mapping or sequence of an outline's lines: its first line `at` and its column; for a mapping that
    starts on a sequence item's line, that line's text from its first key on (`first`). Its entries are found
    once per document (`indexes`, by first line and column): a List of 10,000 TrainJobs, each with a message,
    would otherwise be read through from its top for every one."""

    __slots__ = ("lines", "at", "column", "first", "sequence", "mark", "indexes")

    def __init__(self, lines: list, at: int, column: int, first: str | None, indexes: dict):
        self.lines, self.at, self.column, self.first, self.indexes = lines, at, column, first, indexes
        self.sequence = first is None and lines[at][3]
        self.mark = (lines[at][0], column)

    def _entries(self):
        """[(line index, content)] of its keys' lines (a mapping: {key: (line index, content)}) or its items' (a
        sequence), as `_mapping` and `_sequence` read them: a more indented line, and in a mapping an item at its
        column (a sequence written at its key's column), belong to an entry's value; a less indented line, and in a
        sequence a key at its column, end it."""
        found = self.indexes.get((self.at, self.column))
        if found is not None:
            return found
        lines, column, sequence = self.lines, self.column, self.sequence
        entries = [(self.at, self.first if self.first is not None else lines[self.at][2])]
        for position in range(self.at + 1, len(lines)):
            _, indent, content, item = lines[position]
            if indent < column or (indent == column and sequence and not item):
                break
            if indent == column and item == sequence:
                entries.append((position, content))
        if not sequence:  # keys are not repeated in the text `documents` reads
            entries = {_KEY.match(content)[1]: (position, content) for position, content in entries}
        self.indexes[(self.at, self.column)] = entries
        return entries

    def value_of(self, name: str):
        """(the value's node, its key's mark) of key `name`; (None, None) when it has none."""
        found = self._entries().get(name)
        if found is None:
            return None, None
        position, content = found
        mark = (self.lines[position][0], self.column)
        rest = content[_KEY.match(content).end() :]
        if rest and rest[0] != "#":
            return _Inline((mark[0], self.column + len(content) - len(rest)), _flow_text(rest)), mark
        below = self.lines[position + 1]
        if below[1] > self.column or (below[1] == self.column and below[3]):
            return _Block(self.lines, position + 1, below[1], None, self.indexes), mark
        return UNSURE, None  # an empty value

    def item(self, wanted: int):
        """The node of item `wanted`; None when there are fewer."""
        entries = self._entries()
        if not 0 <= wanted < len(entries):
            return None
        position, content = entries[wanted]
        rest = content[2:].lstrip(" ")
        column = self.column + len(content) - len(rest)
        if _KEY.match(rest):  # a mapping starting on the item's line
            return _Block(self.lines, position, column, rest, self.indexes)
        return _Inline((self.lines[position][0], column), _flow_text(rest))


@lru_cache(maxsize=8)  # the notices and errors of one file, located in turn, read its lines once
def _outline(text: str) -> list[tuple[list, dict]] | None:
    """Per document, its lines that are neither blank nor comments, as `documents` reads them (line number, indent,
    content, whether it is a sequence item), and after the last one `_END`'s; with the entries of its blocks found
    so far, (first line, column) -> `_Block._entries`, and its flow collections read so far, (mark,) -> `_Flow`.
    None for text it does not read."""
    if not _readable(text, outlined=True):
        return None
    found, lines, explicit = [], [], False
    for number, line in enumerate(text.split("\n")):
        if line.startswith(("---", "...")):
            if lines or explicit:
                found.append(([*lines, _OUTLINE_END], {}))
            lines, explicit = [], True
            continue
        content = line.lstrip(" ")
        if content and content[0] != "#":
            content = content.rstrip(" ")
            lines.append((number, len(line) - len(line.lstrip(" ")), content, content == "-" or content[:2] == "- "))
    if lines or explicit:
        found.append(([*lines, _OUTLINE_END], {}))
    return found
