"""Positions: where a field, an object's name or a character of a string value is in its file, the one place
every `file:line:col` is looked up (errors and notices find theirs here when printed, through `errors.locator`).

Positions are looked up only when a message is printed, so the hot path never pays for them: text of the
common shape is placed off its lines (`blockyaml.locate`), other text composed again by libyaml on demand
(`yamltext.composed`, imported then), or read by `jsontext` when the text is JSON.

An error about a string's content (the SDK heredoc lint) points into the
string, as editors and `--format github` need: the YAML scalar (literal or folded
block, double- or single-quoted, plain; folding and escapes undone as YAML does) or the
JSON string is decoded again with the source offset of each character, and the
result is used only if it is the value the loader read, so text not mapped here
(a line break other than LF, say) falls back to the field's own position, never
to a wrong one.
"""

from __future__ import annotations

from ..errors import Origin, Path
from . import blockyaml
from .source import is_json

_ESCAPES = {
    "0": "\0",
    "a": "\a",
    "b": "\b",
    "t": "\t",
    "\t": "\t",
    "n": "\n",
    "v": "\v",
    "f": "\f",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}
_HEX = {"x": 2, "u": 4, "U": 8}
_JSON_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def locate(origin: Origin, path: Path, *, key: bool = False, exact: bool = False) -> tuple[int, int] | None:
    """1-based (line, column) of the deepest node of `path` that exists in the document;
    with `exact`, None unless the whole path is written in the text (`trainc explain` tells defaults apart)."""
    if origin.text is None:
        return None if exact else (1, 1)
    path = origin.base + tuple(path)
    if is_json(origin.text):
        from . import jsontext

        return jsontext.locate(origin.text, origin.index, path, key, exact)
    found = blockyaml.locate(origin.text, origin.index, path, key, exact)
    if found is blockyaml.UNSURE:  # not text of the common shape, placed off its lines: libyaml's nodes place it
        found = composed_mark(origin.text, origin.index, path, key, exact)
    return None if found is None else (found[0] + 1, found[1] + 1)


def composed_mark(text: str, index: int, path: Path, key: bool = False, exact: bool = False) -> tuple | None:
    """`locate`'s answer (0-based) read off libyaml's composed nodes of document `index` of a YAML `text`."""
    import yaml

    from . import yamltext

    try:
        node = yamltext.composed(text)[index]
    except (yaml.YAMLError, IndexError):
        return None if exact else (0, 0)
    found = node.start_mark
    for depth, part in enumerate(path, 1):
        child = key_mark = None
        if isinstance(node, yaml.MappingNode) and isinstance(part, str):
            for key_node, value_node in node.value:
                if yamltext.key_of(key_node) == part:
                    child, key_mark = value_node, key_node.start_mark
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            child = node.value[part]
        if child is None:
            if exact:
                return None
            break
        node, found = child, key_mark if (key and depth == len(path) and key_mark) else child.start_mark
    return (found.line, found.column)


def name_place(origin: Origin) -> str:
    """`FILE:LINE:COL` of an object's `metadata.name`, for a message about another object ("first in ...")."""
    line, column = locate(origin, ("metadata", "name"))
    return f"{origin.file}:{line}:{column}"


def order(error) -> tuple:
    """A sort key putting errors (or notices) in input order: file, line, column; those of no input first."""
    return error.position() or ("", 0, 0)


def in_value(origin: Origin, path: Path, value: str, offset: int) -> tuple[int, int] | None:
    """1-based (line, column) in the file of character `offset` of `value`, the string read at `path`; None
    when the text there cannot be mapped to it (no text, not a string, a style not mapped here)."""
    text = origin.text
    if text is None or not 0 <= offset < len(value):
        return None
    if is_json(text):
        from . import jsontext

        found, line_column = _json(text, origin, path), jsontext.line_column
    else:
        from . import yamltext

        found, line_column = _yaml(text, origin, path), yamltext.line_column
    if found is None:
        return None
    chars, offsets = found
    if chars != value and not (chars.rstrip("\n") == value.rstrip("\n") and offset < len(chars)):
        return None  # (a block scalar's chomping only changes the line breaks at its end)
    return line_column(text, offsets[offset])  # each its own breaks


def _yaml(text: str, origin: Origin, path: Path) -> tuple[str, list[int]] | None:
    import yaml

    from . import yamltext

    try:
        node = yamltext.composed(text)[origin.index]
    except (yaml.YAMLError, IndexError):
        return None
    for part in origin.base + tuple(path):
        if isinstance(node, yaml.MappingNode) and isinstance(part, str):
            node = next((value for key, value in node.value if yamltext.key_of(key) == part), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
        else:
            return None
    if not isinstance(node, yaml.ScalarNode):
        return None
    starts = [0, *(match.end() for match in yamltext.LINE_BREAK.finditer(text))]
    start = starts[node.start_mark.line] + node.start_mark.column
    end = starts[node.end_mark.line] + node.end_mark.column if node.end_mark.line < len(starts) else len(text)
    if any(char in text[start:end] for char in "\r\x85\u2028\u2029"):
        return None
    if node.style in ("|", ">"):
        return _block(text, start, end, node.style == ">")
    return _flow(text, start, end, node.style) if node.style in ('"', "'", None, "") else None  # plain: "" (libyaml)


def _block(text: str, start: int, end: int, folded: bool) -> tuple[str, list[int]] | None:
    """A block scalar's characters and their offsets, as libyaml reads it: each content line without the
    indentation (that of the first line holding more than spaces), empty lines as line breaks, and in a folded
    one the break between two lines that start with no blank as a space (dropped before empty lines)."""
    header_end = text.find("\n", start)
    if header_end < 0 or header_end >= end:
        return None
    lines, at = [], header_end + 1
    while at < end:
        stop = text.find("\n", at, end)
        stop = end if stop < 0 else stop
        lines.append((at, text[at:stop]))
        at = stop + 1
    indent = next((len(line) - len(line.lstrip(" ")) for _, line in lines if line.strip(" ")), 0)
    chars, offsets, breaks = [], [], []
    leading, previous_blank = None, False  # the break after the last content line; whether that line began blank
    for line_start, line in lines:
        content = line[indent:] if len(line) > indent else ""
        if not content:
            breaks.append(line_start + len(line))
            continue
        blank = content[0] in " \t"
        if leading is not None and not (folded and not previous_blank and not blank):
            chars.append("\n")
            offsets.append(leading)
        elif leading is not None and not breaks:
            chars.append(" ")
            offsets.append(leading)
        chars.extend("\n" * len(breaks))
        offsets.extend(breaks)
        chars.extend(content)
        offsets.extend(range(line_start + indent, line_start + indent + len(content)))
        leading, previous_blank, breaks = line_start + len(line), blank, []
    return "".join(chars), offsets


def _flow(text: str, start: int, end: int, style: str | None) -> tuple[str, list[int]] | None:
    """A flow scalar's characters (folded, unescaped) and their offsets; a folded line break is at the break."""
    quoted = style in ('"', "'")
    at, stop = start + quoted, end - quoted
    chars, offsets = [], []

    def breaks(at: int, each: bool) -> int:
        """Past the empty lines after a break, and the next line's indentation; `each`: one newline per empty line
        (else the caller folds)."""
        while True:
            while at < stop and text[at] in " \t":
                at += 1
            if at < stop and text[at] == "\n":
                if each:
                    chars.append("\n")
                    offsets.append(at)
                at += 1
            else:
                return at

    while at < stop:
        char = text[at]
        if char in " \t":
            blank = at
            while blank < stop and text[blank] in " \t":
                blank += 1
            if blank < stop and text[blank] == "\n":  # trailing blanks before a break are not content
                at = blank
                continue
            chars.extend(text[at:blank])
            offsets.extend(range(at, blank))
            at = blank
        elif char == "\n":
            before, line_break = len(chars), at
            at = breaks(at + 1, each=True)
            if len(chars) == before:  # one break folds into a space
                chars.append(" ")
                offsets.append(line_break)
        elif style == "'" and text.startswith("''", at):
            chars.append("'")
            offsets.append(at)
            at += 2
        elif style == '"' and char == "\\":
            escape = text[at + 1 : at + 2]
            if escape == "\n":
                at = breaks(at + 2, each=True)
            elif escape in _ESCAPES:
                chars.append(_ESCAPES[escape])
                offsets.append(at)
                at += 2
            elif escape in _HEX:
                digits = text[at + 2 : at + 2 + _HEX[escape]]
                try:
                    chars.append(chr(int(digits, 16)))
                except ValueError:
                    return None
                offsets.append(at)
                at += 2 + len(digits)
            else:
                return None
        else:
            chars.append(char)
            offsets.append(at)
            at += 1
    return "".join(chars), offsets


def _json(text: str, origin: Origin, path: Path) -> tuple[str, list[int]] | None:
    from . import jsontext

    found = jsontext.locate(text, origin.index, origin.base + tuple(path), exact=True)
    if found is None:
        return None
    line, column = found
    start = jsontext._line_starts(text)[line - 1] + column - 1
    end = jsontext._string_end(text, start) if text[start : start + 1] == '"' else None
    if not isinstance(end, int):
        return None
    chars, offsets, at = [], [], start + 1
    while at < end - 1:
        if text[at] != "\\":
            chars.append(text[at])
            offsets.append(at)
            at += 1
        elif text[at + 1] == "u":
            code = int(text[at + 2 : at + 6], 16)
            low = text[at + 8 : at + 12] if text.startswith("\\u", at + 6) else ""
            if 0xD800 <= code < 0xDC00 and len(low) == 4 and 0xDC00 <= int(low, 16) < 0xE000:  # one character
                code, width = 0x10000 + ((code - 0xD800) << 10) + int(low, 16) - 0xDC00, 12
            else:
                width = 6
            chars.append(chr(code))
            offsets.append(at)
            at += width
        else:
            chars.append(_JSON_ESCAPES[text[at + 1]])
            offsets.append(at)
            at += 2
    return "".join(chars), offsets
