"""A ResourceList's items as the text they came in, so `trainc fn` never re-encodes what it passes through.

kpt and kustomize write each item back into the user's files from the text a
function returns. Decoding an item and encoding it again would change it: the
ResourceList is YAML 1.2 (`on` is a key, `0644` a number written so), kubectl's
reading is not, and comments and quoting would be lost. So every item is cut
out of the input text by the composed node's positions (structure only: no
scalar is resolved) and pasted into the output as it was; the one edit trainc
makes to an item, an annotation on its sources, is inserted into that text.
"""

from __future__ import annotations

import re

import yaml

from . import yamlshape
from .depth import room_for_depth

# YAML's line breaks, as libyaml counts lines (its marks are lines and columns in characters)
_LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
_Composer = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class Item:
    """One item of the ResourceList: its composed node and the lines it spans, as in the input.

    A block entry spans whole lines, from its `-` to the next entry's; a flow entry (`items: [...]`,
    JSON) spans from its node's first to its last character.
    """

    def __init__(self, node, lines: list[str], first_line: int, dedent: int, flow: bool):
        self.node, self.lines, self.first_line, self.dedent, self.flow = node, lines, first_line, dedent, flow
        self.end = node.end_mark.column  # where a flow entry ends on its last line

    def text(self) -> str:
        """The item as an entry of a block sequence at column 0."""
        if not self.flow:
            text = "".join(_dedent(line, self.dedent) for line in self.lines)
            return text if _LINE_BREAK.search(text[-2:]) else text + "\n"
        lines = [*self.lines[:-1], self.lines[-1][:self.end]]
        lines[0] = lines[0][self.node.start_mark.column:]
        # continuation lines of flow text may be indented at will: YAML folds their leading blanks away
        return "- " + "".join(lines[:1] + ["  " + line if line.strip() else line for line in lines[1:]]) + "\n"

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
        return isinstance(annotations, yaml.MappingNode) and self._insert(annotations, entry)

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
        ending = _LINE_BREAK.search(self.lines[line])
        self.lines.insert(line, " " * column + entry + (ending.group() if ending else "\n"))
        return True


def _dedent(line: str, columns: int) -> str:
    blanks = len(line) - len(line.lstrip(" "))
    return line[min(blanks, columns):]


def _value(mapping, key: str):
    for key_node, value_node in mapping.value if isinstance(mapping, yaml.MappingNode) else ():
        if isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
            return value_node
    return None


def _lines(text: str) -> list[str]:
    starts = [0, *(match.end() for match in _LINE_BREAK.finditer(text))]
    return [text[start:end] for start, end in zip(starts, [*starts[1:], len(text)])]


def items(text: str) -> list[Item]:
    """The items of the one ResourceList in `text` (already read and checked by source.load_text)."""
    with room_for_depth(yamlshape.FRAMES_PER_LEVEL):
        root = yaml.compose(text, Loader=_Composer)
    sequence = _value(root, "items")
    if not isinstance(sequence, yaml.SequenceNode) or not sequence.value:
        return []
    lines = _lines(text)
    if sequence.flow_style:
        return [_flow_item(node, lines) for node in sequence.value]
    column = sequence.start_mark.column
    dashes = [_dash_line(node, lines, column) for node in sequence.value]
    end = sequence.end_mark.line + (1 if lines[sequence.end_mark.line][:sequence.end_mark.column].strip() else 0)
    return [Item(node, lines[start:stop], start, column, False)
            for node, start, stop in zip(sequence.value, dashes, [*dashes[1:], end])]


def _dash_line(node, lines: list[str], column: int) -> int:
    """The line of the `-` that opens a block sequence entry: the node's own line or one above it,
    across the comments and blank lines YAML allows between the two."""
    line = node.start_mark.line
    while not (lines[line][column:column + 1] == "-" and not lines[line][:column].strip()):
        line -= 1
    return line


def _flow_item(node, lines: list[str]) -> Item:
    return Item(node, lines[node.start_mark.line:node.end_mark.line + 1], node.start_mark.line, 0, True)
