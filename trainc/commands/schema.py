"""`trainc schema`: JSON Schemas (draft 2020-12) of trainc's inputs, for editors and CI.

Built from the schemas trainc validates with (`api.document_schema`: the CRD's
structural schema, ObjectMeta spelled out, what trainc requires beyond it) and
the CRDs' descriptions (`schemas/<crd>.descriptions.json`). Unknown fields are
refused everywhere (`additionalProperties: false`) as kubectl's strict field
validation refuses them, except under `x-kubernetes-preserve-unknown-fields`.
They describe what trainc reads, which is a little more than the API server
takes: a quantity may be a fractional number (`cpu: 0.5`), and a v2alpha1
runtime may spell the MPI mount path `SSHAuthMountPath` as the KEP does.
CEL rules and list-map key uniqueness have no JSON Schema form: `trainc
validate` checks them.
"""

from __future__ import annotations

import json
from functools import cache

from ..k8s import openapi
from ..shipped import read_text
from ..trainer import api

DRAFT = "https://json-schema.org/draft/2020-12/schema"
KINDS = {"TrainJob": "trainjob", "TrainingRuntime": "trainingruntime", "ClusterTrainingRuntime": "trainingruntime"}
_DROPPED = (
    "x-kubernetes-int-or-string",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-map-type",
    "x-kubernetes-validations",
)
# apimachinery's ObjectMeta field docs, shortened (the CRDs leave metadata to the API server)
_META = {
    "description": "Standard object metadata (Kubernetes ObjectMeta).",
    "properties": {
        "name": {"description": "Name of the object, unique within its namespace (or the cluster)."},
        "generateName": {"description": "A prefix the API server completes into a unique name."},
        "namespace": {"description": "Namespace of the object; trainc's -n (default `default`) when unset."},
        "labels": {"description": "Key/value pairs to organize and select objects."},
        "annotations": {"description": "Key/value pairs of non-identifying data."},
        "uid": {"description": "Set by the API server; trainc derives Flux keys from it when present."},
        "resourceVersion": {"description": "Set by the API server (read-only)."},
        "generation": {"description": "Set by the API server (read-only)."},
        "creationTimestamp": {"description": "Set by the API server (read-only)."},
        "deletionTimestamp": {"description": "Set by the API server (read-only)."},
        "deletionGracePeriodSeconds": {"description": "Set by the API server (read-only)."},
        "selfLink": {"description": "Deprecated; set by old API servers (read-only)."},
        "finalizers": {"description": "Conditions to meet before the object is deleted."},
        "ownerReferences": {"description": "Objects this one depends on."},
        "managedFields": {"description": "Server-side apply field ownership (read-only)."},
    },
}


@cache
def _descriptions(kind: str) -> dict:
    return json.loads(read_text("schemas", f"{kind.lower()}.descriptions.json"))


def export(kind: str, version: str) -> dict:
    """The JSON Schema of `kind` (TrainJob, TrainingRuntime, ClusterTrainingRuntime) at `version`."""
    structure = json.loads(json.dumps(api.document_schema(f"{KINDS[kind]}.{version}")))
    if version == "v2alpha1" and kind != "TrainJob":
        mpi = structure["properties"]["spec"]["properties"]["mlPolicy"]["properties"]["mpi"]["properties"]
        mpi["SSHAuthMountPath"] = mpi["sshAuthMountPath"]
    described = json.loads(json.dumps(_descriptions(kind)))
    described.setdefault("properties", {})["metadata"] = _META
    mpi_docs = described["properties"].get("spec", {}).get("properties", {}).get("mlPolicy", {})
    mpi_docs = mpi_docs.get("properties", {}).get("mpi", {}).get("properties", {})
    if "sshAuthMountPath" in mpi_docs:
        mpi_docs["SSHAuthMountPath"] = {"description": "The KEP's spelling of sshAuthMountPath (v2alpha1)."}
    body = _convert(structure, described)
    body["required"] = ["apiVersion", "kind", *body.get("required", [])]
    body["properties"]["apiVersion"] = {**body["properties"]["apiVersion"], "const": f"{api.GROUP}/{version}"}
    body["properties"]["kind"] = {**body["properties"]["kind"], "const": kind}
    head = {
        "$schema": DRAFT,
        "$id": f"urn:trainc:schema:{api.GROUP}/{version}/{kind}",
        "title": f"{kind} ({api.GROUP}/{version})",
    }
    return {**head, **body}


def _convert(node: dict, described: dict) -> dict:
    out = {"description": described["description"]} if "description" in described else {}
    for key, value in node.items():
        if key in _DROPPED:
            continue
        if key == "properties":
            docs = described.get("properties", {})
            out[key] = {name: _convert(sub, docs.get(name, {})) for name, sub in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            out[key] = _convert(value, described.get(key, {}))
        elif key != "anyOf":
            out[key] = value
    if node.get("x-kubernetes-int-or-string"):
        out.pop("pattern", None)
        string = {"type": "string"} if "pattern" not in node else {"type": "string", "pattern": node["pattern"]}
        quantity = node.get("pattern") == openapi.QUANTITY_PATTERN
        out["anyOf"] = [{"type": "integer"}, *([{"type": "number"}] if quantity else []), string]
    elif (
        node.get("type") == "object"
        and "additionalProperties" not in node
        and not node.get("x-kubernetes-preserve-unknown-fields")
    ):
        out["additionalProperties"] = False
    if node.get("type") == "integer" and node.get("format") in openapi.INT_RANGES:
        low, high = openapi.INT_RANGES[node["format"]]
        out.setdefault("minimum", low)
        out.setdefault("maximum", high)
    if node.get("x-kubernetes-list-type") == "set":
        out["uniqueItems"] = True
    return out


def text(kind: str, version: str) -> str:
    return json.dumps(export(kind, version), indent=2, ensure_ascii=False) + "\n"


def catalog() -> dict:
    """{path: text} of every schema, in kubeconform's CRD catalog layout ({group}/{kind}_{version}.json)."""
    return {
        f"{api.GROUP}/{kind.lower()}_{version}.json": text(kind, version) for kind in KINDS for version in api.VERSIONS
    }


def main(kind: str, version: str) -> None:
    """`trainc schema`: KIND's JSON Schema on stdout."""
    from . import write_out

    write_out(text(kind, version))
