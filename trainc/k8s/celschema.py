"""The CEL type of an OpenAPI schema and the sizes it allows, as the API server derives them for CRD
validation rules (k8s.io/apiserver `pkg/cel/common/schemas.go` SchemaDeclType, `pkg/cel/limits.go`, apiextensions
`pkg/apiserver/schema/cel/model/schemas.go`): a string's most characters (maxLength x 4), a list's or map's
most elements (maxItems, maxProperties), else what fits in a 3 MiB request; `celcost` estimates with them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

MAX_REQUEST = 3 * 1024 * 1024  # k8s.io/apiserver/pkg/apis/cel/config.go MaxRequestSizeBytes


@dataclass
class Decl:
    kind: str  # object, map, list, string, bytes, int, double, bool, duration, timestamp, dyn
    max_elements: int = 0
    min_size: int = 0
    fields: dict = field(default_factory=dict)
    element: Decl | None = None  # a list's items, a map's values


KEY = Decl("string", 0, 2)  # a map's keys: apiservercel.StringType (no MaxElements)
_RESERVED = {
    "true",
    "false",
    "null",
    "in",
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
}
_ESCAPABLE = re.compile(r"[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*")
NAME_MAX = 253  # apimachinery DNS1123SubdomainMaxLength: metadata.name's cap (apiextensions model/schemas.go)


def escape(name: str) -> str | None:
    """A property's name as CEL sees it (k8s.io/apiserver/pkg/cel/escaping.go); None when it cannot be."""
    if name in _RESERVED:
        return f"__{name}__"
    if not _ESCAPABLE.fullmatch(name):
        return None
    return (
        name.replace("__", "__underscores__").replace(".", "__dot__").replace("-", "__dash__").replace("/", "__slash__")
    )


def bound(schema: dict, key: str) -> int | None:
    """A schema's maxLength, maxItems or maxProperties (a negative one is 0); None when not given."""
    value = schema.get(key)
    return max(0, value) if isinstance(value, int) and not isinstance(value, bool) else None


def _string_length(schema: dict) -> int:
    """estimateMaxStringLengthPerRequest."""
    if schema.get("x-kubernetes-int-or-string"):
        return MAX_REQUEST - 2
    return {"duration": 32, "date": 12, "date-time": 32}.get(schema.get("format"), MAX_REQUEST - 2)


def _with_object_meta(schema: dict) -> dict:
    """WithTypeAndObjectMeta: a resource's kind, apiVersion and metadata.name (at most 253 characters) and
    generateName (252)."""
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}

    def typed(name, kind, where=properties):
        return isinstance(where.get(name), dict) and where[name].get("type") == kind

    metadata = properties.get("metadata") if isinstance(properties.get("metadata"), dict) else {}
    inner = metadata.get("properties") if isinstance(metadata.get("properties"), dict) else {}
    if (
        properties
        and typed("kind", "string")
        and typed("apiVersion", "string")
        and typed("metadata", "object")
        and inner
        and typed("name", "string", inner)
        and typed("generateName", "string", inner)
    ):
        return schema

    def capped(existing, cap):
        given = bound(existing, "maxLength") if isinstance(existing, dict) else None
        return {"type": "string", "maxLength": cap if given is None or given >= cap else given}

    return {
        **schema,
        "properties": {
            **properties,
            "kind": {"type": "string"},
            "apiVersion": {"type": "string"},
            "metadata": {
                "type": "object",
                "properties": {
                    "name": capped(inner.get("name"), NAME_MAX),
                    "generateName": capped(inner.get("generateName"), NAME_MAX - 1),
                },
            },
        },
    }


def decl(schema, root: bool = False) -> Decl | None:
    """SchemaDeclType: the CEL type of `schema`, with its most elements (characters of a string) and its least
    serialized size; None for what CEL does not see."""
    if not isinstance(schema, dict):
        return None
    length = bound(schema, "maxLength")
    if schema.get("x-kubernetes-int-or-string"):
        return Decl("dyn", length * 4 if length is not None else _string_length(schema), 1)
    if root:
        schema = _with_object_meta(schema)
    kind = schema.get("type")
    if kind == "array":
        items = schema.get("items")
        if not isinstance(items, dict):
            return None
        element = decl(items, bool(items.get("x-kubernetes-embedded-resource")))
        if element is None:
            return None
        most = bound(schema, "maxItems")
        return Decl(
            "list", most if most is not None else (MAX_REQUEST - 2) // (element.min_size + 1), 2, element=element
        )
    if kind == "object":
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            element = decl(extra, bool(extra.get("x-kubernetes-embedded-resource")))
            if element is None:
                return None
            most = bound(schema, "maxProperties")
            return Decl(
                "map", most if most is not None else (MAX_REQUEST - 2) // (element.min_size + 6), 2, element=element
            )
        fields, least = {}, 2
        required = set(schema.get("required") or ()) if isinstance(schema.get("required"), list) else set()
        properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        for name, prop in properties.items():
            typed = decl(prop, isinstance(prop, dict) and bool(prop.get("x-kubernetes-embedded-resource")))
            if typed is None:
                continue
            escaped = escape(name)
            if escaped is not None:
                fields[escaped] = typed
            if name in required and prop.get("default") is None:
                least += len(name) + typed.min_size + 4
        return Decl("object", 0, least, fields)
    if kind == "string":
        form = schema.get("format")
        if form == "byte":
            return Decl("bytes", length if length is not None else _string_length(schema), 2)
        if form in ("duration", "date", "date-time"):
            least = {"duration": 3, "date": 12, "date-time": 21}[form]
            return Decl("duration" if form == "duration" else "timestamp", _string_length(schema), least)
        if length is not None:
            most = length * 4
        elif isinstance(schema.get("enum"), list) and schema["enum"]:
            most = max((len(value.encode()) for value in schema["enum"] if isinstance(value, str)), default=0)
        else:
            most = _string_length(schema)
        return Decl("string", most, 2)
    return {"boolean": Decl("bool", 0, 4), "number": Decl("double", 0, 1), "integer": Decl("int", 0, 1)}.get(kind)


def max_cardinality(least: int) -> int:
    """How many times a value of at least `least` bytes fits in one request (compilation.go maxCardinality)."""
    return MAX_REQUEST // (least + 1)
