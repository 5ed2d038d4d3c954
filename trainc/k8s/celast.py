"""The checked AST of a CEL expression as cel-cpp hands it over: `Expression.serialize()` is a
cel.expr.CheckedExpr (in an Any), read here from the protobuf wire format (no protobuf runtime needed):
each expression node, the overloads the checker found possible for each call, and each node's type.
`celcost` estimates a rule's cost over it as cel-go's checker does over its own AST.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field


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
            value, at = data[at : at + 8], at + 8
        elif wire == 2:
            length, at = _varint(data, at)
            value, at = data[at : at + length], at + length
        elif wire == 5:
            value, at = data[at : at + 4], at + 4
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


_CONSTANTS = {
    1: "null",
    2: "bool",
    3: "int",
    4: "uint",
    5: "double",
    6: "string",
    7: "bytes",
    8: "duration",
    9: "timestamp",
}


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
