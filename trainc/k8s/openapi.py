"""Validate and default input documents against the upstream CRD schemas.

This is what the API server does on create: prune nulls, apply `default`s,
reject wrong types, unknown fields (kubectl's strict field validation),
out-of-range values, and evaluate the CRD's CEL rules (`cel.py`, with a real CEL engine) — only
when nothing "blocking" was found, as the API server's hasBlockingErr: a
wrong type, a missing required field, an enum, maxLength or maxItems violation
means the object lacks the shape the rules were written for.
Quantities are canonicalized on the way, because upstream round-trips every
resource quantity through Go's `resource.Quantity` before emitting it; those
beyond int64 are refused (Go's Value() overflows on them, and exact arithmetic
on e.g. `1e999999999` plus `1m` would never finish).
"""

from __future__ import annotations

import json
import re
from functools import cache

from ..errors import Path, did_you_mean
from ..shipped import read_text
from . import cel, quantity

QUANTITY_PATTERN = (
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
)
INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}
_TYPE_NAMES = {
    "object": "an object",
    "array": "a list",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
}


class Violation(tuple):
    """(path, message, key): `key` marks errors about a key rather than its value."""

    __slots__ = ()

    def __new__(cls, path: Path, message: str, key: bool = False):
        return super().__new__(cls, (tuple(path), message, key))


@cache
def load(name: str) -> dict:
    """A schema shipped in `schemas/`."""
    return json.loads(read_text("schemas", f"{name}.json"))


@cache
def _regex(pattern: str) -> re.Pattern:
    """A schema pattern as Go's RE2 reads it: `$` is the end of the text (Python's `$` also
    matches before a final newline, which would let `name\\n` through). No CRD pattern
    has a `$` inside a character class."""
    return re.compile(re.sub(r"(?<!\\)\$", r"\\Z", pattern))


def _kind_of(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


class _Walker:
    __slots__ = ("violations", "blocking", "rules")

    def __init__(self):
        self.violations: list[Violation] = []
        self.blocking = False
        self.rules: list = []  # (path, value, rules): CEL rules to evaluate once the walk is done

    def fail(self, path, message, key=False, blocking=False):
        self.violations.append(Violation(path, message, key))
        self.blocking = self.blocking or blocking

    def walk(self, value, schema: dict, path: tuple):
        """Check `value`, returning it defaulted/normalized (or unchanged on error)."""
        if schema.get("x-kubernetes-int-or-string"):
            value = self._int_or_string(value, schema, path)
        else:
            expected = schema.get("type")
            if expected is not None:
                value = self._typed(value, expected, schema, path)
                if value is _BAD:
                    return None
        if "enum" in schema and value not in schema["enum"]:
            choices = ", ".join(json.dumps(choice) for choice in schema["enum"])
            self.fail(path, f"unsupported value {json.dumps(value)}: must be one of {choices}", blocking=True)
        rules = schema.get("x-kubernetes-validations")
        if rules:
            self.rules.append((path, value, rules))
        return value

    def check_rules(self):
        for path, value, rules in self.rules:
            for found in cel.refusals(rules, value):  # the API server skips transition rules on create
                self.fail(path + found[0], found[1])

    def _int_or_string(self, value, schema, path):
        if isinstance(value, float) and not isinstance(value, bool):
            value = repr(value) if not value.is_integer() else int(value)
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            self.fail(path, f"must be an integer or a string, not {_kind_of(value)}", blocking=True)
            return value
        if schema.get("pattern") == QUANTITY_PATTERN:
            try:
                parsed = quantity.parse(value)
            except ValueError as exc:
                self.fail(path, f"invalid quantity {json.dumps(value)}: {exc}")
                return value
            if parsed.fits_int64():
                return str(parsed)
            self.fail(
                path,
                f"quantity {json.dumps(value)} is outside the int64 range Kubernetes reads quantities in "
                "(Go's Quantity.Value())",
            )
        return value

    def _typed(self, value, expected, schema, path):
        if expected == "object":
            if not isinstance(value, dict):
                return self._wrong(value, expected, path)
            return self._object(value, schema, path)
        if expected == "array":
            if not isinstance(value, list):
                return self._wrong(value, expected, path)
            return self._array(value, schema, path)
        if expected == "string":
            if not isinstance(value, str):
                return self._wrong(value, expected, path)
            self._string(value, schema, path)
            return value
        if expected == "integer":
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            if isinstance(value, bool) or not isinstance(value, int):
                return self._wrong(value, expected, path)
            self._number(value, schema, path)
            return value
        if expected == "number":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                return self._wrong(value, expected, path)
            self._number(value, schema, path)
            return value
        if expected == "boolean" and not isinstance(value, bool):
            return self._wrong(value, expected, path)
        return value

    def _wrong(self, value, expected, path):
        self.fail(path, f"must be {_TYPE_NAMES[expected]}, not {_kind_of(value)}", blocking=True)
        return _BAD

    def _string(self, value, schema, path):
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            self.fail(path, f"may not be longer than {schema['maxLength']} characters", blocking=True)
        if "minLength" in schema and len(value) < schema["minLength"]:
            self.fail(path, f"must be at least {schema['minLength']} characters long")
        if "pattern" in schema and not _regex(schema["pattern"]).search(value):
            self.fail(path, f"{json.dumps(value)} must match the pattern {schema['pattern']}")
        if schema.get("format") == "date-time" and not _is_date_time(value):
            self.fail(path, f"{json.dumps(value)} must be an RFC 3339 date-time, e.g. 2026-01-02T15:04:05Z")

    def _number(self, value, schema, path):
        low, high = INT_RANGES.get(schema.get("format"), (None, None))
        if low is not None and not low <= value <= high:
            self.fail(path, f"{value} is out of range for {schema['format']}")
        if "minimum" in schema and value < schema["minimum"]:
            self.fail(path, f"must be ≥ {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            self.fail(path, f"must be ≤ {schema['maximum']}")

    def _object(self, value: dict, schema, path):
        if None in value.values():
            for key in [k for k, v in value.items() if v is None]:
                del value[key]  # the API server prunes nulls of non-nullable fields
        properties = schema.get("properties")
        extra = schema.get("additionalProperties")
        if properties is not None:
            for key, default in _facts(schema)[1]:
                if key not in value:  # a copy of a list or mapping: each object gets its own
                    value[key] = json.loads(json.dumps(default)) if isinstance(default, (dict, list)) else default
            for key, item in value.items():
                sub = properties.get(key)
                if sub is None:
                    if not schema.get("x-kubernetes-preserve-unknown-fields"):
                        self.fail(path + (key,), unknown_field(key, properties), key=True)
                    continue
                if type(item) is not _facts(sub)[2]:  # a plain string or boolean is all a leaf schema asks for
                    value[key] = self.walk(item, sub, path + (key,))
        elif isinstance(extra, dict):
            for key, item in value.items():
                value[key] = self.walk(item, extra, path + (key,))
        elif value and not schema.get("x-kubernetes-preserve-unknown-fields"):
            for key in value:
                self.fail(path + (key,), "unknown field", key=True)
        for key in schema.get("required", ()):
            if key not in value:
                self.fail(path + (key,), "required field is missing", blocking=True)
        if len(value) < schema.get("minProperties", 0):
            self.fail(path, f"must have at least {schema['minProperties']} field(s)")
        return value

    def _array(self, value: list, schema, path):
        items = schema.get("items")
        if items is not None:
            leaf = _facts(items)[2]
            for index, item in enumerate(value):
                if item is None:
                    self.fail(path + (index,), "must not be null", blocking=True)
                    continue
                if type(item) is not leaf:
                    value[index] = self.walk(item, items, path + (index,))
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            self.fail(path, f"must have at most {schema['maxItems']} items", blocking=True)
        if "minItems" in schema and len(value) < schema["minItems"]:
            self.fail(path, f"must have at least {schema['minItems']} item(s)")
        list_type = schema.get("x-kubernetes-list-type")
        if list_type == "map":
            self._unique(value, path, tuple(schema.get("x-kubernetes-list-map-keys", ())))
        elif list_type == "set":
            self._unique(value, path, None)
        return value

    def _unique(self, value, path, keys):
        seen = set()
        for index, item in enumerate(value):
            if keys is None:
                marker = json.dumps(item, sort_keys=True)
            elif isinstance(item, dict):
                marker = tuple(json.dumps(item.get(k)) for k in keys)
            else:
                continue
            if marker in seen:
                what = marker if keys is None else ", ".join(f"{k}={item.get(k)!r}" for k in keys)
                self.fail(path + (index,), f"duplicate entry ({what})")
            seen.add(marker)


_derived: dict = {}  # id(schema) -> (schema, its properties' (key, default) pairs, its leaf type or None)
_LEAF_TYPES = {"string": str, "boolean": bool}
_LEAF_KEYS = frozenset(("type", "description", "default"))


def _facts(schema: dict) -> tuple:
    """(schema, its properties' (key, default) pairs, its leaf type), derived once per schema rather than on each
    of the run's objects (the schemas stay loaded for the run). The leaf type is str or bool for a schema with no
    rule but its type (most of a TrainJob's strings): a value of that type passes it unchanged, with no walk."""
    kept = _derived.get(id(schema))
    if kept is None or kept[0] is not schema:
        properties = schema.get("properties") or {}
        defaults = tuple((key, sub["default"]) for key, sub in properties.items() if "default" in sub)
        leaf = _LEAF_TYPES.get(schema.get("type")) if _LEAF_KEYS.issuperset(schema) else None
        kept = _derived[id(schema)] = (schema, defaults, leaf)
    return kept


def unknown_field(key: str, known) -> str:
    hint = did_you_mean(key, known)
    return f"unknown field ({hint})" if hint else "unknown field"


_BAD = object()
_DATE_TIME = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-](\d\d):(\d\d))"  # compiled on first use


def _is_date_time(text: str) -> bool:
    """What metav1.Time decodes (Go's time.Parse with RFC 3339): the shape, and every field in range."""
    match = re.fullmatch(_DATE_TIME, text)
    if match is None or (match[1] is not None and (int(match[1]) > 23 or int(match[2]) > 59)):
        return False
    from datetime import datetime  # here: a date-time field is rare, and the module costs a build 2 ms

    try:
        datetime.strptime(text[:19], "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        return False
    return True


def validate(document, schema: dict) -> tuple[object, list[Violation]]:
    """Default and check `document` in place; returns it with all violations found."""
    walker = _Walker()
    try:
        document = walker.walk(document, schema, ())
    except RecursionError:
        walker.fail((), "document is nested too deeply", blocking=True)
    if not walker.blocking:
        walker.check_rules()
    return document, walker.violations
