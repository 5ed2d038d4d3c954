"""What the kubelet does to a container before it starts: env, `$(VAR)` expansion, volumes.

Env is built as the kubelet builds it: `envFrom` sources in order, then `env`
entries in order, a `value` expanded against the variables defined before it,
a `valueFrom` resolved from the pod (fieldRef, resourceFieldRef) or from a
ConfigMap/Secret among the objects; `command` and `args` are expanded against the
result. Expansion is Kubernetes' (third_party/forked/golang/expansion): `$(NAME)`
of a defined variable is replaced, of an undefined one kept, `$$` is `$`.
Problems are collected, so every one is reported before any pod starts.
"""

from __future__ import annotations

import base64
import math
import os
import re

from . import quantity

_FIELD_MAP = re.compile(r"metadata\.(labels|annotations)\['(.*)'\]")
DEFAULT_MODE = 0o644
HIDDEN = "(hidden)"  # a secret value where it is printed (--dry-run), as `trainc diff` shows one
_EXPANDED = re.compile(r"\$(?=[$(])")


def expand(text: str, variables: dict) -> str:
    """Kubernetes' `$(VAR)` expansion of `text`."""
    out, cursor = [], 0
    while True:
        found = text.find("$", cursor)
        if found < 0 or found + 1 >= len(text):
            out.append(text[cursor:])
            return "".join(out)
        out.append(text[cursor:found])
        after = text[found + 1]
        if after == "$":
            out.append("$")
            cursor = found + 2
        elif after == "(":
            closing = text.find(")", found + 2)
            if closing < 0:
                out.append("$(")
                cursor = found + 2
            else:
                name = text[found + 2 : closing]
                out.append(variables[name] if name in variables else f"$({name})")
                cursor = closing + 1
        else:
            out.append("$" + after)
            cursor = found + 2


def escape(text: str) -> str:
    """`text` written so that `expand` gives it back whatever variables exist: `$` before `$` or `(` doubled."""
    return _EXPANDED.sub("$$", text)


class Store:
    """The ConfigMaps and Secrets a pod can read, by (kind, namespace, name), as text or bytes per key."""

    def __init__(self, objects, namespace: str):
        self.namespace = namespace
        self.found: dict[tuple, dict] = {}
        self.problems: list[str] = []  # objects the API server would refuse: not base64, not a mapping
        for obj in objects:
            kind = obj.get("kind")
            if kind in ("ConfigMap", "Secret") and isinstance(obj.get("metadata"), dict):
                meta = obj["metadata"]
                if not isinstance(meta.get("name"), str) or not isinstance(meta.get("namespace", namespace), str):
                    continue  # no pod can name it: a reference names a ConfigMap or Secret by a string
                try:
                    self.found[(kind, meta.get("namespace", namespace), meta.get("name"))] = _data(obj)
                except ValueError as exc:
                    self.problems.append(f"{kind} {meta.get('name')!r}: unreadable data ({exc})")

    def get(self, kind: str, name: str) -> dict | None:
        return self.found.get((kind, self.namespace, name))


def _data(obj: dict) -> dict[str, bytes]:
    """{key: bytes}; raises ValueError naming the field and key, never the value (nor its length: Python's
    base64 errors count its characters)."""
    data = {}
    secret = obj["kind"] == "Secret"
    fields = (("data", True), ("stringData", False)) if secret else (("data", False), ("binaryData", True))
    for field, encoded in fields:
        values = obj.get(field) or {}
        if not isinstance(values, dict):
            raise ValueError(f"{field}: must be a mapping")
        for key, value in values.items():
            if not encoded:
                data[key] = str(value).encode()
                continue
            try:
                data[key] = base64.b64decode(value, validate=True)
            except (TypeError, ValueError):  # binascii.Error is a ValueError
                raise ValueError(f"{field}[{key}]: must be base64 text") from None
    return data


class Pod:
    """The pod as the API server would hold it: what fieldRefs read."""

    def __init__(self, name: str, namespace: str, labels: dict, annotations: dict, spec: dict):
        self.name, self.namespace, self.labels, self.annotations, self.spec = name, namespace, labels, annotations, spec

    def field(self, path: str) -> str | None:
        fields = {
            "metadata.name": self.name,
            "metadata.namespace": self.namespace,
            "metadata.uid": f"local-{self.name}",
            "spec.nodeName": os.uname().nodename,
            "spec.serviceAccountName": self.spec.get("serviceAccountName", "default"),
            "status.hostIP": "127.0.0.1",
            "status.hostIPs": "127.0.0.1",
            "status.podIP": "127.0.0.1",
            "status.podIPs": "127.0.0.1",
        }
        if path in fields:
            return fields[path]
        mapped = _FIELD_MAP.fullmatch(path)
        if mapped is not None:
            return (self.labels if mapped[1] == "labels" else self.annotations).get(mapped[2], "")
        return None


def env(
    container: dict, pod: Pod, store: Store, fallback: dict, problems: list, where: str, shown: dict | None = None
) -> dict:
    """The container's env as the kubelet resolves it; `fallback` (--env-file) answers missing sources.
    `shown` receives the env as it may be printed: a value from a Secret or from `fallback`, and what is
    expanded from one, is HIDDEN there."""
    resolved: dict[str, str] = {}
    shown = {} if shown is None else shown
    for source in container.get("envFrom") or ():
        kind, ref = (
            ("ConfigMap", source["configMapRef"]) if "configMapRef" in source else ("Secret", source.get("secretRef"))
        )
        if ref is None:
            continue
        data = store.get(kind, ref.get("name"))
        if data is None:
            if not ref.get("optional") and not fallback:
                problems.append(
                    f"{where}: envFrom: {kind} {ref.get('name')!r} is not among the rendered objects or "
                    "the inputs (pass it as an input, or its variables with --env-file)"
                )
            continue
        prefix = source.get("prefix", "")
        values = {prefix + key: value.decode(errors="replace") for key, value in data.items()}
        resolved.update(values)
        shown.update(dict.fromkeys(values, HIDDEN) if kind == "Secret" else values)
    for variable in container.get("env") or ():
        name = variable["name"]
        if "valueFrom" in variable:
            value, secret = _value_from(name, variable["valueFrom"], container, pod, store, fallback, problems, where)
            if value is not None:
                resolved[name], shown[name] = value, HIDDEN if secret else value
        else:
            resolved[name] = expand(variable.get("value", ""), resolved)
            shown[name] = expand(variable.get("value", ""), shown)
    return resolved


def _value_from(name, source, container, pod, store, fallback, problems, where) -> tuple[str | None, bool]:
    """The variable's value, and whether it is secret (from a Secret or --env-file)."""
    if "fieldRef" in source:
        value = pod.field(source["fieldRef"]["fieldPath"])
        if value is None:
            problems.append(f"{where}: env {name}: fieldRef {source['fieldRef']['fieldPath']!r} is not supported here")
        return value, False
    if "resourceFieldRef" in source:
        return _resource(source["resourceFieldRef"], container), False
    kind, ref = (
        ("ConfigMap", source["configMapKeyRef"])
        if "configMapKeyRef" in source
        else ("Secret", source.get("secretKeyRef"))
    )
    if ref is None:
        return None, False
    data = store.get(kind, ref.get("name"))
    if data is not None and ref.get("key") in data:
        return data[ref["key"]].decode(errors="replace"), kind == "Secret"
    if name in fallback:
        return fallback[name], True
    if not ref.get("optional"):
        what = (
            f"{kind} {ref.get('name')!r}" if data is None else f"key {ref.get('key')!r} of {kind} {ref.get('name')!r}"
        )
        problems.append(
            f"{where}: env {name}: {what} is not among the rendered objects or the inputs "
            f"(pass it as an input, or {name} with --env-file)"
        )
    return None, False


def _resource(ref: dict, container: dict) -> str:
    """requests/limits as the kubelet reports them (fieldpath.ExtractContainerResourceValue); a limit not set is
    this machine's capacity."""
    kind, _, resource = ref["resource"].partition(".")
    resources = container.get("resources") or {}
    value = (resources.get(kind) or {}).get(resource)
    if value is None and kind == "requests":
        value = (resources.get("limits") or {}).get(resource)
    if value is None:
        capacity = {"cpu": os.cpu_count() or 1, "memory": os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")}
        value = capacity.get(resource, 0) if kind == "limits" else 0
    divisor = quantity.parse(ref.get("divisor", "1")).exact()
    # a zero divisor is the unset one, which the kubelet reads as 1 (the API server lets it through)
    return str(math.ceil(quantity.parse(value).exact() / (divisor or 1)))


def volume_files(volume: dict, store: Store) -> dict[str, tuple[bytes, int]] | None:
    """{relative path: (content, mode)} of a ConfigMap or Secret volume; None when its object is missing."""
    kind, ref = ("ConfigMap", volume["configMap"]) if "configMap" in volume else ("Secret", volume["secret"])
    name = ref.get("name") if kind == "ConfigMap" else ref.get("secretName")
    data = store.get(kind, name)
    if data is None:
        return {} if ref.get("optional") else None
    mode = ref.get("defaultMode", DEFAULT_MODE)
    items = ref.get("items") or [{"key": key, "path": key} for key in sorted(data)]
    return {item["path"]: (data.get(item["key"], b""), item.get("mode", mode)) for item in items if item["key"] in data}


def volume_source(volume: dict) -> str:
    """The volume's kind, e.g. `persistentVolumeClaim`."""
    return next((key for key in volume if key != "name"), "emptyDir")


__all__ = ["HIDDEN", "Pod", "Store", "env", "expand", "volume_files", "volume_source"]
