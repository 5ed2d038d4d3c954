"""`trainc fn`: trainc as a KRM function, for kustomize and kpt.

Reads a `config.kubernetes.io/v1` ResourceList on stdin and writes one on
stdout (the KRM functions specification): TrainJobs and runtimes among the
items are replaced by the objects trainc renders for them; every other item
passes through unchanged, in its place. Errors are reported both as KRM
`results` (so kpt shows them) and, as everywhere in trainc, as
`file:line:col: field.path: message` lines on stderr, and the exit status is 1.
"""

from __future__ import annotations

from . import api, source
from .build import build_objects
from .errors import InputError, InputErrors, Origin, TraincError, render_path
from .serialize import dump_all

KIND = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList"}
_TRAINER = api.GROUP + "/"
_PATH_ANNOTATIONS = ("config.kubernetes.io/path", "internal.config.kubernetes.io/path")


def _resource_list(text: str) -> tuple[Origin, dict]:
    documents = list(source.load_text(text, source.STDIN))
    if len(documents) != 1 or not isinstance(documents[0][1], dict) or documents[0][1].get("kind") != "ResourceList":
        origin = documents[0][0] if documents else Origin(source.STDIN)
        raise InputError(origin, (), "expected one config.kubernetes.io/v1 ResourceList on stdin")
    origin, resource_list = documents[0]
    if not isinstance(resource_list.get("items", []), list):
        raise InputError(origin, ("items",), "must be a list")
    return origin, resource_list


def _namespace(origin: Origin, resource_list: dict) -> str:
    """functionConfig may be a ConfigMap whose `data.namespace` is the default namespace (like -n)."""
    config = resource_list.get("functionConfig")
    data = config.get("data") if isinstance(config, dict) else None
    if data is None:
        return "default"
    if not isinstance(data, dict):
        raise InputError(origin, ("functionConfig", "data"), "must be a mapping (a ConfigMap's data)")
    namespace = data.get("namespace")
    if namespace is None:
        return "default"
    if api.namespace_problem(namespace) is not None:
        raise InputError(origin, ("functionConfig", "data", "namespace"),
                         "the default namespace must be a DNS-1123 label (lower case alphanumerics or '-', at most "
                         "63 characters)")
    return namespace


def _result(error: InputError, items: list) -> dict:
    """A KRM result, naming the item's source file (kustomize/kpt path annotation) when known."""
    result = {"message": error.message, "severity": "error"}
    if error.path:
        result["field"] = {"path": render_path(error.path)}
    base = error.origin.base if error.origin is not None else ()
    if len(base) == 2 and base[0] == "items" and base[1] < len(items) and isinstance(items[base[1]], dict):
        metadata = items[base[1]].get("metadata")
        annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
        annotations = annotations if isinstance(annotations, dict) else {}
        path = next((annotations[key] for key in _PATH_ANNOTATIONS if isinstance(annotations.get(key), str)), None)
        if path is not None:
            result["file"] = {"path": path}
    return result


def run(text: str, ssh_key_seed: bytes | None) -> tuple[str, list[str], list[str]]:
    """(ResourceList text, notices, error lines); error lines non-empty means failure."""
    items: list = []
    try:
        origin, resource_list = _resource_list(text)
        items = resource_list.get("items") or []
        namespace = _namespace(origin, resource_list)
        objects, passthrough = [], []
        for index, item in enumerate(items):
            # a `List` item gives its items, as `trainc build` and `kubectl apply` read one
            for where, obj in source.items(Origin(origin.file, origin.index, text, ("items", index)), item):
                api_version = obj.get("apiVersion") if isinstance(obj, dict) else None
                if isinstance(api_version, str) and api_version.startswith(_TRAINER):
                    objects.append((where, obj))
                else:
                    passthrough.append(obj)
        output = build_objects(objects, namespace=namespace, ssh_key_seed=ssh_key_seed)
    except TraincError as error:
        errors = error.errors if isinstance(error, InputErrors) else [error]
        failed = {**KIND, "items": [], "results": [_result(e, items) for e in errors if isinstance(e, InputError)]}
        return dump_all([failed]), [], error.render().splitlines()
    rendered = {**KIND, "items": passthrough + output.documents()}
    if "functionConfig" in resource_list:
        rendered["functionConfig"] = resource_list["functionConfig"]
    return dump_all([rendered]), output.notices, []
