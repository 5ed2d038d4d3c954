"""The KRM functions protocol (kpt, kustomize): the `config.kubernetes.io/v1` ResourceList a function reads on
stdin and writes on stdout, the annotations a host puts on its items (where each came from), and the `results`
a function reports, as the KRM functions specification writes them. No Kubernetes meaning, no trainc flow:
`commands/fn.py` is trainc's function over these.
"""

from __future__ import annotations


from ..errors import InputError, Origin, render_path
from . import source
from .serialize import dump_all

HEADER = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"
LOCAL_CONFIG = "config.kubernetes.io/local-config"  # never applied by kpt or kustomize
# kyaml reads the internal.* spelling first and keeps the legacy one in step (the functions spec)
PATHS = ("internal.config.kubernetes.io/path", "config.kubernetes.io/path")
INDEXES = ("internal.config.kubernetes.io/index", "config.kubernetes.io/index")
PACKAGE_PATH = "internal.config.kubernetes.io/package-path"  # set by `kpt fn render`, not by `kpt fn eval`


def read(text: str) -> tuple[Origin, dict]:
    """The one ResourceList on stdin and its origin; an InputError for anything else."""
    documents = list(source.load_text(text, source.STDIN))
    if len(documents) != 1 or not isinstance(documents[0][1], dict) or documents[0][1].get("kind") != "ResourceList":
        origin = documents[0][0] if documents else Origin(source.STDIN)
        raise InputError(origin, (), "expected one config.kubernetes.io/v1 ResourceList on stdin")
    origin, resource_list = documents[0]
    if not isinstance(resource_list.get("items") or [], list):
        raise InputError(origin, ("items",), "must be a list")
    return origin, resource_list


def annotations(item) -> dict:
    metadata = item.get("metadata") if isinstance(item, dict) else None
    found = metadata.get("annotations") if isinstance(metadata, dict) else None
    return found if isinstance(found, dict) else {}


def first(found: dict, keys: tuple) -> str | None:
    """The first of `keys` (e.g. PATHS) an item's annotations set to a string."""
    return next((found[key] for key in keys if isinstance(found.get(key), str)), None)


def item_origin(origin: Origin, index: int) -> Origin:
    """The origin of item `index` of the ResourceList read from `origin`."""
    return origin._replace(base=("items", index))


def result(error: InputError, item) -> dict:
    """An error as a KRM result: its message, the item's `resourceRef` and `file`, the field inside the item."""
    found = {"message": error.message, "severity": "error"}
    field = error.origin.base[2:] + error.path if item is not None else error.path
    if isinstance(item, dict):
        metadata = item.get("metadata") if isinstance(item.get("metadata"), dict) else {}
        reference = {
            "apiVersion": item.get("apiVersion"),
            "kind": item.get("kind"),
            "name": metadata.get("name"),
            "namespace": metadata.get("namespace"),
        }
        reference = {key: value for key, value in reference.items() if isinstance(value, str)}
        if reference:
            found["resourceRef"] = reference
    if field:
        found["field"] = {"path": render_path(field)}
    path, index = first(annotations(item), PATHS), first(annotations(item), INDEXES)
    if path is not None:
        found["file"] = {"path": path, **({"index": int(index)} if index and index.isdigit() else {})}
    return found


def block_entries(objects: list[dict]) -> str:
    """`objects` as the block entries of an `items:` list."""
    return dump_all([{"items": objects}]).removeprefix("---\nitems:\n")


def results(found: list[dict]) -> str:
    """The `results:` key of a ResourceList, or nothing without results."""
    return dump_all([{"results": found}]).removeprefix("---\n") if found else ""
