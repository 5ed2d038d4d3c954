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

from . import goyaml, jsontext, yamlshape
from .depth import room_for_depth
from .errors import InputError, Origin, Path

_JSON_TAGS = {None} | {f"tag:yaml.org,2002:{name}" for name in ("null", "bool", "int", "float", "str", "seq", "map")}


class _JsonData:
    """YAML as the API server receives it: JSON data, i.e. trees of JSON values (a mixin of both loaders).

    Tags that make other values (`!!binary`, `!!timestamp`, `!!set`, `!!omap`,
    `!!pairs`, custom tags) are refused. Every alias becomes its own copy, as in
    the JSON kubectl sends, so defaulting one place never changes another; a
    recursive alias, aliases expanding a document past MAX_NODES nodes (an alias
    bomb) and nesting past MAX_DEPTH levels are refused before anything is built
    (`yamlshape.py`).
    """

    text = ""
    aliased = deep = True  # whether the text may hold aliases, or nest MAX_DEPTH levels: if not, no shape to check
    documents = 0  # composed so far

    def recheck(self, documents: int) -> None:
        """The nesting rule applied by PyYAML's scanner and composer to the first `documents`
        documents: here nothing, for PyYAML's own parser applies it as it composes."""

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
        self.documents += 1
        if self.aliased or self.deep:
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
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping


def _cannot_read(node) -> yaml.constructor.ConstructorError:
    tag = node.tag.replace("tag:yaml.org,2002:", "!!")
    value = node.value if isinstance(node, yaml.ScalarNode) else f"a {type(node).__name__[:-4].lower()}"
    return yaml.constructor.ConstructorError(None, None, f"cannot read {value!r} as {tag}", node.start_mark)


class _PyLoader(yamlshape.Nesting, _JsonData, yaml.SafeLoader):
    """PyYAML's own parser: where PyYAML has no libyaml, for text with the non-specific tag `!` (libyaml
    resolves `! 010` like a plain scalar, 8, where go-yaml, kubectl, reads the text `010`, and only this
    parser shows the tag), and to apply the nesting rule (`yamlshape.py`)."""

    def compose_scalar_node(self, anchor):
        if self.peek_event().tag == "!":
            self.peek_event().tag = goyaml.STR
        return super().compose_scalar_node(anchor)


if hasattr(yaml, "CSafeLoader"):
    class _Loader(_JsonData, yaml.CSafeLoader):
        """libyaml's parser: fast."""

        def recheck(self, documents: int) -> None:
            loader = _PyLoader(self.text)
            try:
                for _ in range(documents):
                    if loader.check_node():
                        loader.get_node()
            finally:
                loader.dispose()
else:  # PyYAML without libyaml: correct, only slower
    _Loader = _PyLoader


# `!` alone as a node's tag, in any position YAML allows one
_NON_SPECIFIC_TAG = re.compile(r"(?:^|[\s\[{,:?-])!(?=[\s,\]}]|$)", re.M)


def _loader_for(text: str):
    return _PyLoader if _NON_SPECIFIC_TAG.search(text) else _Loader


for _class in dict.fromkeys((_Loader, _PyLoader)):
    _class.yaml_constructors = {tag: make for tag, make in _class.yaml_constructors.items() if tag in _JSON_TAGS}
    _class.add_constructor("tag:yaml.org,2002:map", yaml.SafeLoader.construct_yaml_map)
    for _tag in (goyaml.NULL, goyaml.BOOL, goyaml.INT, goyaml.FLOAT):
        _class.add_constructor(_tag, _JsonData.construct_go_scalar)
    _class.add_constructor(goyaml.MERGE, lambda loader, node: node.value)  # `<<` anywhere but a key is text


_LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")  # YAML's line breaks, as libyaml counts lines


def _reader_error(origin: Origin, exc: yaml.reader.ReaderError) -> InputError:
    """A character YAML forbids: the error has an offset only (libyaml's counts UTF-8 bytes)."""
    text, offset = origin.text or "", exc.position
    if _loader_for(text) is not _PyLoader:
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
    where = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    if context and context_mark is not None:
        at = (context_mark.line + 1, context_mark.column + 1)
        message += f" ({context})" if at == where else f" ({context} at line {at[0]}, column {at[1]})"
    return InputError(origin, (), message, mark=where)


def _documents(text: str) -> list:
    """yaml.load_all, skipping the shape checks for text that can hold no alias (`*`) and nest too little."""
    loader = _loader_for(text)(text)
    loader.text, loader.aliased, loader.deep = text, "*" in text, yamlshape.may_nest(text)
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


def may_hold_trainer(path: str) -> bool:
    """Whether a file may hold a Trainer object: its text names the API group (or it cannot be read, which
    `read` then reports); directories and stdin always may."""
    if path == "-" or os.path.isdir(path):
        return True
    try:
        with open(path, "rb") as handle:
            return b"trainer.kubeflow.org" in handle.read()
    except OSError:
        return True


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
    with room_for_depth(yamlshape.FRAMES_PER_LEVEL):
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


def locate(origin: Origin, path: Path, *, key: bool = False, exact: bool = False) -> tuple[int, int] | None:
    """1-based (line, column) of the deepest node of `path` that exists in the document;
    with `exact`, None unless the whole path is written in the text (`trainc explain` tells defaults apart)."""
    if origin.text is None:
        return None if exact else (1, 1)
    path = origin.base + tuple(path)
    if jsontext.is_json(origin.text):
        return jsontext.locate(origin.text, origin.index, path, key, exact)
    try:
        node = _composed(origin.text)[origin.index]
    except (yaml.YAMLError, IndexError):
        return None if exact else (1, 1)
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
            if exact:
                return None
            break
        node, found = child, key_mark if (key and depth == len(path) and key_mark) else child.start_mark
    return (found.line + 1, found.column + 1)


@lru_cache(maxsize=8)  # every passed-through document of a file cuts the same text
def document_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of each document of a YAML stream, as `load_text` numbers them: a document runs
    from its `---` (or its directives) to the next document's, so comments after a `---` go with the
    document they precede, and the text before the first document's content with the first document."""
    line_starts = [0] + [match.end() for match in _LINE_BREAK.finditer(text)]
    with room_for_depth(yamlshape.FRAMES_PER_LEVEL):
        starts = [event.start_mark for event in yaml.parse(text, Loader=_loader_for(text))
                  if isinstance(event, yaml.DocumentStartEvent)]
    offsets = [0] + [line_starts[mark.line] + mark.column for mark in starts[1:]] + [len(text)]
    return list(zip(offsets, offsets[1:])) if starts else []
