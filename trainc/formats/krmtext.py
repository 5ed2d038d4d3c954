"""A ResourceList's items as the text they came in, so `trainc fn` never re-encodes what it passes through.

kpt and kustomize write each item back into the user's files from the text a
function returns. Decoding an item and encoding it again would change it: the
ResourceList is YAML 1.2 (`on` is a key, `0644` a number written so), kubectl's
reading is not, and comments and quoting would be lost. So every item is cut
out of the input text by the composed node's positions (structure only: no
scalar is resolved) and pasted into the output as it was; the one edit trainc
makes to an item, an annotation on its sources or the package's namespace on an
object that sets none, is inserted into that text.
"""

from __future__ import annotations

import re

import yaml

from . import source, yamlshape, yamltext
from .limits import room_for_depth

_NULLS = frozenset({"", "~", "null", "Null", "NULL"})  # the plain scalars YAML 1.2 (and go-yaml) read as null
# what JSON strings may hold raw but YAML refuses raw (outside its printable set; C0 controls JSON refuses too),
# and the line breaks YAML folds in a double-quoted string: escaped in JSON items' text, so YAML reads them back
_UNPRINTABLE = re.compile("[\x7f-\x84\x86-\x9f\ufffe\uffff]")
_JSON_RAW = re.compile("[\x7f-\x9f\u2028\u2029\ufffe\uffff]")
# JSON's UTF-16 surrogate escapes, which YAML refuses: for the positions only, each becomes one as long YAML takes
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
# in a JSON item's text: `\\` (kept), a surrogate pair (one YAML escape), a lone surrogate (U+FFFD, as Go reads it)
_ESCAPES = re.compile(
    r"\\\\|\\u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})|\\u[dD][89a-fA-F][0-9a-fA-F]{2}"
)


def _yaml_escape(match: re.Match) -> str:
    """A JSON escape YAML refuses as the escape YAML reads as the same character (text is passed on as YAML)."""
    if match.group() == "\\\\":
        return match.group()
    if match.group(1) is None:
        return "\\uFFFD"
    high, low = int(match.group(1), 16), int(match.group(2), 16)
    return f"\\U{0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00):08X}"


class _Composer(yaml.CSafeLoader):  # libyaml, as source.py reads everything
    """Nodes and their positions only: what a scalar means is source.load_text's business."""

    def resolve(self, kind, value, implicit):
        return ""


class SharedText(Exception):
    """An item that is, or holds, an alias of a node outside its own text: its text alone is not the item."""

    def __init__(self, index: int):
        super().__init__(index)
        self.index = index


class Item:
    """One item of the ResourceList: its composed node and the lines it spans, as in the input.

    A block entry spans whole lines, from its `-` to the next entry's; a flow entry (`items: [...]`,
    JSON) spans from its node's first to its last character.
    """

    def __init__(self, node, lines: list[str], first_line: int, dedent: int, flow: bool, json: bool = False):
        self.node, self.lines, self.first_line, self.dedent, self.flow = node, lines, first_line, dedent, flow
        self.json = json  # cut from JSON text: its strings may hold characters raw that YAML reads otherwise
        self.end = node.end_mark.column  # where a flow entry ends on its last line

    def text(self) -> str:
        """The item as an entry of a block sequence at column 0."""
        if not self.flow:
            text = "".join(_dedent(line, self.dedent) for line in self.lines)
            return text if yamltext.LINE_BREAK.search(text[-2:]) else text + "\n"
        lines = [*self.lines[:-1], self.lines[-1][: self.end]]
        lines[0] = lines[0][self.node.start_mark.column :]
        if self.json:  # escaped inside its strings, so the breaks left are the JSON text's own
            lines = _lines(_JSON_RAW.sub(lambda match: f"\\u{ord(match.group()):04X}", "".join(lines)))
        # continuation lines of flow text may be indented at will: YAML folds their leading blanks away
        text = "- " + "".join(lines[:1] + ["  " + line if line.strip() else line for line in lines[1:]]) + "\n"
        return _ESCAPES.sub(_yaml_escape, text) if "\\u" in text else text

    def annotate(self, key: str, value: str) -> bool:
        """Insert `key: "value"` (a plain key) into metadata.annotations, creating them when absent; False
        when metadata or its annotations are not mappings."""
        entry = f'{key}: "{value}"'
        metadata = _value(self.node, "metadata")
        if not isinstance(metadata, yaml.MappingNode):
            return False
        annotations = _value(metadata, "annotations")
        if annotations is None:
            return self._insert(metadata, f"annotations: {{{entry}}}")
        if isinstance(annotations, yaml.ScalarNode) and not annotations.style and annotations.value in _NULLS:
            return self._replace_null(metadata, annotations, f"{{{entry}}}")
        return isinstance(annotations, yaml.MappingNode) and self._insert(annotations, entry)

    def place(self, namespace: str) -> bool:
        """Set metadata.namespace to `namespace` (already written as a YAML scalar): inserted as metadata's first
        key, or over an empty value written on one line; False when metadata is not a mapping or its namespace
        is not a one-line scalar."""
        metadata = _value(self.node, "metadata")
        if not isinstance(metadata, yaml.MappingNode):
            return False
        present = _value(metadata, "namespace")
        if present is None:
            return self._insert(metadata, f"namespace: {namespace}")
        if not isinstance(present, yaml.ScalarNode) or present.start_mark.line != present.end_mark.line:
            return False
        if not present.value and not present.style:  # `namespace:` with nothing after the colon
            return self._replace_null(metadata, present, namespace)
        line = present.start_mark.line - self.first_line
        start, end = present.start_mark.column, present.end_mark.column
        self.lines[line] = self.lines[line][:start] + namespace + self.lines[line][end:]
        if line == len(self.lines) - 1:
            self.end += len(namespace) - (end - start)
        return True

    def _replace_null(self, mapping, null, text: str) -> bool:
        """`annotations:` or `annotations: null` becomes `annotations: {…}`."""
        key = next(key for key, value in mapping.value if value is null)
        line = key.end_mark.line - self.first_line
        if null.value:  # `null` or `~`, after the key on its line
            if null.start_mark.line != key.end_mark.line:
                return False
            start, end = null.start_mark.column, null.end_mark.column
        else:  # empty: right after the key's colon
            start = end = self.lines[line].index(":", key.end_mark.column) + 1
            text = " " + text
        self.lines[line] = self.lines[line][:start] + text + self.lines[line][end:]
        if line == len(self.lines) - 1:
            self.end += len(text) - (end - start)
        return True

    def _insert(self, mapping, entry: str) -> bool:
        if mapping.flow_style:
            line = mapping.start_mark.line - self.first_line
            column = self.lines[line].index("{", mapping.start_mark.column) + 1  # past an anchor or tag
            text = entry + (", " if mapping.value else "")
            self.lines[line] = self.lines[line][:column] + text + self.lines[line][column:]
            if line == len(self.lines) - 1:
                self.end += len(text)
            return True
        first_key = mapping.value[0][0].start_mark
        line, column = first_key.line - self.first_line, first_key.column
        if self.lines[line][:column].strip():  # a block mapping's first key starts its line, or YAML refused it
            return False
        ending = yamltext.LINE_BREAK.search(self.lines[line])
        self.lines.insert(line, " " * column + entry + (ending.group() if ending else "\n"))
        return True


def _dedent(line: str, columns: int) -> str:
    blanks = len(line) - len(line.lstrip(" "))
    return line[min(blanks, columns) :]


def _value(mapping, key: str):
    for key_node, value_node in mapping.value if isinstance(mapping, yaml.MappingNode) else ():
        if isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
            return value_node
    return None


def _lines(text: str) -> list[str]:
    starts = [0, *(match.end() for match in yamltext.LINE_BREAK.finditer(text))]
    return [text[start:end] for start, end in zip(starts, [*starts[1:], len(text)])]


def items(text: str) -> list[Item]:
    """The items of the one ResourceList in `text` (already read and checked by source.load_text)."""
    text = text.removeprefix("\ufeff")  # libyaml's marks do not count a BOM
    is_json = source.is_json(text)
    # raw in JSON strings only (YAML refuses them), each replaced by one character YAML takes: positions kept
    composable = _UNPRINTABLE.sub(" ", _SURROGATE_ESCAPE.sub(r"\\uFFFD", text)) if is_json else text
    with room_for_depth(yamlshape.FRAMES_PER_LEVEL):
        # the ResourceList, whatever empty documents (`---` alone) come before or after it
        root = next(
            (node for node in yaml.compose_all(composable, Loader=_Composer) if isinstance(node, yaml.MappingNode)),
            None,
        )
    sequence = _value(root, "items")
    if not isinstance(sequence, yaml.SequenceNode) or not sequence.value:
        return []
    lines = _lines(text)
    if sequence.flow_style:
        found = [_flow_item(node, lines, is_json) for node in sequence.value]
    else:
        column = sequence.start_mark.column
        dashes = [_dash_line(node, lines, column) for node in sequence.value]
        for index in range(1, len(dashes)):
            if dashes[index] <= dashes[index - 1]:  # an alias of an earlier item
                raise SharedText(index)
        end = sequence.end_mark.line
        end = len(lines) if end >= len(lines) else end + (1 if lines[end][: sequence.end_mark.column].strip() else 0)
        found = [
            Item(node, lines[start:stop], start, column, False)
            for node, start, stop in zip(sequence.value, dashes, [*dashes[1:], end])
        ]
    if "*" in text:
        seen = set()
        for index, item in enumerate(found):
            span = (
                (
                    (item.node.start_mark.line, item.node.start_mark.column),
                    (item.node.end_mark.line, item.node.end_mark.column),
                )
                if item.flow
                else ((item.first_line, 0), (item.first_line + len(item.lines), 0))
            )
            if id(item.node) in seen or not _within(item.node, *span):
                raise SharedText(index)
            seen.add(id(item.node))
    return found


def _within(node, first: tuple, stop: tuple) -> bool:
    """Whether every node under `node` starts in [first, stop) (line, column): an alias is the anchored
    node itself, wherever that is."""
    seen, todo = set(), [node]
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if not first <= (node.start_mark.line, node.start_mark.column) < stop:
            return False
        if isinstance(node, yaml.SequenceNode):
            todo.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            todo.extend(part for pair in node.value for part in pair)
    return True


def _dash_line(node, lines: list[str], column: int) -> int:
    """The line of the `-` that opens a block sequence entry: the node's own line or one above it,
    across the comments and blank lines YAML allows between the two."""
    line = node.start_mark.line
    while not (lines[line][column : column + 1] == "-" and not lines[line][:column].strip()):
        line -= 1
    return line


def _flow_item(node, lines: list[str], json: bool) -> Item:
    return Item(node, lines[node.start_mark.line : node.end_mark.line + 1], node.start_mark.line, 0, True, json)
