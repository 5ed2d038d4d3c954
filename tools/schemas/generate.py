"""Regenerate trainc's input schemas from the upstream Trainer CRDs.

The CRDs are the API server's own contract, so validating and defaulting
against them gives exactly the checks and defaults a cluster would apply.
Descriptions are kept apart (`<crd>.descriptions.json`, a tree of them only),
so that loading a schema for a build does not pay for them; `trainc schema`
joins both into the editors' JSON Schemas, checked in under
`trainer.kubeflow.org/` (kubeconform's catalog layout) by `--catalog`. The KEP's
`v2alpha1` spelling gets the same schema plus what only the KEP allows
(Intel MPI and MPICH as `mpiImplementation`). Both versions accept the KEP's
future `runtimePatches[].opaqueRuntimeSpec`, so that trainc can reject it with
a clear message rather than as an unknown field.

    python tools/schemas/generate.py ../shared/oracle/crds
    python tools/schemas/generate.py --catalog    # only the JSON Schemas, from what is checked in
"""

import json
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "schemas"  # what it writes: data the package ships, apart from this generator
CRDS = {
    "trainjob": "trainer.kubeflow.org_trainjobs.yaml",
    "trainingruntime": "trainer.kubeflow.org_trainingruntimes.yaml",
}
DESCRIBED = {**CRDS, "clustertrainingruntime": "trainer.kubeflow.org_clustertrainingruntimes.yaml"}


def _strip(node):
    if isinstance(node, dict):
        return {k: _strip(v) for k, v in node.items() if k != "description"}
    if isinstance(node, list):
        return [_strip(v) for v in node]
    return node


def _descriptions(node) -> dict:
    """The descriptions of a schema, at the places of the nodes they describe."""
    out = {"description": node["description"]} if node.get("description") else {}
    nested = {key: _descriptions(sub) for key, sub in (node.get("properties") or {}).items()}
    nested = {key: found for key, found in nested.items() if found}
    if nested:
        out["properties"] = nested
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict) and (found := _descriptions(node[key])):
            out[key] = found
    return out


def _opaque_patches(schema: dict) -> dict:
    """Accept the KEP's future `runtimePatches[].opaqueRuntimeSpec` (any object), so the patch
    pass can reject it with a clear message instead of an "unknown field" error."""
    patches = schema["properties"]["spec"]["properties"].get("runtimePatches")
    if patches:
        patches["items"]["properties"]["opaqueRuntimeSpec"] = {
            "type": "object",
            "x-kubernetes-preserve-unknown-fields": True,
        }
    return schema


def _kep(schema: dict) -> dict:
    mpi = schema["properties"]["spec"]["properties"].get("mlPolicy", {}).get("properties", {}).get("mpi")
    if mpi:
        mpi["properties"]["mpiImplementation"]["enum"] += ["Intel", "MPICH"]
    return schema


def _write(path: Path, schema: dict) -> None:
    path.write_text(json.dumps(schema, sort_keys=True, separators=(",", ":")) + "\n")


def _v1alpha1(crd_dir: str, file: str) -> dict:
    crd = yaml.safe_load((Path(crd_dir) / file).read_text())
    (version,) = [v for v in crd["spec"]["versions"] if v["name"] == "v1alpha1"]
    return version["schema"]["openAPIV3Schema"]


def main(crd_dir: str) -> None:
    out = SCHEMAS
    for name, file in CRDS.items():
        schema = _opaque_patches(_strip(_v1alpha1(crd_dir, file)))
        _write(out / f"{name}.v1alpha1.json", schema)
        _write(out / f"{name}.v2alpha1.json", _kep(json.loads(json.dumps(schema))))
    for name, file in DESCRIBED.items():
        _write(out / f"{name}.descriptions.json", _descriptions(_v1alpha1(crd_dir, file)))
    catalog()


def catalog() -> None:
    """Write the JSON Schemas `trainc schema` prints, in kubeconform's layout."""
    sys.path.insert(0, str(ROOT))
    from trainc.commands import schema as schema_export

    for path, text in schema_export.catalog().items():
        target = SCHEMAS / path
        target.parent.mkdir(exist_ok=True)
        target.write_text(text)


if __name__ == "__main__":
    if sys.argv[1:] == ["--catalog"]:
        catalog()
    else:
        main(sys.argv[1] if len(sys.argv) > 1 else str(ROOT.parent / "shared/oracle/crds"))
