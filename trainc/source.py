"""Read YAML input fast (libyaml) and locate fields in it only on error.

Kubernetes decodes YAML as YAML 1.1 into JSON, so the loader keeps YAML 1.1
scalars (`yes` is a boolean, as in kubectl) but resolves timestamps to plain
strings (a `time:` field stays a string, as the API server sees it) and rejects
duplicate keys (kubectl's strict decoding does too).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path as FsPath

import yaml

from .errors import InputError, Origin, Path

try:
    _BaseLoader = yaml.CSafeLoader
except AttributeError:  # PyYAML without libyaml: correct, only slower
    _BaseLoader = yaml.SafeLoader


class _Loader(_BaseLoader):
    yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag not in ("tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:value")]
        for first, resolvers in _BaseLoader.yaml_implicit_resolvers.items()
    }

    def construct_mapping(self, node, deep=False):
        self.flatten_mapping(node)
        mapping = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=deep)
            if not isinstance(key, str):
                raise yaml.constructor.ConstructorError(None, None, "mapping keys must be strings", key_node.start_mark)
            if key in mapping:
                raise yaml.constructor.ConstructorError(None, None, f'duplicate key "{key}"', key_node.start_mark)
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping


_Loader.add_constructor("tag:yaml.org,2002:map", _BaseLoader.construct_yaml_map)


def _mark_error(origin: Origin, exc: yaml.YAMLError) -> InputError:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    message = f"invalid YAML: {getattr(exc, 'problem', None) or exc}"
    context, context_mark = getattr(exc, "context", None), getattr(exc, "context_mark", None)
    if context and context_mark is not None and context_mark is not mark:
        message += f" ({context} at line {context_mark.line + 1}, column {context_mark.column + 1})"
    where = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    return InputError(origin, (), message, mark=where)


def load_text(text: str, file: str) -> Iterator[tuple[Origin, object]]:
    """Yield (origin, document) for each non-empty document of a YAML stream."""
    try:
        for index, data in enumerate(yaml.load_all(text, Loader=_Loader)):
            if data is not None:
                yield Origin(file, index, text), data
    except yaml.YAMLError as exc:
        raise _mark_error(Origin(file), exc) from None


def iter_files(paths: list[str]) -> list[str]:
    """Expand directories recursively into their *.yaml/*.yml files, sorted."""
    files = []
    for path in paths:
        if path != "-" and os.path.isdir(path):
            found = [str(p) for p in FsPath(path).rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file()]
            files.extend(sorted(found))
        else:
            files.append(path)
    return files


def read(path: str) -> str:
    """The text of a file, or of stdin for `-`."""
    import sys

    if path == "-":
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except UnicodeDecodeError:
        raise InputError(Origin(path), (), "not UTF-8 text") from None
    except OSError as exc:
        raise InputError(Origin(path), (), f"cannot read: {exc.strerror}") from None


def locate(origin: Origin, path: Path, *, key: bool = False) -> tuple[int, int]:
    """1-based (line, column) of the deepest node of `path` that exists in the document."""
    if origin.text is None:
        return (1, 1)
    try:
        node = list(yaml.compose_all(origin.text, Loader=_Loader))[origin.index]
    except (yaml.YAMLError, IndexError):
        return (1, 1)
    found = node.start_mark
    for depth, part in enumerate(path, 1):
        child = key_mark = None
        if isinstance(node, yaml.MappingNode) and isinstance(part, str):
            for key_node, value_node in node.value:
                if key_node.value == part:
                    child, key_mark = value_node, key_node.start_mark
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            child = node.value[part]
        if child is None:
            break
        node, found = child, key_mark if (key and depth == len(path) and key_mark) else child.start_mark
    return (found.line + 1, found.column + 1)
