"""Read YAML input fast (libyaml) and locate fields in it only on error.

kubectl turns YAML into JSON with go-yaml v2, so plain scalars are read as its
resolver reads them (`goyaml.py`: `y` and `on` are booleans, `12:30` and
timestamps are strings, `1e3` is a number), numbers as the JSON it sends them as
(`2.0` is 2), and duplicate keys are refused (kubectl's strict decoding does too).

A stream whose first non-blank character is `{` is JSON (`jsontext.py`), as
kubectl and the API server sniff it; like kubectl, trainc refuses such text
that is not JSON rather than reading it as YAML.
"""

from __future__ import annotations

import math
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import replace
from functools import lru_cache
from pathlib import Path as FsPath

import yaml

from . import goyaml, jsontext
from .depth import MAX_NODES
from .errors import InputError, Origin, Path

try:
    _BaseLoader = yaml.CSafeLoader
except AttributeError:  # PyYAML without libyaml: correct, only slower
    _BaseLoader = yaml.SafeLoader


_JSON_TAGS = {None} | {f"tag:yaml.org,2002:{name}" for name in ("null", "bool", "int", "float", "str", "seq", "map")}


class _JsonData:
    """YAML as the API server receives it: JSON data, i.e. trees of JSON values (a mixin of both loaders).

    Tags that make other values (`!!binary`, `!!timestamp`, `!!set`, `!!omap`,
    `!!pairs`, custom tags) are refused. Every alias becomes its own copy, as in
    the JSON kubectl sends, so defaulting one place never changes another; a
    recursive alias, or aliases expanding a document past MAX_NODES nodes (an
    alias bomb), are refused before anything is built.
    """

    aliased = True  # whether the text may hold aliases; without any, nothing can expand or recurse

    def resolve(self, kind, value, implicit):
        if kind is yaml.ScalarNode and implicit[0]:  # a plain scalar: go-yaml v2 decides what it is
            return goyaml.resolve(value)[0]
        return super().resolve(kind, value, implicit)

    def construct_go_scalar(self, node):
        """A scalar of an implicit or explicit JSON type, refused unless go-yaml v2 reads it as that type."""
        tag, value = goyaml.resolve(node.value)
        if node.tag == goyaml.FLOAT and tag == goyaml.INT:
            tag, value = goyaml.FLOAT, float(value)
        if tag != node.tag:
            raise ValueError(node.value)
        if isinstance(value, float):
            if not math.isfinite(value):
                raise yaml.constructor.ConstructorError(
                    None, None, f"{node.value} is not a JSON number (kubectl cannot send it)", node.start_mark)
            if value.is_integer() and abs(value) < 1e21:
                return int(value)  # Go's JSON writes it without a fraction, and the API server reads an integer
        return value

    def construct_document(self, node):
        if self.aliased:
            _check_expansion(node)
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
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping


def _cannot_read(node) -> yaml.constructor.ConstructorError:
    tag = node.tag.replace("tag:yaml.org,2002:", "!!")
    value = node.value if isinstance(node, yaml.ScalarNode) else f"a {type(node).__name__[:-4].lower()}"
    return yaml.constructor.ConstructorError(None, None, f"cannot read {value!r} as {tag}", node.start_mark)


class _Loader(_JsonData, _BaseLoader):
    """libyaml's parser: fast."""


class _TaggedLoader(_JsonData, yaml.SafeLoader):
    """PyYAML's own parser, for text with the non-specific tag `!`: libyaml resolves `! 010` like a plain
    scalar (8), where go-yaml (kubectl) reads the text `010`, and only this parser shows the tag."""

    def compose_scalar_node(self, anchor):
        if self.peek_event().tag == "!":
            self.peek_event().tag = goyaml.STR
        return super().compose_scalar_node(anchor)


# `!` alone as a node's tag, in any position YAML allows one
_NON_SPECIFIC_TAG = re.compile(r"(?:^|[\s\[{,:?-])!(?=[\s,\]}]|$)", re.M)


def _loader_for(text: str):
    return _TaggedLoader if _NON_SPECIFIC_TAG.search(text) else _Loader


for _class in (_Loader, _TaggedLoader):
    _class.yaml_constructors = {tag: make for tag, make in _class.yaml_constructors.items() if tag in _JSON_TAGS}
    _class.add_constructor("tag:yaml.org,2002:map", yaml.SafeLoader.construct_yaml_map)
    for _tag in (goyaml.NULL, goyaml.BOOL, goyaml.INT, goyaml.FLOAT):
        _class.add_constructor(_tag, _JsonData.construct_go_scalar)
    _class.add_constructor(goyaml.MERGE, lambda loader, node: node.value)  # `<<` anywhere but a key is text


def _check_expansion(root) -> None:
    """Refuse a node holding an alias to itself or an ancestor, and documents whose aliases
    expand them past MAX_NODES nodes (reported at the smallest node that does).

    Iterative and memoized on the node graph, so neither depth nor a bomb costs more than
    one visit per distinct collection node (a scalar counts one and holds nothing).
    """
    sizes: dict[int, int] = {}
    ancestors: set[int] = set()
    stack: list = [(root, root.start_mark, None)]
    while stack:
        node, mark, children = stack.pop()
        if children is not None:  # every child is measured
            ancestors.discard(id(node))
            size = 1 + sum(sizes.get(id(child), 1) for child in children)
            if size > MAX_NODES:
                raise yaml.constructor.ConstructorError(
                    None, None, f"aliases expand this node to more than {MAX_NODES} nodes (an alias bomb?)",
                    node.start_mark)
            sizes[id(node)] = size
        elif id(node) in ancestors:
            raise yaml.constructor.ConstructorError(None, None, "recursive alias: a node cannot contain itself", mark)
        elif id(node) not in sizes and not isinstance(node, yaml.ScalarNode):
            if isinstance(node, yaml.MappingNode):
                pairs = [(child, key.start_mark) for key, value in node.value for child in (key, value)]
            else:
                pairs = [(child, node.start_mark) for child in node.value]
            ancestors.add(id(node))
            stack.append((node, mark, [child for child, _ in pairs]))
            stack.extend((child, at, None) for child, at in pairs if not isinstance(child, yaml.ScalarNode))


_LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")  # YAML's line breaks, as libyaml counts lines


def _reader_error(origin: Origin, exc: yaml.reader.ReaderError) -> InputError:
    """A character YAML forbids: the error has an offset only (libyaml's counts UTF-8 bytes)."""
    text, offset = origin.text or "", exc.position
    if _loader_for(text) is _Loader and _BaseLoader is not yaml.SafeLoader:
        offset = len(text.encode("utf-8")[:offset].decode("utf-8", "ignore"))
    message = f"invalid YAML: unacceptable character #x{exc.character:04x}: {exc.reason}"
    return InputError(origin, (), message, mark=_line_column(text, offset))


def _line_column(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of a character offset, counting lines as YAML does."""
    breaks = list(_LINE_BREAK.finditer(text, 0, offset))
    return len(breaks) + 1, offset - (breaks[-1].end() if breaks else 0) + 1


def _mark_error(origin: Origin, exc: yaml.YAMLError) -> InputError:
    if isinstance(exc, yaml.reader.ReaderError):
        return _reader_error(origin, exc)
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    message = f"invalid YAML: {getattr(exc, 'problem', None) or exc}"
    context, context_mark = getattr(exc, "context", None), getattr(exc, "context_mark", None)
    if context and context_mark is not None and context_mark is not mark:
        message += f" ({context} at line {context_mark.line + 1}, column {context_mark.column + 1})"
    where = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    return InputError(origin, (), message, mark=where)


def _documents(text: str) -> Iterator[object]:
    """yaml.load_all, skipping the alias checks for text with no alias indicator (`*`) at all."""
    loader = _loader_for(text)(text)
    loader.aliased = "*" in text
    try:
        while loader.check_data():
            yield loader.get_data()
    finally:
        loader.dispose()


def load_text(text: str, file: str) -> Iterator[tuple[Origin, object]]:
    """Yield (origin, document) for each non-empty document of a YAML stream or JSON stream."""
    if jsontext.is_json(text):
        try:
            decoded = jsontext.values(text)
        except jsontext.JsonError as exc:
            message, offset = exc.args
            raise InputError(Origin(file, text=text), (), f"invalid JSON: {message}",
                             mark=jsontext.line_column(text, offset)) from None
        for index, data in enumerate(decoded):
            if data is not None:
                yield Origin(file, index, text), data
        return
    try:
        for index, data in enumerate(_documents(text)):
            if data is not None:
                yield Origin(file, index, text), data
    except yaml.YAMLError as exc:
        raise _mark_error(Origin(file, text=text), exc) from None


def items(origin: Origin, document) -> Iterator[tuple[Origin, object]]:
    """The objects of a document: a `List` (e.g. `kubectl get -o yaml`) gives its items, as kubectl apply does."""
    if isinstance(document, dict) and document.get("kind") == "List" and isinstance(document.get("items"), list):
        for index, item in enumerate(document["items"]):
            yield replace(origin, base=origin.base + ("items", index)), item
    else:
        yield origin, document


def iter_files(paths: list[str]) -> list[str]:
    """Expand directories recursively into their *.yaml/*.yml/*.json files (kubectl's -f set), sorted."""
    files = []
    for path in paths:
        if path != "-" and os.path.isdir(path):
            found = [str(p) for p in FsPath(path).rglob("*") if p.suffix in (".yaml", ".yml", ".json") and p.is_file()]
            files.extend(sorted(found))
        else:
            files.append(path)
    return files


def read(path: str) -> str:
    """The text of a file, or of stdin for `-`."""
    try:
        if path == "-":
            return sys.stdin.buffer.read().decode("utf-8")
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except UnicodeDecodeError:
        raise InputError(Origin(path), (), "not UTF-8 text") from None
    except OSError as exc:
        raise InputError(Origin(path), (), f"cannot read: {exc.strerror}") from None


@lru_cache(maxsize=8)  # every error in a file locates itself in the same text
def _composed(text: str) -> list:
    return list(yaml.compose_all(text, Loader=_loader_for(text)))


def _key_of(node) -> str | None:
    """A mapping key as the loader makes it a JSON key (`0x10` is "16", `y` is "true")."""
    if not isinstance(node, yaml.ScalarNode):
        return None
    if node.tag == goyaml.STR:
        return node.value
    tag, value = goyaml.resolve(node.value)
    if node.tag == goyaml.FLOAT and tag in (goyaml.INT, goyaml.FLOAT):
        return goyaml.key_text(float(value))
    return value if isinstance(value, str) else goyaml.key_text(value)


def locate(origin: Origin, path: Path, *, key: bool = False) -> tuple[int, int]:
    """1-based (line, column) of the deepest node of `path` that exists in the document."""
    if origin.text is None:
        return (1, 1)
    path = origin.base + tuple(path)
    if jsontext.is_json(origin.text):
        return jsontext.locate(origin.text, origin.index, path, key)
    try:
        node = _composed(origin.text)[origin.index]
    except (yaml.YAMLError, IndexError):
        return (1, 1)
    found = node.start_mark
    for depth, part in enumerate(path, 1):
        child = key_mark = None
        if isinstance(node, yaml.MappingNode) and isinstance(part, str):
            for key_node, value_node in node.value:
                if _key_of(key_node) == part:
                    child, key_mark = value_node, key_node.start_mark
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            child = node.value[part]
        if child is None:
            break
        node, found = child, key_mark if (key and depth == len(path) and key_mark) else child.start_mark
    return (found.line + 1, found.column + 1)
