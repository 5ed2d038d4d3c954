"""The list-map merges every pass uses, each written once (upstream pkg/apply).

"Upsert" replaces an element with the same key in place, else appends it.
"""

from __future__ import annotations

from . import quantity


def _upsert(owner: dict, field: str, items, same) -> None:
    """Upsert `items` into the list `owner[field]`, creating it only when there is something to add."""
    if not items:
        return
    existing = owner.setdefault(field, [])
    for item in items:
        for index, current in enumerate(existing):
            if same(current, item):
                existing[index] = item
                break
        else:
            existing.append(item)


def _upsert_keyed(owner: dict, field: str, items, key: str) -> None:
    """`_upsert` of elements the same when their `key` is, the keys indexed once rather than compared with each
    element (a container's env is upserted a dozen variables at a time)."""
    if not items:
        return
    existing = owner.setdefault(field, [])
    at: dict = {}
    for index, current in enumerate(existing):
        at.setdefault(current.get(key), index)  # the first of a key is the one replaced, as in `_upsert`
    for item in items:
        value = item.get(key)
        index = at.get(value)
        if index is None:
            at[value] = len(existing)
            existing.append(item)
        else:
            existing[index] = item


def _same_port(a: dict, b: dict) -> bool:
    """Upstream after PR #3926: the same set name, or the list-map key (containerPort, protocol).

    Two unnamed ports are distinct unless that key matches; an unset protocol means TCP.
    """
    if a.get("name") is not None and a.get("name") == b.get("name"):
        return True
    return a.get("containerPort") == b.get("containerPort") and a.get("protocol", "TCP") == b.get("protocol", "TCP")


def add_env(container: dict, *variables: dict) -> None:
    _upsert_keyed(container, "env", variables, "name")


def add_ports(container: dict, *ports: dict) -> None:
    _upsert(container, "ports", ports, _same_port)


def add_mounts(container: dict, *mounts: dict) -> None:
    _upsert_keyed(container, "volumeMounts", mounts, "mountPath")


def add_volumes(pod_spec: dict, *volumes: dict) -> None:
    _upsert_keyed(pod_spec, "volumes", volumes, "name")


def value_env(name: str, value: str) -> dict:
    return {"name": name, "value": value}


def field_env(name: str, field_path: str) -> dict:
    return {"name": name, "valueFrom": {"fieldRef": {"fieldPath": field_path}}}


def api_env(variable: dict) -> dict:
    """A TrainJob env var as upstream re-encodes it (apply.EnvVar): only the fields it copies."""
    source = variable.get("valueFrom")
    if not source:
        return {"name": variable["name"], "value": variable.get("value", "")}
    out = {}
    if "fieldRef" in source:
        out["fieldRef"] = {"fieldPath": source["fieldRef"]["fieldPath"]}
    if "resourceFieldRef" in source:
        ref = source["resourceFieldRef"]
        out["resourceFieldRef"] = {
            "containerName": ref.get("containerName", ""),
            "resource": ref["resource"],
            "divisor": ref.get("divisor", "0"),
        }
    for kind in ("configMapKeyRef", "secretKeyRef"):
        if kind in source:
            ref = source[kind]
            out[kind] = {"key": ref["key"], "name": ref.get("name", "")}
            if "optional" in ref:
                out[kind]["optional"] = ref["optional"]
    return {"name": variable["name"], "valueFrom": out}


def api_envs(variables) -> list:
    return [api_env(v) for v in variables or ()]


def merge_resources(base: dict | None, override: dict) -> dict:
    """The trainer container's resources with `resourcesPerNode` over them: limits/requests merge per resource
    name, and `claims` are dropped, the runtime's and the TrainJob's alike. Upstream's
    MergeResourceRequirements (pkg/util/trainingruntime) merges claims by name, but
    pkg/runtime/core/trainingruntime.go gives it only the runtime's limits and requests and writes only the
    merged limits and requests into the JobSet's container."""
    base = base or {}
    merged = {}
    for kind in ("limits", "requests"):
        if kind in base or kind in override:
            merged[kind] = {**(base.get(kind) or {}), **(override.get(kind) or {})}
    return merged


def gpu_count(resources: dict | None) -> int:
    """Upstream GetNumGPUPerNode: the first resource whose name contains "gpu", requests before limits."""

    def first_gpu(resource_list):
        for name, value in (resource_list or {}).items():
            if "gpu" in name.lower():
                return quantity.parse(value).ceil()
        return 0

    resources = resources or {}
    return first_gpu(resources.get("requests")) or max(first_gpu(resources.get("limits")), 0)


def cpu_count(resources: dict | None) -> int:
    """Upstream getNumCPUPerNode: requests.cpu unless zero, else limits.cpu, rounded up."""
    resources = resources or {}
    request = (resources.get("requests") or {}).get("cpu")
    if request is not None and quantity.parse(request):
        return quantity.parse(request).ceil()
    limit = (resources.get("limits") or {}).get("cpu")
    return quantity.parse(limit).ceil() if limit is not None else 0
