"""Kubernetes strategic merge patch, as upstream applies TrainJob ``runtimePatches``.

kubeflow/trainer (``pkg/runtime/core/trainingruntime.go: mergeRuntimePatches``) marshals the
current JobSet spec and each patch's ``template.spec`` to JSON and calls
``strategicpatch.StrategicMergePatch(source, patch, jobsetv1alpha2.JobSetSpec{})``
(k8s.io/apimachinery v0.36.3, sigs.k8s.io/jobset v0.12.0). This module ports that JSON-level
algorithm (``mergeMap`` / ``mergeSlice`` / ``normalizeElementOrder`` in
``pkg/util/strategicpatch/patch.go``) to plain dicts and lists, with the Go struct tags written
out by hand as a schema.

A schema describes one Go struct: a dict from JSON field name to either a nested schema (a
struct field whose subtree holds tagged lists) or a :class:`MergeList` (a ``patchStrategy:"merge"``
list). Fields the schema does not name behave like untagged Go fields: objects merge recursively,
lists are replaced, scalars are replaced. Upstream instead errors when both documents hold an
object or list under a key that is no Go field; that cannot happen there because both documents
are marshalled from typed structs, so the untagged-field behaviour is the fallback for input that
was not decoded through Go types.
"""

from __future__ import annotations

import copy
import json

from ..errors import Record


class MergeList(Record):
    """A list tagged ``patchStrategy:"merge"``.

    ``key`` is the ``patchMergeKey`` (``None`` for a list of scalars, merged as a set); ``item``
    is the schema of one element.
    """

    key: str | None = None
    item: dict = {}


# metav1.ObjectMeta (apimachinery pkg/apis/meta/v1/types.go).
OBJECT_META: dict = {"finalizers": MergeList(), "ownerReferences": MergeList("uid")}

# core/v1 Container (k8s.io/api core/v1/types.go); EphemeralContainerCommon has the same tags.
CONTAINER: dict = {
    "ports": MergeList("containerPort"),
    "env": MergeList("name"),
    "volumeMounts": MergeList("mountPath"),
    "volumeDevices": MergeList("devicePath"),
}

# core/v1 Volume: VolumeSource is inlined and untagged except for the ephemeral PVC template's
# ObjectMeta.
VOLUME: dict = {"ephemeral": {"volumeClaimTemplate": {"metadata": OBJECT_META}}}

# core/v1 PodSpec, every tagged field. "merge,retainKeys" (volumes, resourceClaims) acts as
# "merge" because retainKeys only matters with a $retainKeys directive, which is rejected here.
POD_SPEC: dict = {
    "volumes": MergeList("name", VOLUME),
    "initContainers": MergeList("name", CONTAINER),
    "containers": MergeList("name", CONTAINER),
    "ephemeralContainers": MergeList("name", CONTAINER),
    "imagePullSecrets": MergeList("name"),
    "hostAliases": MergeList("ip"),
    "topologySpreadConstraints": MergeList("topologyKey"),
    "schedulingGates": MergeList("name"),
    "resourceClaims": MergeList("name"),
}

# batch/v1 JobTemplateSpec -> JobSpec.template (core/v1 PodTemplateSpec); JobSpec has no tags.
JOB_TEMPLATE: dict = {
    "metadata": OBJECT_META,
    "spec": {"template": {"metadata": OBJECT_META, "spec": POD_SPEC}},
}

# jobset v1alpha2 JobSetSpec (api/jobset/v1alpha2/jobset_types.go): replicatedJobs and
# ReplicatedJob.dependsOn merge by name.
JOBSET_SPEC: dict = {
    "replicatedJobs": MergeList("name", {"template": JOB_TEMPLATE, "dependsOn": MergeList("name")}),
}

_DIRECTIVE_KEYS = ("$patch", "$retainKeys")
_DIRECTIVE_PREFIXES = ("$setElementOrder/", "$deleteFromPrimitiveList/")


def merge(original, patch, schema: dict = JOBSET_SPEC) -> dict:
    """Return ``original`` with the strategic merge ``patch`` applied; neither input is mutated.

    ``None`` stands for a ``null`` document (an empty object upstream). Patch directives
    (``$patch``, ``$retainKeys``, ``$setElementOrder/…``, ``$deleteFromPrimitiveList/…``) never
    occur in patches marshalled from typed structs and raise ValueError, as do inputs upstream
    rejects (non-object documents, merge-list elements lacking the merge key, mixed element types).
    """
    original = {} if original is None else original
    patch = {} if patch is None else patch
    if not isinstance(original, dict) or not isinstance(patch, dict):
        raise ValueError("strategic merge: original and patch must be JSON objects")
    _reject_directives(patch)
    return _merge_map(copy.deepcopy(original), copy.deepcopy(patch), schema)


def _reject_directives(value) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if key in _DIRECTIVE_KEYS or str(key).startswith(_DIRECTIVE_PREFIXES):
                raise ValueError(f"strategic merge: patch directive {key!r} is not supported")
            _reject_directives(item)
    elif isinstance(value, list):
        for item in value:
            _reject_directives(item)


def _json_type(value) -> str:
    """The Go type encoding/json decodes ``value`` into; upstream compares these, not values."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "float64"
    return type(value).__name__


def _discard_nulls(value):
    """discardNullValuesFromPatch: drop null object members anywhere (list elements stay)."""
    if isinstance(value, dict):
        for key in [k for k, v in value.items() if v is None]:
            del value[key]
        for item in value.values():
            _discard_nulls(item)
    elif isinstance(value, list):
        for item in value:
            _discard_nulls(item)
    return value


def _merge_map(original: dict, patch: dict, schema: dict) -> dict:
    """mergeMap with IgnoreUnmatchedNulls: null deletes, objects recurse, tagged lists merge.

    Any other patch value replaces the original one with its null object members discarded,
    except that an untagged list replacing an original list is taken verbatim, nulls included
    (mergeSliceHandler returns the patch list as is).
    """
    for key, value in patch.items():
        if value is None:
            original.pop(key, None)
            continue
        current = original.get(key)
        field = schema.get(key)
        if isinstance(current, dict) and isinstance(value, dict):
            original[key] = _merge_map(current, value, field if isinstance(field, dict) else {})
        elif isinstance(current, list) and isinstance(value, list):
            merged = isinstance(field, MergeList)
            original[key] = _merge_list(current, value, field) if merged else value
        else:
            original[key] = _discard_nulls(value)
    return original


def _merge_list(original: list, patch: list, field: MergeList) -> list:
    """mergeSlice: merge objects by key (or union scalars), then restore strategic-merge order.

    A patch element whose key matches an element of the working list merges into it (including
    one appended earlier by the same patch); otherwise it is appended verbatim. The final order
    comes from :func:`_normalize_order`, whatever the working order was.
    """
    if not original and not patch:
        return original
    key = field.key
    if (_element_type(original + patch) == "dict") != (key is not None):
        raise ValueError(f"strategic merge: list elements do not fit merge key {key!r}")
    if key is None:
        merged, seen = [], set()
        for item in original + patch:
            if _marker(item) not in seen:
                seen.add(_marker(item))
                merged.append(item)
    else:
        if any(key not in item for item in original + patch):
            raise ValueError(f"strategic merge: list element lacks merge key {key!r}")
        merged = list(original)
        where = _positions(merged, key)
        for item in patch:
            pos = where.get(_marker(item[key]))
            if pos is None:
                where[_marker(item[key])] = len(merged)
                merged.append(item)
            else:
                merged[pos] = _merge_map(merged[pos], item, field.item)
    in_patch = _positions(patch, key)
    patch_items = [m for m in merged if _marker(_ident(m, key)) in in_patch]
    server_only = [m for m in merged if _marker(_ident(m, key)) not in in_patch]
    return _normalize_order(patch_items, server_only, in_patch, _positions(original, key), key)


def _normalize_order(patch_items: list, server_only: list, in_patch: dict, in_original: dict, key: str | None) -> list:
    """normalizeElementOrder + mergeSortedSlice.

    Patch items are sorted by their position in the patch, server-only items by their position
    in the original; then the two runs are interleaved: the next server-only item is emitted
    first only when both it and the next patch item exist in the original and it comes earlier
    there. Hence a patch item that is new to the list is emitted as soon as it is reached,
    ahead of any remaining server-only items (``[A, B] + [C, A=9] -> [C, A, B]``).
    """

    def original_position(item) -> int:
        return in_original.get(_marker(_ident(item, key)), -1)

    patch_items = sorted(patch_items, key=lambda item: in_patch[_marker(_ident(item, key))])
    server_only = sorted(server_only, key=original_position)
    out: list = []
    i = j = 0
    while i < len(server_only) or j < len(patch_items):
        if j < len(patch_items) and i < len(server_only):
            li, ri = original_position(server_only[i]), original_position(patch_items[j])
            take_left = li >= 0 and ri >= 0 and li < ri
        else:
            take_left = i < len(server_only)
        if take_left:
            out.append(server_only[i])
            i += 1
        else:
            out.append(patch_items[j])
            j += 1
    return out


def _element_type(items: list) -> str:
    """sliceElementType: merge lists need elements of one JSON type, and no nested lists."""
    types = {_json_type(item) for item in items}
    if len(types) != 1 or types & {"list", "NoneType"}:
        raise ValueError(f"strategic merge: unsupported list element types {sorted(types)}")
    return types.pop()


def _ident(item, key: str | None):
    return item[key] if key is not None else item


def _marker(value):
    """A dict key equal for values Go's `==` takes as equal (`true` is not `1`, `1` is `1.0`)."""
    if isinstance(value, (dict, list)):
        return ("json", json.dumps(value, sort_keys=True))
    return (_json_type(value), value)


def _positions(items: list, key: str | None) -> dict:
    """The first position of each merge-key value (or scalar) in `items`."""
    found: dict = {}
    for pos, item in enumerate(items):
        found.setdefault(_marker(_ident(item, key)), pos)
    return found
