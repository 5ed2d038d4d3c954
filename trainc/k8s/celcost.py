"""The estimated cost of a CRD validation rule, as the API server computes it when a CRD is written
(apiextensions' `validation.go`: `StaticEstimatedCostLimit` per rule, `StaticEstimatedCRDCostLimit` for the
whole schema): cel-go's checker cost estimator (`checker/cost.go`) with Kubernetes' call costs
(`k8s.io/apiserver/pkg/cel/library/cost.go`, cel-go's sets extension) and the sizes the schema allows
(`pkg/cel/common/schemas.go`: maxLength, maxItems, maxProperties, else what fits in a 3 MiB request).

The rule is compiled by cel-cpp (`celengine`, `self` and `oldSelf` dynamically typed); its checked AST is read
from the protobuf cel-cpp serializes, and the types cel-go would know come from the schema by each
expression's path, as cel-go's size estimator finds them. A rule trainc's CEL library cannot compile is not
estimated (the API server may know functions trainc lacks).
"""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass, field

U64 = 2**64 - 1
MAX_REQUEST = 3 * 1024 * 1024  # k8s.io/apiserver/pkg/apis/cel/config.go MaxRequestSizeBytes
UNKNOWN = (0, U64)
_STRING_TRAVERSAL, _REGEX_LENGTH = 0.1, 0.25  # cel-go common/cost.go


# --- cost arithmetic, saturating at uint64 as cel-go's

def _add(a: tuple, b: tuple) -> tuple:
    return min(a[0] + b[0], U64), min(a[1] + b[1], U64)


def _mul(a: tuple, b: tuple) -> tuple:
    return min(a[0] * b[0], U64), min(a[1] * b[1], U64)


def _scalar(x: int, factor: float) -> int:
    if x > 0 and factor > 0 and float(x) > 2.0**64 / factor:
        return U64
    ceil = math.ceil(float(x) * factor)
    return U64 if ceil >= 2.0**64 else int(ceil)


def _factor(a: tuple, factor: float) -> tuple:
    return _scalar(a[0], factor), _scalar(a[1], factor)


def _union(a: tuple, b: tuple) -> tuple:
    return min(a[0], b[0]), max(a[1], b[1])


# --- the checked AST, from cel-cpp's serialized cel.expr.CheckedExpr (an Any)

def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, at
        shift += 7


def _fields(data: bytes):
    """(number, value) of each field of one protobuf message: an int, or bytes for the other wire types."""
    at, end = 0, len(data)
    while at < end:
        key, at = _varint(data, at)
        wire = key & 7
        if wire == 0:
            value, at = _varint(data, at)
        elif wire == 1:
            value, at = data[at:at + 8], at + 8
        elif wire == 2:
            length, at = _varint(data, at)
            value, at = data[at:at + length], at + length
        elif wire == 5:
            value, at = data[at:at + 4], at + 4
        else:
            raise ValueError(f"protobuf wire type {wire}")
        yield key >> 3, value


@dataclass
class Expr:
    id: int = 0
    kind: str = ""  # const, ident, select, call, list, map, struct, comprehension
    value: object = None  # const: (type, value); ident: name; select: field; call: function name
    operand: Expr | None = None  # select's operand, call's target
    test_only: bool = False
    args: list = field(default_factory=list)  # call arguments, list elements, [(key, value)] of a map
    loop: dict = field(default_factory=dict)  # comprehension: iter_var, iter_var2, accu_var, and the parts


_CONSTANTS = {1: "null", 2: "bool", 3: "int", 4: "uint", 5: "double", 6: "string", 7: "bytes", 8: "duration",
              9: "timestamp"}


def _constant(data: bytes) -> tuple:
    for number, value in _fields(data):
        kind = _CONSTANTS.get(number, "other")
        if kind == "string":
            return kind, value.decode(errors="replace")
        if kind == "int":
            return kind, value - 2**64 if value >= 2**63 else value
        if kind == "double":
            return kind, struct.unpack("<d", value)[0]
        return kind, value
    return "null", None


def _expr(data: bytes) -> Expr:
    node = Expr()
    for number, value in _fields(data):
        if number == 2:
            node.id = value
        elif number == 3:
            node.kind, node.value = "const", _constant(value)
        elif number == 4:
            node.kind, node.value = "ident", next((v.decode() for n, v in _fields(value) if n == 1), "")
        elif number == 5:
            node.kind = "select"
            for part, item in _fields(value):
                if part == 1:
                    node.operand = _expr(item)
                elif part == 2:
                    node.value = item.decode()
                elif part == 3:
                    node.test_only = bool(item)
        elif number == 6:
            node.kind = "call"
            for part, item in _fields(value):
                if part == 1:
                    node.operand = _expr(item)
                elif part == 2:
                    node.value = item.decode()
                elif part == 3:
                    node.args.append(_expr(item))
        elif number == 7:
            node.kind = "list"
            node.args = [_expr(item) for part, item in _fields(value) if part == 1]
        elif number == 8:
            name, entries = "", []
            for part, item in _fields(value):
                if part == 1:
                    name = item.decode()
                elif part == 2:
                    parts = dict((n, v) for n, v in _fields(item))
                    entries.append((_expr(parts[3]) if 3 in parts else None, _expr(parts[4]) if 4 in parts else Expr()))
            node.kind, node.value, node.args = ("struct" if name else "map"), name, entries
        elif number == 9:
            node.kind = "comprehension"
            names = {1: "iter_var", 3: "accu_var", 8: "iter_var2"}
            parts = {2: "range", 4: "init", 5: "condition", 6: "step", 7: "result"}
            for part, item in _fields(value):
                if part in names:
                    node.loop[names[part]] = item.decode()
                elif part in parts:
                    node.loop[parts[part]] = _expr(item)
    return node


_PRIMITIVES = {1: "bool", 2: "int", 3: "uint", 4: "double", 5: "string", 6: "bytes"}
_WELL_KNOWN = {1: "dyn", 2: "timestamp", 3: "duration"}


def _type(data: bytes) -> tuple:
    """A cel.expr.Type as (kind, parameters...): ("list", element), ("opaque", name, parameters), ("int",)."""
    for number, value in _fields(data):
        if number == 3:
            return (_PRIMITIVES.get(value, "dyn"),)
        if number == 4:
            return (_PRIMITIVES.get(value, "dyn"),)  # a wrapper: the primitive or null
        if number == 5:
            return (_WELL_KNOWN.get(value, "dyn"),)
        if number == 6:
            element = next((_type(v) for n, v in _fields(value) if n == 1), ("dyn",))
            return "list", element
        if number == 7:
            parts = dict(_fields(value))
            return "map", _type(parts[1]) if 1 in parts else ("dyn",), _type(parts[2]) if 2 in parts else ("dyn",)
        if number == 9:
            return ("struct",)
        if number == 10:
            return ("typeparam",)
        if number == 14:
            parts = list(_fields(value))
            name = next((v.decode() for n, v in parts if n == 1), "")
            return ("opaque", name, *(_type(v) for n, v in parts if n == 2))
        if number == 2:
            return ("null",)
        if number == 11:
            return ("type",)
        if number == 12:
            return ("error",)
    return ("dyn",)


@dataclass
class Checked:
    expr: Expr
    overloads: dict  # expression id -> [overload id]
    types: dict  # expression id -> type tuple


def checked(serialized: bytes) -> Checked:
    """The checked AST of cel-cpp's `Expression.serialize()`."""
    message = next((value for number, value in _fields(serialized) if number == 2), serialized)  # Any.value
    overloads, types, expr = {}, {}, Expr()
    for number, value in _fields(message):
        if number in (2, 3):
            entry = dict(_fields(value))
            key = entry.get(1, 0)
            if number == 2:
                overloads[key] = [v.decode() for n, v in _fields(entry.get(2, b"")) if n == 3]
            else:
                types[key] = _type(entry.get(2, b""))
        elif number == 4:
            expr = _expr(value)
    return Checked(expr, overloads, types)


# --- the schema's CEL types and their sizes (pkg/cel/common/schemas.go, pkg/cel/limits.go)

@dataclass
class Decl:
    kind: str  # object, map, list, string, bytes, int, double, bool, duration, timestamp, dyn
    max_elements: int = 0
    min_size: int = 0
    fields: dict = field(default_factory=dict)
    element: Decl | None = None  # a list's items, a map's values


_KEY = Decl("string", 0, 2)  # a map's keys: apiservercel.StringType (no MaxElements)
_RESERVED = {"true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if",
             "import", "let", "loop", "package", "namespace", "return", "var", "void", "while"}
_ESCAPABLE = re.compile(r"[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*")
NAME_MAX = 253  # apimachinery DNS1123SubdomainMaxLength: metadata.name's cap (apiextensions model/schemas.go)


def escape(name: str) -> str | None:
    """A property's name as CEL sees it (k8s.io/apiserver/pkg/cel/escaping.go); None when it cannot be."""
    if name in _RESERVED:
        return f"__{name}__"
    if not _ESCAPABLE.fullmatch(name):
        return None
    return (name.replace("__", "__underscores__").replace(".", "__dot__").replace("-", "__dash__")
            .replace("/", "__slash__"))


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
    if (properties and typed("kind", "string") and typed("apiVersion", "string") and typed("metadata", "object")
            and inner and typed("name", "string", inner) and typed("generateName", "string", inner)):
        return schema

    def capped(existing, cap):
        given = bound(existing, "maxLength") if isinstance(existing, dict) else None
        return {"type": "string", "maxLength": cap if given is None or given >= cap else given}

    return {**schema, "properties": {
        **properties, "kind": {"type": "string"}, "apiVersion": {"type": "string"},
        "metadata": {"type": "object", "properties": {"name": capped(inner.get("name"), NAME_MAX),
                                                      "generateName": capped(inner.get("generateName"),
                                                                             NAME_MAX - 1)}}}}


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
        return Decl("list", most if most is not None else (MAX_REQUEST - 2) // (element.min_size + 1), 2,
                    element=element)
    if kind == "object":
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            element = decl(extra, bool(extra.get("x-kubernetes-embedded-resource")))
            if element is None:
                return None
            most = bound(schema, "maxProperties")
            return Decl("map", most if most is not None else (MAX_REQUEST - 2) // (element.min_size + 6), 2,
                        element=element)
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
    return {"boolean": Decl("bool", 0, 4), "number": Decl("double", 0, 1),
            "integer": Decl("int", 0, 1)}.get(kind)


def max_cardinality(least: int) -> int:
    """How many times a value of at least `least` bytes fits in one request (compilation.go maxCardinality)."""
    return MAX_REQUEST // (least + 1)


# --- the estimator (cel-go checker/cost.go)

_SCALARS = {"bool", "double", "duration", "int", "timestamp", "uint"}
_DECL_KINDS = {"object": ("struct",), "map": ("map", ("string",), ("dyn",)), "list": ("list", ("dyn",))}
_LIBRARY_ONE = {"sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan", "isLessThan", "compareTo",
                "add", "sub", "getScheme", "getHostname", "getHost", "getPort", "getEscapedPath", "getQuery",
                "allowed", "reason", "error", "errored", "serviceAccount", "path", "group", "resource",
                "subresource", "namespace", "name"}
_ACCUMULATORS = ("__result__", "@result")
_COMPARISONS = {f"{op}_{kind}" for op in ("less", "greater", "less_equals", "greater_equals")
                for kind in ("string", "bytes")} | {"equals", "not_equals"}


@dataclass
class _Local:
    path: list
    size: tuple | None
    entry: tuple | None  # (container kind, key size, value size)


@dataclass
class _Node:
    """cel-go's AstNode: an argument or target as call estimators see it."""

    path: list | None
    type: tuple
    expr: Expr | None
    size: tuple | None


class Estimator:
    """cel-go's coster over one checked rule whose `self` has the type `root` (a Decl)."""

    def __init__(self, ast: Checked, root: Decl):
        self.ast, self.root = ast, root
        self.paths: dict = {}
        self.sizes: dict = {}
        self.entries: dict = {}
        self.locals: dict = {}

    def estimate(self) -> tuple:
        return self.cost(self.ast.expr)

    # sizes and types by path: the CRD's sizeEstimator (compilation.go) and the schema's types

    def _decl(self, path) -> Decl | None:
        if not path:
            return None
        node = self.root
        for name in path[1:]:
            if name in ("@items", "@values"):
                node = node.element
            elif name == "@keys":
                node = _KEY if node.kind == "map" else None
            else:
                node = node.fields.get(name) if node.kind == "object" else None
            if node is None:
                return None
        return node

    def estimate_size(self, path) -> tuple | None:
        if not path or path[0] not in ("self", "oldSelf"):
            return None
        found = self._decl(path)
        return None if found is None else (0, found.max_elements)

    def type_of(self, e: Expr) -> tuple:
        path = self.path(e)
        found = self._decl(path) if path and path[0] in ("self", "oldSelf") else None
        if found is not None:
            if found.kind == "list":
                element = found.element
                return "list", _DECL_KINDS.get(element.kind, (element.kind,))
            return _DECL_KINDS.get(found.kind, (found.kind,))
        return self.ast.types.get(e.id, ("dyn",))

    def path(self, e: Expr) -> list:
        if e.kind == "ident" and self.locals.get(e.value):
            return list(self.locals[e.value][-1].path)
        return list(self.paths.get(e.id, []))

    def compute_size(self, e: Expr) -> tuple | None:
        if e.id in self.sizes:
            return self.sizes[e.id]
        literal = _literal_size(e)
        if literal is not None:
            return literal
        size = self.estimate_size(self.path(e))
        if size is not None:
            self.sizes[e.id] = size
            return size
        kind = self.type_of(e)
        if _is_scalar(kind):
            return 1, 1
        if e.kind == "ident" and self.locals.get(e.value) and self.locals[e.value][-1].size is not None:
            return self.locals[e.value][-1].size
        return None

    def size_or_unknown(self, node) -> tuple:
        size = node.size if isinstance(node, _Node) else self.compute_size(node)
        return UNKNOWN if size is None else size

    def entry_size(self, e: Expr):
        if e.id in self.entries:
            return self.entries[e.id]
        if e.kind == "ident" and self.locals.get(e.value):
            return self.locals[e.value][-1].entry
        return None

    def node(self, e: Expr) -> _Node:
        path = self.path(e)
        if path and path[0] in _ACCUMULATORS:
            path = None
        return _Node(path, self.type_of(e), e, self.compute_size(e))

    # the walk

    def cost(self, e: Expr | None) -> tuple:
        if e is None:
            return 0, 0
        if e.kind == "const":
            return 0, 0
        if e.kind == "ident":
            local = self.locals.get(e.value)
            self.paths[e.id] = list(local[-1].path) if local else [e.value]
            return 1, 1
        if e.kind == "select":
            if e.test_only:  # has(): presence tests cost nothing in the API server's environment
                return self.cost(e.operand)
            total = self.cost(e.operand)
            if self.type_of(e.operand)[0] in ("map", "struct", "typeparam"):
                total = _add(total, (1, 1))
            self.paths[e.id] = [*self.path(e.operand), e.value]
            return total
        if e.kind == "call":
            return self._call(e)
        if e.kind == "list":
            total, item = (0, 0), ((0 if not e.args else U64), 0)
            for element in e.args:
                total = _add(total, self.cost(element))
                item = _union(item, self.size_or_unknown(element))
            self.entries[e.id] = ("list", (1, 1), item)
            return _add(total, (10, 10))
        if e.kind == "map":
            total = (0, 0)
            keys, values = ((0, 0), (0, 0)) if not e.args else ((U64, 0), (U64, 0))
            for key, value in e.args:
                total = _add(_add(total, self.cost(key)), self.cost(value))
                keys = _union(keys, self.size_or_unknown(key) if key is not None else UNKNOWN)
                values = _union(values, self.size_or_unknown(value))
            self.entries[e.id] = ("map", keys, values)
            return _add(total, (30, 30))
        if e.kind == "struct":
            total = (0, 0)
            for _, value in e.args:
                total = _add(total, self.cost(value))
            return _add(total, (40, 40))
        if e.kind == "comprehension":
            return self._bind(e) if self._is_bind(e) else self._comprehension(e)
        return 0, 0

    def _push(self, name: str, path: list, size, entry=None) -> None:
        self.locals.setdefault(name, []).append(_Local(path, size, entry))

    def _pop(self, name: str) -> None:
        stack = self.locals.get(name)
        if stack:
            stack.pop()

    def _container(self, e: Expr, entry) -> str:
        return entry[0] if entry is not None else self.type_of(e)[0]

    def _comprehension(self, e: Expr) -> tuple:
        loop = e.loop
        rng, init = loop.get("range"), loop.get("init")
        total = _add(self.cost(rng), self.cost(init))
        self._push(loop.get("accu_var", ""), self.path(init) if init else [], self.compute_size(init) if init else None,
                   self.entry_size(init) if init else None)
        entry = self.entry_size(rng)
        container = self._container(rng, entry)
        if loop.get("iter_var2"):
            self._push(loop["iter_var"], [*self.path(rng), "@indices" if container == "list" else "@keys"],
                       entry[1] if entry else None)
            self._push(loop["iter_var2"], [*self.path(rng), "@items" if container == "list" else "@values"],
                       entry[2] if entry else None)
        elif container == "list":
            self._push(loop.get("iter_var", ""), [*self.path(rng), "@items"], entry[2] if entry else None)
        else:
            self._push(loop.get("iter_var", ""), [*self.path(rng), "@keys"], entry[1] if entry else None)
        condition, step = self.cost(loop.get("condition")), self.cost(loop.get("step"))
        self._pop(loop.get("iter_var", ""))
        if loop.get("iter_var2"):
            self._pop(loop["iter_var2"])
        total = _add(total, self.cost(loop.get("result")))
        self._pop(loop.get("accu_var", ""))
        count = self.size_or_unknown(rng)
        total = _add(total, _mul(count, _add(step, condition)))
        if init is not None:
            if init.kind == "const":
                size = self.compute_size(init)
                if size is not None:
                    self.sizes[e.id] = size
            elif init.kind in ("list", "map"):
                self.sizes[e.id] = count
                step_entry = self.entry_size(loop["step"]) if loop.get("step") else None
                if step_entry is not None:
                    self.entries[e.id] = step_entry
        return total

    def _is_bind(self, e: Expr) -> bool:
        loop = e.loop
        rng, condition = loop.get("range"), loop.get("condition")
        return (rng is not None and rng.kind == "list" and not rng.args and condition is not None
                and condition.kind == "const" and condition.value == ("bool", 0)
                and loop.get("accu_var") != "__result__")

    def _bind(self, e: Expr) -> tuple:
        loop = e.loop
        init = loop.get("init")
        total = _add(self.cost(loop.get("range")), self.cost(init))
        self._push(loop.get("accu_var", ""), self.path(init), self.compute_size(init), self.entry_size(init))
        total = _add(total, self.cost(loop.get("result")))
        self._pop(loop.get("accu_var", ""))
        self._copy_sizes(e, loop.get("result"))
        return total

    def _copy_sizes(self, target: Expr, source: Expr | None) -> None:
        if source is None:
            return
        size, entry = self.compute_size(source), self.entry_size(source)
        if size is not None:
            self.sizes[target.id] = size
        if entry is not None:
            self.entries[target.id] = entry

    def _call(self, e: Expr) -> tuple:
        if e.value == "dyn" and e.args:
            cost = self.cost(e.args[0])
            self._copy_sizes(e, e.args[0])
            return _add((1, 1), cost)
        costs = [self.cost(arg) for arg in e.args]
        nodes = [self.node(arg) for arg in e.args]
        ids = self._overloads(e, nodes)
        if not ids:
            return 0, 0
        total, target = (0, 0), None
        if e.operand is not None:
            total = self.cost(e.operand)
            target = self.node(e.operand)
        spent, result = (U64, 0), None
        for overload in ids:
            cost, size = self._function(e, overload, target, nodes, costs)
            spent = _union(spent, cost)
            if size is not None:
                result = size if result is None else _union(result, size)
            if overload in ("index_list", "index_map") and e.args:
                entry = self.entry_size(e.args[0])
                result = entry[2] if entry else None
                self.paths[e.id] = [*self.path(e.args[0]), "@items" if overload == "index_list" else "@values"]
            if result is None:
                result = self.compute_size(e)
        if result is not None:
            self.sizes[e.id] = result
        return _add(total, spent)

    def _overloads(self, e: Expr, nodes: list) -> list:
        """The overloads cel-cpp found possible, less those the schema's types rule out (cel-go, checking
        against the schema's types, finds only those)."""
        ids = list(self.ast.overloads.get(e.id, []))
        narrowed = [overload for overload in ids if _fits(overload, nodes)]
        return narrowed or ids

    def _function(self, e: Expr, overload: str, target, args: list, costs: list) -> tuple:
        """(cost, result size) of one overload (functionCost), its arguments' costs included."""
        argument_costs = (0, 0)
        for cost in costs:
            argument_costs = _add(argument_costs, cost)
        name = e.value
        if name in ("sets.contains", "sets.intersects", "sets.equivalent") and len(args) == 2:
            factor = 2 if name == "sets.equivalent" else 1
            cost = _add(_factor(_mul(self.size_or_unknown(args[0]), self.size_or_unknown(args[1])), factor), (1, 1))
            return _add(cost, argument_costs), None
        library = self._library(name, overload, target, args)
        if library is not None:
            cost, size = library
            return _add(cost, argument_costs), size
        if overload == "string_format" and target is not None:
            return _add(_factor(self.size_or_unknown(target), _STRING_TRAVERSAL), argument_costs), None
        if overload in ("starts_with_string", "ends_with_string") and len(args) == 1:
            return _add(_factor(self.size_or_unknown(args[0]), _STRING_TRAVERSAL), argument_costs), None
        if overload == "string_to_bytes" and len(args) == 1:
            size = self.size_or_unknown(args[0])
            return _add(_factor(size, _STRING_TRAVERSAL), argument_costs), (size[0], min(size[1] * 4, U64))
        if overload == "bytes_to_string" and len(args) == 1:
            size = self.size_or_unknown(args[0])
            return _add(_factor(size, _STRING_TRAVERSAL), argument_costs), (size[0] // 4, size[1])
        if overload == "in_list" and len(args) == 2:
            return _add(self.size_or_unknown(args[1]), argument_costs), None
        if overload == "matches_string" and target is not None and len(args) == 1:
            text = _factor(_add(self.size_or_unknown(target), (1, 1)), _STRING_TRAVERSAL)
            regex = _factor(self.size_or_unknown(args[0]), _REGEX_LENGTH)
            return _add(_mul(text, regex), argument_costs), None
        if overload == "contains_string" and target is not None and len(args) == 1:
            text = _factor(self.size_or_unknown(target), _STRING_TRAVERSAL)
            part = _factor(self.size_or_unknown(args[0]), _STRING_TRAVERSAL)
            return _add(_mul(text, part), argument_costs), None
        if overload in ("logical_and", "logical_or") and len(costs) == 2:
            return (costs[0][0], _add(costs[0], costs[1])[1]), None
        if overload == "conditional" and len(costs) == 3:
            size = _union(self.size_or_unknown(args[1]), self.size_or_unknown(args[2]))
            left, right = self.entry_size(e.args[1]), self.entry_size(e.args[2])
            if left is not None and right is not None:
                self.entries[e.id] = (left[0], _union(left[1], right[1]), _union(left[2], right[2]))
            return _add(costs[0], _union(costs[1], costs[2])), size
        if overload in ("add_string", "add_bytes", "add_list") and len(args) == 2:
            size = _add(self.size_or_unknown(args[0]), self.size_or_unknown(args[1]))
            left, right = self.entry_size(e.args[0]), self.entry_size(e.args[1])
            if left is not None and right is not None:
                self.entries[e.id] = (left[0], _union(left[1], right[1]), _union(left[2], right[2]))
            if overload == "add_list":
                return _add((1, 1), argument_costs), size
            return _add(_factor(size, _STRING_TRAVERSAL), argument_costs), size
        if overload in _COMPARISONS and len(args) == 2:
            left, right = self.size_or_unknown(args[0]), self.size_or_unknown(args[1])
            smallest = min(left[1], right[1])
            cost = _factor((1 if smallest > 0 else 0, smallest), _STRING_TRAVERSAL)
            return _add(cost, argument_costs), None
        return _add((1, 1), argument_costs), None

    def _library(self, name: str, overload: str, target, args: list):
        """Kubernetes' call costs (library/cost.go EstimateCallCost) for the functions trainc implements:
        (cost, result size), or None for cel-go's own."""
        if name == "check":
            return (350000, 350000), None
        if name in _LIBRARY_ONE:
            return (1, 1), None
        if name in ("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf") and target is not None:
            kind = target.type
            if kind[0] == "list" and len(kind) > 1:
                element = 1, 1
                if kind[1][0] in ("string", "bytes"):
                    path = [*target.path, "@items"] if target.path else None
                    size = self.estimate_size(path) or UNKNOWN
                    element = _add(element, _factor(size, _STRING_TRAVERSAL))
                return _mul(self.size_or_unknown(target), element), None
            return _factor(self.size_or_unknown(target), _STRING_TRAVERSAL), None
        if name == "url" and len(args) == 1:
            size = self.size_or_unknown(args[0])
            return _factor(size, _STRING_TRAVERSAL), size
        if name in ("lowerAscii", "upperAscii", "substring", "trim") and target is not None:
            size = self.size_or_unknown(target)
            return _factor(size, _STRING_TRAVERSAL), size
        if name == "replace" and target is not None and len(args) >= 2:
            return _replace(self.size_or_unknown(target), self.size_or_unknown(args[0]),
                            self.size_or_unknown(args[1]))
        if name == "split" and target is not None:
            size = self.size_or_unknown(target)
            most = size[1]
            if len(args) > 1 and args[1].expr is not None and args[1].expr.kind == "const" \
                    and args[1].expr.value[0] == "int":
                most = args[1].expr.value[1] % 2**64
            return _factor(size, 2 * _STRING_TRAVERSAL), (0, most)
        if name == "join" and target is not None:
            count, size = self.size_or_unknown(target), (0, 0)
            kind = target.type
            if kind[0] == "list" and len(kind) > 1:
                path = [*target.path, "@items"] if target.path else None
                size = _mul(count, self.estimate_size(path) or UNKNOWN)
            if args:
                separators = (max(count[0] - 1, 0), max(count[1] - 1, 0))
                size = _add(size, _mul(self.size_or_unknown(args[0]), separators))
            return _factor(size, _STRING_TRAVERSAL), size
        if name in ("find", "findAll") and target is not None and args:
            size = self.size_or_unknown(target)
            text = _factor(_add(size, (1, 1)), _STRING_TRAVERSAL)
            return _mul(text, _factor(self.size_or_unknown(args[0]), _REGEX_LENGTH)), (0, size[1])
        if name in ("quantity", "isQuantity", "isURL") and args:
            return _factor(self.size_or_unknown(args[0]), _STRING_TRAVERSAL), None
        return None


def _replace(size: tuple, old: tuple, new: tuple) -> tuple:
    """library/cost.go's replace: (cost, result size)."""
    count_max = retained_max = count_min = retained_min = 0
    if old[0] == 0:
        count_max = size[1] + 1 if size[1] < U64 else size[1]
        retained_max = size[1]
    elif new[1] <= old[0]:
        retained_max = size[1]
    else:
        count_max = math.ceil(size[1] / old[0])
    if old[1] == 0:
        count_min = size[0] + 1 if size[0] < U64 else size[0]
        retained_min = size[0]
    elif old[1] <= new[0]:
        retained_min = size[0]
    else:
        count_min = math.ceil(size[0] / old[1])
    result = _add(_mul((count_min, count_max), new), (retained_min, retained_max))
    return _factor(size, 2 * _STRING_TRAVERSAL), result


def _literal_size(e: Expr) -> tuple | None:
    """computeExprSize: a literal's size, a list or map literal's element count."""
    if e.kind == "const":
        kind, value = e.value
        if kind == "string":
            return len(value), len(value)
        if kind == "bytes":
            return len(value), len(value)
        if kind in ("bool", "double", "duration", "int", "timestamp", "uint", "null"):
            return 1, 1
        return None
    if e.kind in ("list", "map"):
        return len(e.args), len(e.args)
    return None


def _is_scalar(kind: tuple) -> bool:
    if kind[0] in _SCALARS:
        return True
    return kind[0] == "opaque" and kind[1] == "optional_type" and len(kind) > 2 and _is_scalar(kind[2])


_OPERAND_KINDS = {"string": "string", "bytes": "bytes", "list": "list", "map": "map", "int64": "int",
                  "uint64": "uint", "double": "double", "bool": "bool", "timestamp": "timestamp",
                  "duration": "duration"}


def _fits(overload: str, nodes: list) -> bool:
    """Whether an operator's overload (add_string, less_int64, index_map, in_list, ...) takes the operand kind
    the schema gives; True when either is unknown."""
    for prefix, operand in (("add_", 0), ("less_equals_", 0), ("greater_equals_", 0), ("less_", 0),
                            ("greater_", 0), ("index_", 0), ("in_", 1)):
        if overload.startswith(prefix):
            wanted = _OPERAND_KINDS.get(overload[len(prefix):].split("_")[0])
            if wanted is None or operand >= len(nodes):
                return True
            kind = nodes[operand].type[0]
            return kind in ("dyn", "typeparam", "error") or kind == wanted or (
                wanted in ("int", "uint", "double") and kind in ("int", "uint", "double"))
    return True


def rule_cost(program_bytes: bytes, root: Decl) -> int:
    """The estimated most cost of one compiled rule (cel.EstimateCost's Max) over `self` of type `root`."""
    return Estimator(checked(program_bytes), root).estimate()[1]
