"""The file paths a pod spec names, as the API server's pod validation checks them.

Kubernetes' pkg/apis/core/validation refuses, in every pod template a Job is
created from: a ConfigMap, Secret, downwardAPI or projected volume item whose
`path` is absolute, has a `..` element or starts with `..` (validateKeyToPath,
validateDownwardAPIVolumeFile, validateProjectionSources through
ValidateLocalNonReservedPath: `..data` is the kubelet's own), an empty item key
or path, a file mode outside 0-0777, and a volume mount `subPath` or
`subPathExpr` that is absolute or has a `..` element (validateLocalDescendingPath).
The CRDs check none of it, so without this a runtime or runtimePatch with such
a path compiles and the cluster refuses every pod of its JobSet; `trainc run`
would write outside its directory. Messages are the API server's.
"""

from __future__ import annotations

import json

from .openapi import Violation

_MODE = "must be a number between 0 and 0777 (octal), both inclusive"


def violations(spec, at: tuple) -> list[Violation]:
    """What the API server refuses in the pod spec `spec`, found at `at` in its document."""
    if not isinstance(spec, dict):
        return []
    found: list[Violation] = []
    for index, volume in _items(spec, "volumes"):
        where = at + ("volumes", index)
        for kind in ("configMap", "secret"):
            source = volume.get(kind)
            if isinstance(source, dict):
                found += _mode(source, "defaultMode", where + (kind,))
                for number, item in _items(source, "items"):
                    found += _key_to_path(item, where + (kind, "items", number))
        downward = volume.get("downwardAPI")
        if isinstance(downward, dict):
            found += _mode(downward, "defaultMode", where + ("downwardAPI",))
            for number, item in _items(downward, "items"):
                found += _file(item, where + ("downwardAPI", "items", number))
        projected = volume.get("projected")
        if isinstance(projected, dict):
            found += _mode(projected, "defaultMode", where + ("projected",))
            for number, source in _items(projected, "sources"):
                found += _projection(source, where + ("projected", "sources", number))
    for group in ("initContainers", "containers", "ephemeralContainers"):
        for index, container in _items(spec, group):
            for number, mount in _items(container, "volumeMounts"):
                for field in ("subPath", "subPathExpr"):
                    value = mount.get(field)
                    if isinstance(value, str) and value:
                        found += _descending(value, at + (group, index, "volumeMounts", number, field))
    return found


def _items(node: dict, key: str):
    """(index, item) of the mappings in the list at `key` (what is not one, the schema reports)."""
    value = node.get(key)
    return (
        [(index, item) for index, item in enumerate(value) if isinstance(item, dict)] if isinstance(value, list) else []
    )


def _projection(source: dict, at: tuple) -> list[Violation]:
    found = []
    for kind in ("configMap", "secret"):
        if isinstance(source.get(kind), dict):
            for number, item in _items(source[kind], "items"):
                found += _key_to_path(item, at + (kind, "items", number))
    if isinstance(source.get("downwardAPI"), dict):
        for number, item in _items(source["downwardAPI"], "items"):
            found += _file(item, at + ("downwardAPI", "items", number))
    for kind in ("serviceAccountToken", "clusterTrustBundle"):
        if isinstance(source.get(kind), dict):
            found += _path(source[kind], at + (kind,))
    return found


def _key_to_path(item: dict, at: tuple) -> list[Violation]:
    found = [Violation(at + ("key",), "Required value")] if item.get("key") == "" else []
    return found + _path(item, at) + _mode(item, "mode", at)


def _file(item: dict, at: tuple) -> list[Violation]:
    return _path(item, at) + _mode(item, "mode", at)


def _path(item: dict, at: tuple) -> list[Violation]:
    value = item.get("path")
    if not isinstance(value, str):
        return []
    if not value:
        return [Violation(at + ("path",), "Required value")]
    found = _descending(value, at + ("path",))
    if value.startswith("..") and not value.startswith("../"):
        found.append(Violation(at + ("path",), _invalid(value, "must not start with '..'")))
    return found


def _descending(value: str, at: tuple) -> list[Violation]:
    found = [Violation(at, _invalid(value, "must be a relative path"))] if value.startswith("/") else []
    if ".." in value.split("/"):
        found.append(Violation(at, _invalid(value, "must not contain '..'")))
    return found


def _mode(node: dict, key: str, at: tuple) -> list[Violation]:
    mode = node.get(key)
    if isinstance(mode, int) and not isinstance(mode, bool) and not 0 <= mode <= 0o777:
        return [Violation(at + (key,), f"Invalid value: {mode}: {_MODE}")]
    return []


def _invalid(value: str, message: str) -> str:
    return f"Invalid value: {json.dumps(value, ensure_ascii=False)}: {message}"
