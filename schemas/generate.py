"""Regenerate trainc's input schemas from the upstream Trainer CRDs.

The CRDs are the API server's own contract, so validating and defaulting
against them gives exactly the checks and defaults a cluster would apply.
Descriptions are dropped; everything structural is kept. The KEP's
`v2alpha1` spelling gets the same schema plus what only the KEP allows
(Intel MPI and MPICH as `mpiImplementation`). Both versions accept the KEP's
future `runtimePatches[].opaqueRuntimeSpec`, so that trainc can reject it with
a clear message rather than as an unknown field.

    python schemas/generate.py ../shared/oracle/crds
"""

import json
import sys
from pathlib import Path

import yaml

CRDS = {
    "trainjob": "trainer.kubeflow.org_trainjobs.yaml",
    "trainingruntime": "trainer.kubeflow.org_trainingruntimes.yaml",
}


def _strip(node):
    if isinstance(node, dict):
        return {k: _strip(v) for k, v in node.items() if k != "description"}
    if isinstance(node, list):
        return [_strip(v) for v in node]
    return node


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


def main(crd_dir: str) -> None:
    out = Path(__file__).parent
    for name, file in CRDS.items():
        crd = yaml.safe_load((Path(crd_dir) / file).read_text())
        (version,) = [v for v in crd["spec"]["versions"] if v["name"] == "v1alpha1"]
        schema = _opaque_patches(_strip(version["schema"]["openAPIV3Schema"]))
        _write(out / f"{name}.v1alpha1.json", schema)
        _write(out / f"{name}.v2alpha1.json", _kep(json.loads(json.dumps(schema))))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else str(Path(__file__).parents[2] / "shared/oracle/crds"))
