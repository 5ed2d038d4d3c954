"""Regenerate schemas/gotypes.json (or --out FILE): how upstream's Go types re-encode a JobSet spec and a runtime patch.

Upstream decodes a runtime's JobSet spec and each runtimePatch into Go structs and
encodes them again (json.Marshal, runtime.DefaultUnstructuredConverter) before
building the JobSet. On the way, every `omitempty` field holding its Go zero value
is dropped, unless it is a pointer: a runtime's `replicas: 0` becomes "no replicas"
(the JobSet then defaults it to 1), a patch's `readOnly: false` or `value: ""` no
longer patches anything. This script reads the Go sources of the versions upstream
pins (go.mod of kubeflow/trainer) and writes, for each struct reachable from the two
roots, the fields that matter:

    [drop, shape, child]   drop: a non-pointer omitempty scalar, list or map (its zero or empty value is dropped)
                           shape: "s" struct, "l" list of structs, "m" map of structs, "" none
                           child: the struct type of the value (or of its items)

Usage, with each argument `<package>=<Go file>` (e.g. from `git show v0.36.3:core/v1/types.go`):

    python tools/schemas/gotypes.py core=core.go batch=batch.go meta=meta.go jobset=jobset.go trainer=trainjob.go

Pinned by kubeflow/trainer's go.mod: k8s.io/api and k8s.io/apimachinery v0.36.3 (core/v1/types.go,
batch/v1/types.go, pkg/apis/meta/v1/types.go), sigs.k8s.io/jobset v0.12.0
(api/jobset/v1alpha2/jobset_types.go), kubeflow/trainer pkg/apis/trainer/v1alpha1/trainjob_types.go.
"""

import json
import re
import sys
from pathlib import Path

ROOTS = {"JobSetSpec": "jobset.JobSetSpec", "JobSetSpecPatch": "trainer.JobSetSpecPatch"}
# Import aliases in those files, and packages whose types are opaque here (custom JSON, never dropped).
ALIASES = {"corev1": "core", "batchv1": "batch", "metav1": "meta", "jobsetv1alpha2": "jobset"}
OPAQUE = {"resource", "intstr", "runtime"}
SCALARS = {
    "string",
    "bool",
    "byte",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
    "types.UID",
}
OPAQUE_META = {"Time", "MicroTime", "Duration", "FieldsV1"}  # meta structs with their own JSON encoding

_STRUCT = re.compile(r"^type (\w+) struct \{\n(.*?)^\}", re.M | re.S)
_NAMED = re.compile(r"^type (\w+) (?:= )?(\S+)\s*$", re.M)
_FIELD = re.compile(r"^\s*(?:(\w+)\s+)?(\S+)\s+`([^`]*)`", re.M)
_JSON_TAG = re.compile(r'json:"([^"]*)"')


def _parse(package: str, text: str):
    text = re.sub(r"//[^\n]*", "", text)
    named = {f"{package}.{name}": target for name, target in _NAMED.findall(text) if not target.startswith("struct")}
    structs = {}
    for name, body in _STRUCT.findall(text):
        fields = []
        for field, go_type, tags in _FIELD.findall(body):
            tag = _JSON_TAG.search(tags)
            if tag is None:
                continue
            json_name, *options = tag.group(1).split(",")
            fields.append((field, go_type, json_name, "omitempty" in options, "inline" in options))
        structs[f"{package}.{name}"] = fields
    return named, structs


def _qualify(package: str, name: str) -> str:
    if "." in name:
        prefix, _, base = name.partition(".")
        return f"{ALIASES.get(prefix, prefix)}.{base}"
    return name if name in SCALARS else f"{package}.{name}"


class Types:
    def __init__(self, sources: dict[str, str]):
        self.named, self.structs = {}, {}
        for package, text in sources.items():
            named, structs = _parse(package, text)
            self.named.update(named)
            self.structs.update(structs)
        self.table: dict[str, dict] = {}

    def _kind(self, package: str, go_type: str):
        """(pointer, shape, leaf) of a Go type expression: leaf is a struct name, "scalar" or None (opaque)."""
        pointer = go_type.startswith("*")
        go_type = go_type.lstrip("*")
        if go_type.startswith("[]"):
            _, _, leaf = self._kind(package, go_type[2:])
            return pointer, "l", leaf
        if go_type.startswith("map["):
            _, _, leaf = self._kind(package, go_type[go_type.index("]") + 1 :])
            return pointer, "m", leaf
        name = _qualify(package, go_type)
        if name in SCALARS:
            return pointer, "", "scalar"
        prefix, _, base = name.partition(".")
        if prefix in OPAQUE or (prefix == "meta" and base in OPAQUE_META):
            return pointer, "", None
        if name in self.named:
            inner_pointer, shape, leaf = self._kind(prefix, self.named[name])
            return pointer or inner_pointer, shape, leaf
        if name in self.structs:
            return pointer, "s", name
        raise SystemExit(f"unknown Go type {go_type!r} in package {package}")

    def fields(self, struct: str) -> dict:
        package = struct.partition(".")[0]
        out = {}
        for _, go_type, json_name, omitempty, inline in self.structs[struct]:
            pointer, shape, leaf = self._kind(package, go_type)
            if inline or (not json_name and shape == "s"):
                out.update(self.fields(leaf))
                continue
            if json_name in ("", "-"):
                continue
            drop = omitempty and not pointer and (shape in ("l", "m") or leaf == "scalar")
            child = leaf if leaf not in ("scalar", None) else None
            if drop or child:
                out[json_name] = [int(drop), shape if child else "", child]
        return out

    def visit(self, struct: str) -> None:
        if struct in self.table:
            return
        self.table[struct] = fields = self.fields(struct)
        for _, _, child in fields.values():
            if child:
                self.visit(child)


def main(arguments: list[str]) -> None:
    target = Path(__file__).resolve().parents[2] / "schemas" / "gotypes.json"
    if arguments[:1] == ["--out"]:
        target, arguments = Path(arguments[1]), arguments[2:]
    sources = {}
    for argument in arguments:
        package, _, path = argument.partition("=")
        sources[package] = Path(path).read_text()
    types = Types(sources)
    for root in ROOTS.values():
        types.visit(root)
    out = {"roots": ROOTS, "types": dict(sorted(types.table.items()))}
    target.write_text(json.dumps(out, sort_keys=True, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
