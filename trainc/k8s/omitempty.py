"""A runtime's JobSet spec and a runtime patch as upstream's Go types re-encode them.

Upstream decodes both into Go structs and encodes them again before building
the JobSet (json.Marshal, runtime.DefaultUnstructuredConverter), and `omitempty`
drops every non-pointer field holding its Go zero value on the way: a runtime's
`replicas: 0` becomes no replicas (the JobSet then defaults it to 1), a runtime's
`value: ""` disappears, and a patch's `readOnly: false`, `value: ""` or
`tolerations: []` patches nothing. Pointers keep their zero (`parallelism: 0`),
and so do fields without `omitempty` (`containers: []`). Which field is which
comes from the Go sources upstream pins (schemas/gotypes.json, made by
tools/schemas/gotypes.py); anything those types do not reach is copied as is.
"""

from __future__ import annotations

import json
import marshal
from functools import cache

from ..shipped import read_text

JOBSET_SPEC, JOBSET_SPEC_PATCH = "jobset.JobSetSpec", "trainer.JobSetSpecPatch"


@cache
def _types() -> dict:
    return json.loads(read_text("schemas", "gotypes.json"))["types"]


def _zero(value) -> bool:
    return value is False or value == "" or value == [] or value == {} or (type(value) is int and value == 0)


def reencode(node, struct: str | None):
    """A copy of `node` (data of Go type `struct`, or untyped for None) without what Go would drop."""
    if isinstance(node, list):
        return [reencode(item, struct) for item in node]
    if not isinstance(node, dict):
        return node
    fields = _types()[struct] if struct is not None else {}
    out = {}
    for key, value in node.items():
        drop, shape, child = fields.get(key, (0, "", None))
        if drop and _zero(value):
            continue
        if shape == "m" and isinstance(value, dict):
            out[key] = {name: reencode(item, child) for name, item in value.items()}
        else:
            out[key] = reencode(value, child)
    return out


def reencoded(node, struct: str | None):
    """`reencode(node, struct)` of JSON data, re-encoded once per run for each content: every TrainJob of a runtime
    starts from the same spec. Keyed by the content as marshal writes it (types and order kept), so a changed
    spec is re-encoded anew; each call returns its own copy."""
    try:
        key = (struct, marshal.dumps(node))
    except ValueError:  # not JSON data
        return reencode(node, struct)
    kept = _reencoded.get(key)
    if kept is None:
        if len(_reencoded) >= 64:
            _reencoded.clear()
        kept = _reencoded[key] = marshal.dumps(reencode(node, struct))
    return marshal.loads(kept)


_reencoded: dict = {}  # (struct, marshalled node) -> marshalled re-encoding
