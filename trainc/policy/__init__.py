"""Admission policies, evaluated offline after a build against every rendered and passed-through object:
ValidatingAdmissionPolicies with their bindings (`vap.py`; from the inputs or `--policies PATH`) and the
project config's house rules (`house.py`).

This module stays light: a build with no policy anywhere returns before importing either.
"""

from __future__ import annotations

from ..errors import Notice

_GROUP = "admissionregistration.k8s.io/"
_KINDS = ("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding")


def is_policy(obj) -> bool:
    return (isinstance(obj, dict) and obj.get("kind") in _KINDS and isinstance(obj.get("apiVersion"), str)
            and obj["apiVersion"].startswith(_GROUP))


def check(output, *, namespace: str = "default", old=None, paths=(), house_rules=None, config: str | None = None,
          reader=None) -> tuple[list, list[Notice]]:
    """(errors, notices) of the policies' verdicts on `output` (a build.Output): denials and bad policy input are
    the errors. `old` ({vap.identity: object} as the cluster holds it before the update) makes objects with a
    previous version UPDATEs; `house_rules` are given by tests, else read from the project config `config` (the
    one the run's settings were read from, `trainc.settings`); `paths` (--policies) are read by `reader`, the
    run's."""
    from . import house

    rules, errors = (list(house_rules), []) if house_rules is not None else house.load(config)
    inputs = [*output.others, *output.uncompiled]
    extra = _read(paths, errors, reader) if paths else []
    if not rules and not extra and not any(is_policy(obj) for _, obj in inputs) and not errors:
        return [], []
    from . import vap

    everything = [obj for _, obj in (*inputs, *extra) if isinstance(obj, dict)]
    bindings, problems = vap.load([*inputs, *extra], [*inputs, *extra])
    errors += problems
    if errors:
        return errors, []
    admission = vap.Admission(bindings, everything, namespace, rules)
    old = old or {}
    outcome = vap.Outcome()
    for trainjob, objects in output.jobs:
        for obj in objects:
            admission.admit(vap.Subject(obj, trainjob.origin, (), old.get(vap.identity(obj, namespace))), outcome)
    for origin, obj in inputs:
        if isinstance(obj, dict):
            admission.admit(vap.Subject(obj, origin, (), old.get(vap.identity(obj, namespace))), outcome)
    return outcome.errors, outcome.notices


def identity(obj, namespace: str) -> tuple | None:
    """The key `check`'s `old` is indexed by; None for an object no update can replace (no string apiVersion,
    kind or name: a previous version kubectl apply would not have taken)."""
    from . import vap

    metadata = obj.get("metadata") if isinstance(obj, dict) else None
    if not (isinstance(metadata, dict) and all(isinstance(value, str) for value in (
            obj.get("apiVersion"), obj.get("kind"), metadata.get("name"), metadata.get("namespace") or ""))):
        return None
    return vap.identity(obj, namespace)


def _read(paths, errors: list, reader) -> list:
    """(origin, object) of every object under `paths`, read by the one input rule (`inputs`): policies,
    bindings and their params; none of them passes through."""
    from .. import inputs

    return (reader or inputs.Reader()).documents(inputs.listed(list(paths)), errors)
