"""Admission policies, evaluated offline after a build against every rendered and passed-through object:
ValidatingAdmissionPolicies with their bindings (`vap.py`; from the inputs or `--policies PATH`) and the
project config's house rules (`house.py`).

This module stays light: a build with no policy anywhere returns before importing either.
"""

from __future__ import annotations

from ..errors import InputErrors, Notice

_GROUP = "admissionregistration.k8s.io/"
_KINDS = ("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding")


def is_policy(obj) -> bool:
    return (isinstance(obj, dict) and obj.get("kind") in _KINDS and isinstance(obj.get("apiVersion"), str)
            and obj["apiVersion"].startswith(_GROUP))


def check(output, *, namespace: str = "default", previous=None, paths=(), house_rules=None,
          config=None) -> list[Notice]:
    """Warnings and notices of the policies' verdicts on `output` (a build.Output); raises InputErrors for
    denials and bad policy input. `previous` (validation.Previous) makes objects with a previous version
    UPDATEs; `house_rules` are given by tests, else read from the project configs `config` (those the
    command's settings were read from, `trainc.settings`)."""
    from . import house

    rules, errors = (house_rules, []) if house_rules is not None else house.load(config)
    inputs = [*output.others, *output.uncompiled]
    extra = _read(paths, errors) if paths else []
    if not rules and not extra and not any(is_policy(obj) for _, obj in inputs) and not errors:
        return []
    from . import vap

    everything = [obj for _, obj in (*inputs, *extra) if isinstance(obj, dict)]
    bindings, problems = vap.load([*inputs, *extra], [*inputs, *extra])
    errors += problems
    if errors:
        raise InputErrors(errors, notices=output.notices)
    admission = vap.Admission(bindings, everything, namespace, rules)
    old = _previous_objects(previous, namespace) if previous is not None else {}
    outcome = vap.Outcome()
    for trainjob, objects in output.jobs:
        for obj in objects:
            admission.admit(vap.Subject(obj, trainjob.origin, (), old.get(vap.identity(obj, namespace))), outcome)
    for origin, obj in inputs:
        if isinstance(obj, dict):
            admission.admit(vap.Subject(obj, origin, (), old.get(vap.identity(obj, namespace))), outcome)
    if outcome.errors:
        raise InputErrors(outcome.errors, notices=[*output.notices, *outcome.notices])
    return outcome.notices


def _read(paths, errors: list) -> list:
    """(origin, object) of every object under `paths`, read by the one input rule (`inputs`): policies,
    bindings and their params; none of them passes through."""
    from .. import inputs

    return inputs.Reader().documents(inputs.listed(list(paths)), errors)


def _previous_objects(previous, namespace: str) -> dict:
    """identity -> the object as the cluster holds it before the update: passed-through objects as they were,
    and the objects the previous TrainJobs compile to (none for one that no longer compiles)."""
    from .. import build
    from ..errors import TraincError
    from . import vap

    found = {vap.identity(obj, namespace): obj for _, obj in (*previous.others, *previous.uncompiled)
             if isinstance(obj, dict)}
    trainjobs = [obj for obj in previous.objects.values() if obj.kind == "TrainJob"]
    for trainjob in trainjobs:
        try:
            compiled = build.build_parsed([trainjob], previous.runtimes_then([]), namespace=namespace,
                                          ssh_key_seed=bytes(32))
        except TraincError:
            continue
        for obj in compiled.documents():
            found[vap.identity(obj, namespace)] = obj
    return found
