"""One namespace for the whole output: passed-through namespaced objects that set none get trainc's namespace.

trainc renders a TrainJob that sets no namespace into `-n` (or the Argo CD destination, or the project
config's). The ConfigMaps, PVCs and LocalQueues beside it, passed through, would otherwise land wherever the
applier puts them (kubectl's current namespace), away from the JobSet that mounts or names them. So the same
namespace is given to them, as `kubectl apply -n` and Argo CD's destination do to namespaced objects that set
none, and cluster-scoped objects are left alone (which kinds are: k8s/identity.py, the one table).

The namespace is inserted into the document's own text, after its `metadata:` key's first line, so comments
and quoting stay as written.
"""

from __future__ import annotations

import re

from ..formats import blockyaml
from .identity import cluster_scoped

_PLAIN = re.compile(r"[a-z][a-z0-9-]*")
_WORDS = frozenset({"null", "true", "false", "yes", "no", "on", "off", "y", "n"})  # YAML 1.1 and 1.2 non-strings


def takes_namespace(data: dict) -> bool:
    """Whether the object is namespaced (or of a kind trainc does not know) and sets no namespace."""
    group = data["apiVersion"].rpartition("/")[0]
    return not cluster_scoped(group, data["kind"]) and not data["metadata"].get("namespace")


def given(data: dict, namespace: str) -> dict:
    """The object with `metadata.namespace` set, the rest shared."""
    return {**data, "metadata": {**data["metadata"], "namespace": namespace}}


def scalar(namespace: str) -> str:
    """The namespace as a YAML scalar: plain unless a YAML 1.1 or 1.2 reader would take it for another type."""
    return namespace if _PLAIN.fullmatch(namespace) and namespace not in _WORDS else f'"{namespace}"'


def insert(text: str, namespace: str) -> str | None:
    """The document `text` with `namespace: NAMESPACE` as the first key of its metadata, or None when its
    metadata is not a mapping written so that a line (block style) or an entry (flow style) can be added,
    or already holds a `namespace` key (an empty or null one); the caller then writes the object anew."""
    found = _lined(text)
    place = _composed(text) if found is blockyaml.UNSURE else found
    if place is None:
        return None
    flow, start, first = place
    lines = text.splitlines(keepends=True)
    value = scalar(namespace)
    if flow:
        line = start[0]
        column = lines[line].find("{", start[1])
        if column < 0:
            return None
        lines[line] = f"{lines[line][: column + 1]}namespace: {value}, {lines[line][column + 1 :]}"
        return "".join(lines)
    if lines[first[0]][: first[1]].strip():  # the first key shares its line with something else
        return None
    ending = lines[first[0]][len(lines[first[0]].rstrip("\r\n")) :] or "\n"
    lines.insert(first[0], " " * first[1] + f"namespace: {value}" + ending)
    return "".join(lines)


def _lined(text: str):
    """(whether metadata is a flow mapping, its place, its first key's place), 0-based, of the document `text`, read
    off its lines; None when no line can be added (metadata no mapping, empty, or with a namespace);
    blockyaml.UNSURE for text of another shape."""
    names = blockyaml.keys(text, 0, ("metadata",))
    if names is blockyaml.UNSURE:
        return blockyaml.UNSURE
    if not names or "namespace" in names:
        return None
    start = blockyaml.locate(text, 0, ("metadata",), exact=True)
    first = blockyaml.locate(text, 0, ("metadata", names[0]), key=True, exact=True)
    if first is blockyaml.UNSURE:
        return blockyaml.UNSURE
    return text.split("\n", start[0] + 1)[start[0]][start[1]] == "{", start, first


def _composed(text: str):
    """`_lined` from libyaml's nodes, for any text."""
    import yaml

    try:
        root = yaml.compose(text, Loader=yaml.CSafeLoader)
    except yaml.YAMLError:  # one document was read from it already; a surprise here just means "write it anew"
        return None
    metadata = _value(root, "metadata")
    if not isinstance(metadata, yaml.MappingNode) or not metadata.value or _value(metadata, "namespace") is not None:
        return None
    first = metadata.value[0][0].start_mark
    start = metadata.start_mark
    return metadata.flow_style, (start.line, start.column), (first.line, first.column)


def _value(mapping, key: str):
    import yaml

    for key_node, value_node in mapping.value if isinstance(mapping, yaml.MappingNode) else ():
        if isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
            return value_node
    return None
