"""[CRD] Transition rules (those reading `oldSelf`) of the CRD schemas, for updates (`--previous`),
evaluated by the CEL engine.

Kubernetes evaluates a transition rule only where both the old and the new
value exist and can be correlated: object properties, map values, and items of
`x-kubernetes-list-type: map` lists (matched by their keys); never items of
atomic or set lists. Equality is Kubernetes': lists of type map or set ignore order, so both values are
given to the rule with such lists in one canonical order.
"""

from __future__ import annotations

import json

from ..errors import InputError, Origin, Path
from ..k8s import cel


def check(origin: Origin | None, new, old, schema: dict) -> list[InputError]:
    errors: list[InputError] = []
    _walk(new, old, schema, (), errors, origin)
    return errors


def _walk(new, old, schema: dict, path: Path, errors: list, origin) -> None:
    for rule in schema.get("x-kubernetes-validations", ()):
        if cel.is_transition(rule):
            found = cel.check(rule, _canonical(new, schema), _canonical(old, schema))
            if found is not None:
                errors.append(InputError(origin, path + found[0], found[1]))
    if isinstance(new, dict) and isinstance(old, dict):
        properties, values = schema.get("properties"), schema.get("additionalProperties")
        for key, item in new.items():
            sub = properties.get(key) if properties is not None else values if isinstance(values, dict) else None
            if sub is not None and key in old:
                _walk(item, old[key], sub, path + (key,), errors, origin)
    elif isinstance(new, list) and isinstance(old, list) and schema.get("x-kubernetes-list-type") == "map":
        keys = schema.get("x-kubernetes-list-map-keys", ())
        previous = {_key(item, keys): item for item in old}
        for index, item in enumerate(new):
            if _key(item, keys) in previous:
                _walk(item, previous[_key(item, keys)], schema["items"], path + (index,), errors, origin)


def _key(item, keys) -> tuple:
    return tuple(json.dumps(item.get(key)) for key in keys) if isinstance(item, dict) else (json.dumps(item),)


def _canonical(value, schema: dict):
    """`value` with the order of map and set lists made irrelevant, for CEL equality."""
    if isinstance(value, dict):
        properties, values = schema.get("properties") or {}, schema.get("additionalProperties")
        return {
            key: _canonical(item, properties.get(key) or (values if isinstance(values, dict) else {}))
            for key, item in value.items()
        }
    if isinstance(value, list):
        items = [_canonical(item, schema.get("items") or {}) for item in value]
        list_type = schema.get("x-kubernetes-list-type")
        if list_type == "map":
            keys = schema.get("x-kubernetes-list-map-keys", ())
            return sorted(items, key=lambda item: _key(item, keys))
        if list_type == "set":
            return sorted(items, key=lambda item: json.dumps(item, sort_keys=True))
        return items
    return value
