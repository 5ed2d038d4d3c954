"""The estimated cost of the validation rules of the CustomResourceDefinitions among the inputs, refused as
the API server refuses the CRD when it is written (apiextensions `pkg/apis/apiextensions/validation`:
`validation.go` and `cel_validation.go`), so that a repository learns it before kubectl apply or an Argo CD
sync does.

Per schema version: each rule's estimated cost (`k8s/celcost.py`, over `k8s/celschema.py`'s sizes) times how
many times the rule's value can occur in one object (the product of maxItems / maxProperties above it, else
what fits in a 3 MiB request) must not pass `StaticEstimatedCostLimit`, nor a messageExpression's own
estimate; the sum over the schema must not pass `StaticEstimatedCRDCostLimit`. Messages are the API
server's.
"""

from __future__ import annotations

from .. import bounds
from ..errors import InputError
from ..k8s import celcost, celschema

RULE_LIMIT = 10_000_000  # StaticEstimatedCostLimit
CRD_LIMIT = 100_000_000  # StaticEstimatedCRDCostLimit
_HINT = (
    "(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and "
    "strings are declared)"
)


def is_crd_with_rules(obj) -> bool:
    return (
        isinstance(obj, dict)
        and obj.get("kind") == "CustomResourceDefinition"
        and str(obj.get("apiVersion", "")).startswith("apiextensions.k8s.io/")
        and "x-kubernetes-validations" in repr(obj.get("spec"))
    )


def check(origin, crd: dict, old: dict | None = None) -> list[InputError]:
    """The API server's refusals of `crd` for its rules' estimated cost; on an update of `old`, a version whose
    schema is unchanged is held to the schema's total only (suppressExpressionCostForUnchangedSchema)."""
    errors, before = [], {name: schema for _, name, schema in _schemas(old)} if isinstance(old, dict) else {}
    for index, name, schema in _schemas(crd):
        unchanged = name is not None and before.get(name) == schema
        errors += _version(origin, ("spec", "versions", index, "schema", "openAPIV3Schema"), schema, unchanged)
    return errors


def _schemas(crd: dict):
    """(index, name, openAPIV3Schema) of each version of `crd` that has one."""
    spec = crd.get("spec")
    versions = spec.get("versions") if isinstance(spec, dict) else None
    for index, version in enumerate(versions if isinstance(versions, list) else []):
        schema = version.get("schema") if isinstance(version, dict) else None
        schema = schema.get("openAPIV3Schema") if isinstance(schema, dict) else None
        if isinstance(schema, dict):
            name = version.get("name")
            yield index, name if isinstance(name, str) else None, schema


def message(name: str, cost: int, limit: int) -> str:
    """getCostErrorMessage."""
    factor = cost / limit
    shown = "more than 100x" if factor > 100 else f"{factor:f}x" if factor < 1.5 else f"{factor:.1f}x"
    return f"Forbidden: {name} exceeds budget by factor of {shown} {_HINT}"


class _Total:
    """TotalCost: the schema's sum, and its most expensive rules (at least 1% of the limit, four at most)."""

    def __init__(self):
        self.total, self.expensive = 0, []

    def observe(self, path: tuple, cost: int) -> None:
        self.total = min(self.total + cost, celcost.U64)
        if cost >= CRD_LIMIT // 100:
            self.expensive = sorted([*self.expensive, (cost, path)], key=lambda item: -item[0])[:4]


def _version(origin, at: tuple, schema: dict, unchanged: bool) -> list[InputError]:
    errors, total = [], _Total()
    _walk(origin, at, schema, None, False, 1, total, errors, root=True)
    if unchanged:
        errors = []
    if total.total > CRD_LIMIT:
        for _, path in total.expensive:
            errors.append(
                InputError(
                    origin,
                    path,
                    "Forbidden: contributed to estimated rule cost total exceeding "
                    "cost limit for entire OpenAPIv3 schema",
                )
            )
        errors.append(
            InputError(
                origin,
                at,
                message(
                    "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
                    total.total,
                    CRD_LIMIT,
                ),
            )
        )
    return errors


def _most(schema: dict) -> int | None:
    """extractMaxElements: how many values a child of `schema` has per value of it (None: unbounded)."""
    kind = schema.get("type")
    if kind == "object" and "additionalProperties" in schema:
        return celschema.bound(schema, "maxProperties")
    if kind == "array":
        return celschema.bound(schema, "maxItems")
    return 1


def _walk(origin, at, schema, decl, in_scope, cardinality, total, errors, root=False) -> None:
    """One schema node (CELSchemaContext): its rules, then its properties, additionalProperties and items.
    `decl` is its CEL type as its parent's type holds it (None: converted from itself), `cardinality` None when
    unbounded."""
    rules = schema.get("x-kubernetes-validations")
    in_scope = in_scope or bool(rules)
    if in_scope and decl is None:
        decl = celschema.decl(schema, root or bool(schema.get("x-kubernetes-embedded-resource")))
    if isinstance(rules, list) and rules and decl is not None:
        times = cardinality if cardinality is not None else celschema.max_cardinality(decl.min_size)
        for index, rule in enumerate(rules):
            if not isinstance(rule, dict):
                continue
            where = (*at, "x-kubernetes-validations", index)
            for key, scaled in (("rule", True), ("messageExpression", False)):
                cost = _cost(rule.get(key), decl)
                if cost is None:
                    break  # a rule that does not compile: its messageExpression is not compiled either
                if scaled:
                    cost = 0 if cost == 0 else min(cost * times, celcost.U64)
                if cost > RULE_LIMIT:
                    name = "estimated rule cost" if scaled else "estimated messageExpression cost"
                    errors.append(InputError(origin, (*where, key), message(name, cost, RULE_LIMIT)))
                total.observe((*where, key), cost)
    most = _most(schema)
    child_cardinality = None if cardinality is None or most is None else min(cardinality * most, celcost.U64)
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for name in sorted(properties):
            prop = properties[name]
            if isinstance(prop, dict):
                escaped = celschema.escape(name)
                inner = decl.fields.get(escaped) if in_scope and decl is not None and decl.kind == "object" else None
                _walk(origin, (*at, "properties", name), prop, inner, in_scope, child_cardinality, total, errors)
    for key in ("additionalProperties", "items"):
        child = schema.get(key)
        if isinstance(child, dict):
            inner = decl.element if in_scope and decl is not None and decl.kind in ("map", "list") else None
            _walk(origin, (*at, key), child, inner, in_scope, child_cardinality, total, errors)


def _cost(text, decl) -> int | None:
    """A rule's estimated most cost over values of type `decl`; None for one trainc's CEL library cannot
    compile (the API server reports those itself) or no rule."""
    if not isinstance(text, str) or not text.strip():
        return None
    from ..k8s import celengine

    bounds.supervise()  # the repository's own program, in native code: under the supervisor from here
    try:
        serialized = celengine.checked_ast(text, ("self", "oldSelf"))
    except celengine.CompileError:
        return None
    return celcost.rule_cost(serialized, decl)
