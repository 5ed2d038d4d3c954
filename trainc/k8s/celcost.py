"""The estimated cost of a CRD validation rule, as the API server computes it when a CRD is written
(apiextensions' `validation.go`: `StaticEstimatedCostLimit` per rule, `StaticEstimatedCRDCostLimit` for the
whole schema): cel-go's checker cost estimator (`checker/cost.go`) with Kubernetes' call costs
(`k8s.io/apiserver/pkg/cel/library/cost.go`, cel-go's sets extension) and the sizes the schema allows
(`pkg/cel/common/schemas.go`: maxLength, maxItems, maxProperties, else what fits in a 3 MiB request).

The rule is compiled by cel-cpp (`celengine`, `self` and `oldSelf` dynamically typed); its checked AST is read
from the protobuf cel-cpp serializes (`celast`), and the types and sizes cel-go would know come from the
schema (`celschema`) by each expression's path, as cel-go's size estimator finds them. A rule trainc's CEL library cannot compile is not
estimated (the API server may know functions trainc lacks).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .celast import Checked, Expr, checked
from .celschema import KEY, Decl

U64 = 2**64 - 1
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


# --- the estimator (cel-go checker/cost.go)

_SCALARS = {"bool", "double", "duration", "int", "timestamp", "uint"}
_DECL_KINDS = {"object": ("struct",), "map": ("map", ("string",), ("dyn",)), "list": ("list", ("dyn",))}
_LIBRARY_ONE = {
    "sign",
    "asInteger",
    "isInteger",
    "asApproximateFloat",
    "isGreaterThan",
    "isLessThan",
    "compareTo",
    "add",
    "sub",
    "getScheme",
    "getHostname",
    "getHost",
    "getPort",
    "getEscapedPath",
    "getQuery",
    "allowed",
    "reason",
    "error",
    "errored",
    "serviceAccount",
    "path",
    "group",
    "resource",
    "subresource",
    "namespace",
    "name",
}
_ACCUMULATORS = ("__result__", "@result")
_COMPARISONS = {
    f"{op}_{kind}" for op in ("less", "greater", "less_equals", "greater_equals") for kind in ("string", "bytes")
} | {"equals", "not_equals"}


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
                node = KEY if node.kind == "map" else None
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
        self._push(
            loop.get("accu_var", ""),
            self.path(init) if init else [],
            self.compute_size(init) if init else None,
            self.entry_size(init) if init else None,
        )
        entry = self.entry_size(rng)
        container = self._container(rng, entry)
        if loop.get("iter_var2"):
            self._push(
                loop["iter_var"],
                [*self.path(rng), "@indices" if container == "list" else "@keys"],
                entry[1] if entry else None,
            )
            self._push(
                loop["iter_var2"],
                [*self.path(rng), "@items" if container == "list" else "@values"],
                entry[2] if entry else None,
            )
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
        return (
            rng is not None
            and rng.kind == "list"
            and not rng.args
            and condition is not None
            and condition.kind == "const"
            and condition.value == ("bool", 0)
            and loop.get("accu_var") != "__result__"
        )

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
            return _replace(self.size_or_unknown(target), self.size_or_unknown(args[0]), self.size_or_unknown(args[1]))
        if name == "split" and target is not None:
            size = self.size_or_unknown(target)
            most = size[1]
            if (
                len(args) > 1
                and args[1].expr is not None
                and args[1].expr.kind == "const"
                and args[1].expr.value[0] == "int"
            ):
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


_OPERAND_KINDS = {
    "string": "string",
    "bytes": "bytes",
    "list": "list",
    "map": "map",
    "int64": "int",
    "uint64": "uint",
    "double": "double",
    "bool": "bool",
    "timestamp": "timestamp",
    "duration": "duration",
}


def _fits(overload: str, nodes: list) -> bool:
    """Whether an operator's overload (add_string, less_int64, index_map, in_list, ...) takes the operand kind
    the schema gives; True when either is unknown."""
    for prefix, operand in (
        ("add_", 0),
        ("less_equals_", 0),
        ("greater_equals_", 0),
        ("less_", 0),
        ("greater_", 0),
        ("index_", 0),
        ("in_", 1),
    ):
        if overload.startswith(prefix):
            wanted = _OPERAND_KINDS.get(overload[len(prefix) :].split("_")[0])
            if wanted is None or operand >= len(nodes):
                return True
            kind = nodes[operand].type[0]
            return (
                kind in ("dyn", "typeparam", "error")
                or kind == wanted
                or (wanted in ("int", "uint", "double") and kind in ("int", "uint", "double"))
            )
    return True


def rule_cost(program_bytes: bytes, root: Decl) -> int:
    """The estimated most cost of one compiled rule (cel.EstimateCost's Max) over `self` of type `root`."""
    return Estimator(checked(program_bytes), root).estimate()[1]
