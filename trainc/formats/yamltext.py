"""YAML text as libyaml reads it: the one loader, its line breaks, and where a field is written.

Every YAML stream trainc reads is parsed and composed here (`Loader`); the
same composed nodes tell an error where its field is (`position.locate`), so a
position is found only when an error is printed. The input reader (`source.py`)
turns what fails here into errors.
"""

from __future__ import annotations

import bisect
import re
from contextlib import suppress
from functools import lru_cache
from sys import intern

import yaml

from . import goyaml, yamlshape
from .limits import room_for_depth

if not hasattr(yaml, "CSafeLoader"):
    raise ImportError(
        "trainc reads YAML with libyaml, and this PyYAML was built without it: install a PyYAML "
        "wheel (pip install --force-reinstall --only-binary=pyyaml pyyaml), which bundles libyaml"
    )

_JSON_TAGS = {None} | {f"tag:yaml.org,2002:{name}" for name in ("null", "bool", "int", "float", "str", "seq", "map")}


class Loader(yaml.CSafeLoader):
    """The one reader: libyaml parses and composes every text, whatever it holds, into JSON data as the API
    server receives it, i.e. trees of JSON values.

    Tags that make other values (`!!binary`, `!!timestamp`, `!!set`, `!!omap`,
    `!!pairs`, custom tags) are refused. Every alias becomes its own copy, as in
    the JSON kubectl sends, so defaulting one place never changes another; a
    recursive alias, aliases adding more than MAX_NODES nodes to a document (an alias
    bomb) and nesting past MAX_DEPTH levels are refused before anything is built
    (`yamlshape.py`).

    Two things go-yaml v2 (kubectl) reads otherwise are mended on the composed
    nodes: the non-specific tag `!` makes text (`! 010` is "010", where libyaml
    resolves it like a plain scalar), and a `?` in a plain scalar inside a flow
    collection (`[n?]`), which libyaml reads as text and go-yaml refuses, is refused.
    """

    def __init__(self, text: str):
        super().__init__(text)
        self.text = text
        # whether the text may hold aliases, or nest MAX_DEPTH levels: if not, no shape to check
        self.aliased, self.deep = "*" in text, yamlshape.may_nest(text)
        self.questions = "?" in text and ("[" in text or "{" in text)
        self.bare = None  # (line, column) of the scalars tagged `!`, sorted, found when the first document is composed
        self._last = (None, "")  # the last document's root node and text
        self.documents = 0  # composed so far

    def recheck(self, documents: int) -> None:
        """The nesting rule applied by PyYAML's scanner and composer to the first `documents` documents.
        Only its nesting verdict counts: libyaml's reading stands for everything else."""
        loader = _DepthScanner(self.text)
        try:
            with suppress(ValueError):  # the pure scanner's own failure on escapes past U+10FFFF: libyaml reports it
                for _ in range(documents):
                    if loader.check_node():
                        loader.get_node()
        except yaml.YAMLError as exc:
            if yamlshape.is_too_deep(exc):
                raise
        finally:
            loader.dispose()

    def get_node(self):
        node = super().get_node()
        if node is None:
            return node
        if self.bare is None:
            self.bare = _non_specific_scalars(self.text)
            self.bare_set = set(self.bare)
        start, end = node.start_mark, node.end_mark
        bare = self.bare and bisect.bisect_right(self.bare, (end.line, end.column)) > bisect.bisect_left(
            self.bare, (start.line, start.column)
        )
        questions = self.questions and "?" in self._document(node)
        if bare or questions:
            _mend(node, self.bare_set, questions)
        return node

    def _document(self, node) -> str:
        """The text of the document `node` is the root of, from the start of its first line: per-document
        checks (shape, mending) skip the documents that cannot need them, however large the stream."""
        if node is not self._last[0]:
            self._last = node, self.text[self.text.rfind("\n", 0, node.start_mark.index) + 1 : node.end_mark.index]
        return self._last[1]

    def resolve(self, kind, value, implicit):
        if kind is yaml.ScalarNode and implicit[0]:  # a plain scalar: go-yaml v2 decides what it is
            return goyaml.resolve(value)[0]
        return super().resolve(kind, value, implicit)

    def construct_go_scalar(self, node):
        """A scalar of an implicit or explicit JSON type, refused unless go-yaml v2 reads it as that type."""
        if not isinstance(node, yaml.ScalarNode):  # `!!int [1]`
            raise _cannot_read(node)
        tag, value = goyaml.resolve(node.value)
        if node.tag == goyaml.FLOAT and tag == goyaml.INT:
            tag, value = goyaml.FLOAT, float(value)
        if tag != node.tag:
            raise ValueError(node.value)
        if not isinstance(value, float):
            return value
        number = goyaml.json_number(value)
        if number is None:
            raise yaml.constructor.ConstructorError(
                None, None, f"{node.value} is not a JSON number (kubectl cannot send it)", node.start_mark
            )
        return number

    def construct_document(self, node):
        self.documents += 1
        if self.aliased or self.deep:
            document = self._document(node)
            if "*" in document or yamlshape.may_nest(document):
                yamlshape.check_shape(node, lambda: self.recheck(self.documents))
        return super().construct_document(node)

    def construct_object(self, node, deep=False):
        self.constructed_objects.pop(node, None)  # an alias is a fresh copy, not the anchored object
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, KeyError):  # only scalars raise these: `!!int x`, `!!float x`, `!!bool x`
            raise _cannot_read(node) from None

    def construct_mapping(self, node, deep=False):
        if not isinstance(node, yaml.MappingNode):  # `!!map x`
            raise _cannot_read(node)
        self.flatten_mapping(node)
        mapping = {}
        for key_node, value_node in node.value:
            if key_node.tag == goyaml.FLOAT and goyaml.resolve(key_node.value)[0] in (goyaml.INT, goyaml.FLOAT):
                key = goyaml.key_text(float(goyaml.resolve(key_node.value)[1]))  # a float64 key, as Go formats it
            else:
                key = self.construct_object(key_node, deep=deep)
                if not isinstance(key, str):
                    key = goyaml.key_text(key) if not isinstance(key, (list, dict)) else None
            if key is None:
                raise yaml.constructor.ConstructorError(None, None, "mapping keys must be strings", key_node.start_mark)
            if key in mapping:
                raise yaml.constructor.ConstructorError(None, None, f'duplicate key "{key}"', key_node.start_mark)
            mapping[intern(key)] = self.construct_object(value_node, deep=deep)  # one copy of each key held
        return mapping


Loader.yaml_constructors = {tag: make for tag, make in Loader.yaml_constructors.items() if tag in _JSON_TAGS}
Loader.add_constructor("tag:yaml.org,2002:map", yaml.SafeLoader.construct_yaml_map)
for _tag in (goyaml.NULL, goyaml.BOOL, goyaml.INT, goyaml.FLOAT):
    Loader.add_constructor(_tag, Loader.construct_go_scalar)
Loader.add_constructor(goyaml.MERGE, lambda loader, node: node.value)  # `<<` anywhere but a key is text


class _DepthScanner(yamlshape.Nesting, yaml.SafeLoader):
    """PyYAML's pure-Python scanner and composer, run only for the nesting verdict (`yamlshape.py`)."""


def _cannot_read(node) -> yaml.constructor.ConstructorError:
    tag = node.tag.replace("tag:yaml.org,2002:", "!!")
    value = repr(node.value) if isinstance(node, yaml.ScalarNode) else f"a {type(node).__name__[:-4].lower()}"
    return yaml.constructor.ConstructorError(None, None, f"cannot read {value} as {tag}", node.start_mark)


# `!` alone as a node's tag, in any position YAML allows one: where one may be, libyaml's events tell
_NON_SPECIFIC_TAG = re.compile(r"(?:^|[\s\[{,:?-])!(?=[\s,\]}]|$)", re.M)


def _non_specific_scalars(text: str) -> list:
    """(line, column) of every scalar libyaml's events show tagged `!`, up to any syntax error (which the
    loader reports itself when it reaches it)."""
    if _NON_SPECIFIC_TAG.search(text) is None:
        return []
    found = []
    parser = yaml.CSafeLoader(text)
    try:
        with suppress(yaml.YAMLError):  # the text's own error is libyaml's to report, where the document is loaded
            while parser.check_event():
                event = parser.get_event()
                if isinstance(event, yaml.ScalarEvent) and event.tag == "!":
                    found.append((event.start_mark.line, event.start_mark.column))
    finally:
        parser.dispose()
    return found


def _mend(root, bare: set, questions: bool) -> None:
    """Scalars tagged `!` made text; a `?` in a plain scalar of a flow collection refused (see `Loader`)."""
    seen, stack = set(), [(root, False)]
    while stack:
        node, in_flow = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            if (node.start_mark.line, node.start_mark.column) in bare:
                node.tag = goyaml.STR
            elif questions and in_flow and not node.style and "?" in node.value:
                raise yaml.scanner.ScannerError(
                    None,
                    None,
                    "'?' in a plain scalar inside a flow collection, which kubectl's reader (go-yaml) "
                    "refuses: quote the text",
                    node.start_mark,
                )
            continue
        flow = in_flow or bool(node.flow_style)
        children = (
            [child for pair in node.value for child in pair] if isinstance(node, yaml.MappingNode) else node.value
        )
        stack.extend((child, flow) for child in children)


LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")  # YAML's line breaks, as libyaml counts lines


def line_column(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of a character offset, counting lines as YAML does."""
    breaks = list(LINE_BREAK.finditer(text, 0, offset))
    return len(breaks) + 1, offset - (breaks[-1].end() if breaks else 0) + 1


def load_all(text: str) -> list:
    """yaml.load_all, skipping the shape checks for text that can hold no alias (`*`) and nest too little."""
    loader = Loader(text)
    documents = []
    with room_for_depth(yamlshape.FRAMES_PER_LEVEL):
        try:
            while loader.check_data():
                documents.append(loader.get_data())
        except yaml.YAMLError as exc:
            if yamlshape.is_too_deep(exc):  # libyaml's own limit: refused where PyYAML's scanner refuses it
                loader.recheck(loader.documents + 1)
            raise
        finally:
            loader.dispose()
    return documents


@lru_cache(maxsize=8)  # every error in a file locates itself in the same text
def composed(text: str) -> list:
    with room_for_depth(yamlshape.FRAMES_PER_LEVEL):
        return list(yaml.compose_all(text, Loader=Loader))


def key_of(node) -> str | None:
    """A mapping key as the loader makes it a JSON key (`0x10` is "16", `y` is "true")."""
    if not isinstance(node, yaml.ScalarNode):
        return None
    if node.tag == goyaml.STR:
        return node.value
    tag, value = goyaml.resolve(node.value)
    if node.tag == goyaml.FLOAT and tag in (goyaml.INT, goyaml.FLOAT):
        return goyaml.key_text(float(value))
    return value if isinstance(value, str) else goyaml.key_text(value)


def document_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of each document of a YAML stream, as `load_text` numbers them: a document runs
    from its `---` (or its directives) to the next document's, so comments after a `---` go with the
    document they precede, and the text before the first document's content with the first document (libyaml's
    events; `blockyaml.spans` finds them off the lines of text of its shape)."""
    line_starts = [0] + [match.end() for match in LINE_BREAK.finditer(text)]
    with room_for_depth(yamlshape.FRAMES_PER_LEVEL):
        starts = [
            event.start_mark for event in yaml.parse(text, Loader=Loader) if isinstance(event, yaml.DocumentStartEvent)
        ]
    offsets = [0] + [line_starts[mark.line] + mark.column for mark in starts[1:]] + [len(text)]
    return list(zip(offsets, offsets[1:])) if starts else []
