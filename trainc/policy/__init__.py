"""Admission policies, evaluated offline after a build against every rendered and passed-through object:
ValidatingAdmissionPolicies with their bindings (`vap.py`; from the inputs or `--policies PATH`) and the
project config's house rules (`house.py`).

This module stays light: a build with no policy anywhere returns before importing either.
"""

from __future__ import annotations

from ..errors import Notice
from ..k8s import identity as resid
from ..k8s.identity import is_policy

NOBODY = ("", ())  # no identity given: an empty request.userInfo


def impersonated(user: str | None, groups=()) -> tuple[str, tuple]:
    """Who applies the objects (--as, --as-group, the config, the route), as request.userInfo and whom
    authorizer checks ask about: the user info the API server makes of kubectl's impersonation."""
    if not user:
        return NOBODY
    from ..k8s.celauthz import impersonated as made

    return made(user, groups)


def check(
    output,
    *,
    namespace: str = "default",
    old=None,
    paths=(),
    house_rules=None,
    config: str | None = None,
    reader=None,
    user=NOBODY,
    costs=None,
    currency: str | None = None,
    workers: int = 1,
) -> tuple[list, list[Notice]]:
    """(errors, notices) of the policies' verdicts on `output` (a build.Output): denials and bad policy input are
    the errors, after what the API server refuses of the CRDs among the inputs for their rules' estimated cost
    (`crdrules`). `old` ({identity: object} as the cluster holds it before the update) makes objects with a
    previous version UPDATEs; `house_rules` are given by tests, else read from the project configs `config` (those
    the run's settings were read from, outermost first, `trainc.settings`); `paths` (--policies) are read by `reader`, the
    run's. `costs` ({(namespace, name): validation.cost.Cost} in `currency`) are what house rules and policies read
    as the `cost` of the objects each TrainJob renders. A large admission is spread over up to `workers` processes
    (`spread`: the same verdicts in the same order)."""
    refused = []
    for origin, obj in [*output.others, *output.uncompiled]:
        if isinstance(obj, dict) and obj.get("kind") == "CustomResourceDefinition":
            from . import crdrules

            if crdrules.is_crd_with_rules(obj):
                refused += crdrules.check(origin, obj, (old or {}).get(identity(obj, namespace)))
    errors, notices = _policies(
        output,
        namespace=namespace,
        old=old,
        paths=paths,
        house_rules=house_rules,
        config=config,
        reader=reader,
        user=user,
        costs=costs,
        currency=currency,
        workers=workers,
    )
    return refused + errors, notices


def _policies(
    output, *, namespace, old, paths, house_rules, config, reader, user, costs, currency, workers
) -> tuple[list, list[Notice]]:
    """`check`'s ValidatingAdmissionPolicies and house rules."""
    limit = reader.budget.limit if reader is not None else None
    rules, errors = (
        (list(house_rules), [])
        if house_rules is not None
        else ([], [])
        if config is None
        else _house_rules(config, limit)
    )
    inputs = [
        (origin, obj) for origin, obj in (*output.others, *output.uncompiled) if identity(obj, namespace) is not None
    ]
    extra = [
        (origin, obj)
        for origin, obj in (_read(paths, errors, reader) if paths else [])
        if identity(obj, namespace) is not None
    ]
    if not rules and not extra and not any(is_policy(obj) for _, obj in inputs) and not errors:
        return [], []
    from . import vap

    everything = [obj for _, obj in (*inputs, *extra)]
    bindings, problems = vap.load([*inputs, *extra], [*inputs, *extra])
    errors += problems
    if errors:
        return errors, []
    from . import spread

    admission = vap.Admission(bindings, everything, namespace, rules, user)
    old = old or {}
    units = []  # (origin, objects, cost): each TrainJob's rendered objects, then each input object
    for trainjob, objects in output.jobs:
        priced = (costs or {}).get((trainjob.namespace, trainjob.name))
        units.append((trainjob.origin, objects, None if priced is None else priced.cel(currency)))
    units += [(origin, (obj,), None) for origin, obj in inputs]

    def subjects(unit):
        origin, objects, cost = unit
        return (vap.Subject(obj, origin, (), old.get(resid.identity(obj, namespace)), cost) for obj in objects)

    outcome = vap.Outcome()
    try:
        spread.admit(admission, units, subjects, workers, outcome)
    finally:
        outcome.notices += admission.notices()
    return outcome.errors, outcome.notices


def _house_rules(config, limit: int | None) -> tuple[list, list]:
    """The project config's house rules (imported only when a config is there to hold them)."""
    from . import house

    return house.load(config, limit)


def identity(obj, namespace: str) -> tuple | None:
    """The key `check`'s `old` is indexed by; None for an object kubectl apply would not send (no string apiVersion,
    kind or name, no metadata mapping): the admission chain never sees it, and the output set reports it."""
    metadata = obj.get("metadata") if isinstance(obj, dict) else None
    if not (
        isinstance(metadata, dict)
        and all(
            isinstance(value, str)
            for value in (obj.get("apiVersion"), obj.get("kind"), metadata.get("name"), metadata.get("namespace") or "")
        )
    ):
        return None
    return resid.identity(obj, namespace)


def _read(paths, errors: list, reader) -> list:
    """(origin, object) of every object under `paths`, read by the one input rule (`inputs`): policies,
    bindings and their params; none of them passes through."""
    from .. import inputs

    reader = reader or inputs.Reader()
    return reader.documents(reader.listed(list(paths)), errors)
