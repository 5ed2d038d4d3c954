"""House rules: `policies:` in the project config, checks a platform team wants without a cluster object.

    policies:
      - name: gpu-cap
        match: {kinds: [jobset.x-k8s.io/JobSet], namespaces: [team-a], labels: {tier: batch}}
        rule: "object.spec.replicatedJobs.all(j, ...)"   # CEL over `object`; true = allowed
        message: at most 8 GPUs per node

`kinds` are `Kind` (any group) or `group/Kind`, of rendered or passed-through objects; `namespaces` and
`labels` narrow the match. A rule that refuses, or fails at run time, is an error at the object's place.
A rule also reads `cost`: with the config's price table, what the TrainJob that rendered the object costs
(`hourly`, and `bounded` and `seconds` unless nothing bounds it, `currency`: `validation.cost`); else `{}`.
A cost cap: `has(cost.bounded) && cost.bounded <= 500.0`.
"""

from __future__ import annotations

import os

from .. import bounds
from ..errors import InputError, Origin, Record
from ..k8s.identity import group_version


class Rule(Record):
    name: str
    kinds: tuple  # ((group or None, kind), ...)
    namespaces: tuple | None
    labels: dict
    expression: str
    program: object
    message: str


def load(paths, limit: int | None = None) -> tuple[list[Rule], list[InputError]]:
    """The house rules of the project configs at `paths` (outermost first: a nested config adds rules, never
    drops the platform's), or of the one at `paths` when it is a path (none without one); read within `limit`
    bytes each (the run's bound)."""
    if paths is None:
        return [], []
    if isinstance(paths, str):
        paths = [paths]
    rules, errors = [], []
    for path in paths:
        found = _load(path, limit)
        rules += found[0]
        errors += found[1]
    return rules, errors


def _load(path: str, limit: int | None = None) -> tuple[list[Rule], list[InputError]]:
    from ..formats import projectconfig as config

    if os.path.basename(path) == config.FILE:
        raw, origin, where = config._yaml(path, limit)
    else:
        raw, origin = config._toml(path)["tool"]["trainc"], Origin(os.path.relpath(path))
        where = config._toml_locator(path)
    found = raw.get("policies") if isinstance(raw, dict) else None
    if found is None:
        return [], []
    rules, errors = [], []
    if not isinstance(found, list):
        return [], [
            InputError(
                origin, ("policies",), "must be a list of {name, match, rule, message}", mark=where(("policies",))
            )
        ]
    for index, item in enumerate(found):
        try:
            rules.append(_rule(item, index))
        except _Bad as bad:
            errors.append(InputError(origin, ("policies", index, *bad.path), bad.message, mark=where(("policies",))))
    return rules, errors


class _Bad(Exception):
    def __init__(self, path, message):
        super().__init__(message)
        self.path, self.message = path, message


def _text(item: dict, key: str, required: bool = True) -> str | None:
    value = item.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise _Bad((key,), "must be a non-empty string")
    return value


def _rule(item, index: int) -> Rule:
    if not isinstance(item, dict):
        raise _Bad((), "must be an object with name, match, rule and message")
    unknown = sorted(set(item) - {"name", "match", "rule", "message"})
    if unknown:
        raise _Bad((unknown[0],), "unknown field (known: name, match, rule, message)")
    name, expression = _text(item, "name"), _text(item, "rule")
    match = item.get("match")
    if not isinstance(match, dict) or not isinstance(match.get("kinds"), list) or not match["kinds"]:
        raise _Bad(("match", "kinds"), "must be a non-empty list of Kind or group/Kind")
    kinds = []
    for position, text in enumerate(match["kinds"]):
        if not isinstance(text, str) or not text:
            raise _Bad(("match", "kinds", position), "must be a Kind or group/Kind")
        group, slash, kind = text.rpartition("/")
        kinds.append((group if slash else None, kind))
    namespaces = match.get("namespaces")
    if namespaces is not None and not (isinstance(namespaces, list) and all(isinstance(n, str) for n in namespaces)):
        raise _Bad(("match", "namespaces"), "must be a list of namespaces")
    labels = match.get("labels") or {}
    if not isinstance(labels, dict) or not all(isinstance(v, str) for v in labels.values()):
        raise _Bad(("match", "labels"), "must map label keys to values")
    from ..k8s import celengine

    bounds.supervise()  # the repository's own program, in native code: under the supervisor from here
    try:
        program = celengine.compile(expression, ("object", "cost"))
    except celengine.CompileError as exc:
        raise _Bad(("rule",), f"compilation failed: {exc}") from None
    message = _text(item, "message", required=False) or f"failed rule: {expression.strip()}"
    return Rule(
        name, tuple(kinds), None if namespaces is None else tuple(namespaces), labels, expression, program, message
    )


def check(rules: list[Rule], obj: dict, namespace: str, label: str, origin, path, errors: list, bound=None) -> None:
    """Add an error for each rule that takes `obj` (in `namespace`, "" when cluster-scoped) and refuses it;
    `bound()`: the CEL binding of `obj` as `object` and its TrainJob's cost as `cost` (the admission's, which its
    policies read too), else `obj` with no cost."""
    from ..k8s import celengine

    group = group_version(obj.get("apiVersion") or "")[0]
    kind = obj.get("kind")
    labels = (obj.get("metadata") or {}).get("labels") or {}
    if bound is None:
        bound = lambda: celengine.bind({"object": obj, "cost": {}})  # noqa: E731 - bound when a rule takes it
    data = None  # the object converted to CEL values once, for every rule that takes it
    for rule in rules:
        if not any(k == kind and g in (None, group) for g, k in rule.kinds):
            continue
        if rule.namespaces is not None and namespace not in rule.namespaces:
            continue
        if any(labels.get(key) != value for key, value in rule.labels.items()):
            continue
        bounds.doing(f"house rule '{rule.name}' on {label}")
        if data is None:
            data = bound()
        try:
            allowed = celengine.evaluate(rule.program, data)
        except celengine.EvalError as exc:
            message = celengine.failure(rule.expression.strip(), exc)
        else:
            if allowed is True:
                continue
            message = rule.message
        errors.append(InputError(origin, path, f"{label}: house rule '{rule.name}' denied: {message}"))
