"""[JS] What the JobSet webhook refuses in the JobSet trainc compiled (sigs.k8s.io/jobset ValidateCreate).

Upstream's controller creates the JobSet and only then learns that the JobSet
webhook refuses it; trainc checks the names and sizes that webhook derives
from the compiled JobSet, after its defaulting (completionMode Indexed):

- `replicas × parallelism` of a replicated job must fit an int32;
- its groupName must be a DNS-1035 label;
- the names of the Jobs (`<jobset>-<rjob>-<index>`) and Pods
  (`<jobset>-<rjob>-<index>-<pod>-<5 chars>`) it generates must be DNS-1035
  labels, i.e. at most 63 characters: long TrainJob names or many nodes break it;
- `network.subdomain` must be a DNS-1123 subdomain and a DNS-1035 label;
- the runtime's references between replicated jobs: no dependsOn on the first
  job, else only on earlier jobs or itself (the webhook allows that); success and
  failure policy targets must exist; failure policy rule names (an empty one is defaulted to
  `failurePolicyRule<i>`) of the webhook's format, at most 128 characters and
  unique; onJobFailureReasons among the Job failure reasons.

- `managedBy` must be a domain-prefixed path of at most 63 characters;
- with the webhook's default feature gates, `failurePolicy.restartStrategy:
  InPlaceRestart` and the `RestartJob` / `RestartJobAndIgnoreMaxRestarts`
  actions are refused;
- a coordinator must name an existing replicated job, a job and pod index
  inside it, and give a valid label value `<jobset>-<rjob>-<job>-<pod>.<subdomain>`;
- volume claim policy templates: unique DNS-1123 names, a PVC name
  `<template>-<jobset>` of at most 63 characters, no pod volume of that name,
  and a container mounting it. Whether a PVC of that name already exists (and
  matches) needs the cluster, so trainc does not check it.

Errors point at what to change: the TrainJob's name (the part a user usually
shortens) when a generated name is too long, else the runtime.
"""

from __future__ import annotations

import re

from ..compiler.admission import error
from ..compiler.ir import Unit, job_spec, pod_spec
from ..errors import InputError
from ..k8s.names import DNS1035_LABEL
from ..trainer.api import DNS_SUBDOMAIN
from .base import domain_prefixed_path

MAX_INT32 = 2**31 - 1
JOB_FAILURE_REASONS = (
    "BackoffLimitExceeded",
    "DeadlineExceeded",
    "FailedIndexes",
    "MaxFailedIndexesExceeded",
    "PodFailurePolicy",
)
_RULE_NAME = r"[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?"  # these two compiled on first use
_DNS1123_SUBDOMAIN = re.compile(DNS_SUBDOMAIN)
_LABEL_VALUE = r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
RESTART_JOB_ACTIONS = ("RestartJob", "RestartJobAndIgnoreMaxRestarts")
_DNS1035_FORMAT = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character"
)


def _dns1035(value: str, too_long: str) -> str | None:
    """apimachinery's IsDNS1035Label, with the webhook's own message for the length."""
    if len(value) > 63:
        return too_long
    return None if DNS1035_LABEL.fullmatch(value) else _DNS1035_FORMAT


def check(unit: Unit) -> list[InputError]:
    trainjob, runtime, name = unit.trainjob.origin, unit.runtime.origin, unit.name
    at = ("spec", "template", "spec")
    found = []
    for index, rjob in enumerate(unit.replicated_jobs):
        job = job_spec(rjob)
        replicas, parallelism = rjob.get("replicas", 1), job.get("parallelism", 1)
        where = f"the JobSet webhook refuses replicated job {rjob['name']!r}"
        if replicas * parallelism > MAX_INT32:
            message = f"{where}: the product of replicas and parallelism must not exceed {MAX_INT32}"
            # parallelism alone fits an int32 (the CRDs bound it), so the runtime's replicas multiply past it
            found.append(error(runtime, at + ("replicatedJobs", index, "replicas"), message))
        group = rjob.get("groupName", "default")
        problem = _dns1035(group, "groupName is too long, must be less than 63 characters")
        if problem:
            message = f"{where}: groupName {group!r}: {problem}"
            found.append(error(runtime, at + ("replicatedJobs", index, "groupName"), message))
        names = [("Job", f"{name}-{rjob['name']}-{replicas - 1}", "job")]
        if job.get("completionMode", "Indexed") == "Indexed" and job.get("completions") is not None:
            names.append(("Pod", f"{names[0][1]}-{job['completions'] - 1}-abcde", "pod"))
        for kind, generated, noun in names:
            problem = _dns1035(
                generated, f"JobSet name is too long, {noun} names generated for this JobSet will exceed 63 characters"
            )
            if problem == _DNS1035_FORMAT:  # TrainJob names are DNS-1035 labels: the replicated job's name is not
                found.append(
                    error(
                        runtime,
                        at + ("replicatedJobs", index, "name"),
                        f"{where}: {kind} name {generated!r}: {problem}",
                    )
                )
                break
            if problem:
                found.append(error(trainjob, ("metadata", "name"), f"{where}: {kind} name {generated!r}: {problem}"))
                break
    subdomain = (unit.jobset.get("network") or {}).get("subdomain")
    if subdomain and not (
        len(subdomain) <= 63 and _DNS1123_SUBDOMAIN.fullmatch(subdomain) and DNS1035_LABEL.fullmatch(subdomain)
    ):
        message = f"the JobSet webhook refuses network.subdomain {subdomain!r}: it must be a DNS-1035 label"
        found.append(error(runtime, at + ("network", "subdomain"), message))
    return found + _references(unit) + _policies(unit) + _coordinator(unit) + _volume_claims(unit)


def _references(unit: Unit) -> list[InputError]:
    """dependsOn, success and failure policy targets, failure policy rules (at the runtime)."""
    origin, spec = unit.runtime.origin, unit.jobset
    at = ("spec", "template", "spec")
    found, seen = [], []
    for index, rjob in enumerate(unit.replicated_jobs):
        seen.append(rjob["name"])  # the webhook adds a job's own name before checking its dependsOn
        for depends in rjob.get("dependsOn") or ():
            if index == 0 or depends.get("name") not in seen:
                message = (
                    f"the JobSet webhook refuses replicated job {rjob['name']!r} depending on "
                    f"{depends.get('name')!r}: only on an earlier replicated job"
                )
                found.append(error(origin, at + ("replicatedJobs", index, "dependsOn"), message))
    targets = [
        (("successPolicy", "targetReplicatedJobs"), name)
        for name in (spec.get("successPolicy") or {}).get("targetReplicatedJobs") or ()
    ]
    rules = (spec.get("failurePolicy") or {}).get("rules") or ()
    names: dict = {}
    for index, rule in enumerate(rules):
        path = ("failurePolicy", "rules", index)
        name = rule.get("name") or f"failurePolicyRule{index}"
        names.setdefault(name, []).append(index)
        if len(name) > 128 or not re.fullmatch(_RULE_NAME, name):
            message = (
                f"the JobSet webhook refuses the failure policy rule name {name!r}: at most 128 characters, "
                "a letter, then letters, digits or '_,:', ending with a letter, digit or '_'"
            )
            found.append(error(origin, at + path + ("name",), message))
        targets += [(path + ("targetReplicatedJobs",), target) for target in rule.get("targetReplicatedJobs") or ()]
        for reason in rule.get("onJobFailureReasons") or ():
            if reason not in JOB_FAILURE_REASONS:
                message = f"the JobSet webhook refuses the job failure reason {reason!r}: not one of " + ", ".join(
                    JOB_FAILURE_REASONS
                )
                found.append(error(origin, at + path + ("onJobFailureReasons",), message))
    found += [
        error(origin, at + path, f"the JobSet webhook refuses {name!r}: no such replicated job")
        for path, name in targets
        if name not in seen
    ]
    found += [
        error(
            origin,
            at + ("failurePolicy", "rules"),
            f"the JobSet webhook refuses rules {indexes} all named {name!r}: rule names must be unique",
        )
        for name, indexes in names.items()
        if len(indexes) > 1
    ]
    return found


def _policies(unit: Unit) -> list[InputError]:
    """managedBy, and what the default feature gates (InPlaceRestart, RestartJob: both off) refuse."""
    origin, spec, at = unit.runtime.origin, unit.jobset, ("spec", "template", "spec")
    found = []
    manager = spec.get("managedBy")
    if manager is not None:
        problems = domain_prefixed_path(manager) + (["may not be more than 63 bytes"] if len(manager) > 63 else [])
        found += [
            error(origin, at + ("managedBy",), f"the JobSet webhook refuses managedBy {manager!r}: {problem}")
            for problem in problems
        ]
    policy = spec.get("failurePolicy") or {}
    if policy.get("restartStrategy") == "InPlaceRestart":
        found.append(
            error(
                origin,
                at + ("failurePolicy", "restartStrategy"),
                (
                    "the JobSet webhook refuses restartStrategy 'InPlaceRestart': InPlaceRestart restart strategy cannot be "
                    "set when InPlaceRestart feature gate is disabled"
                ),
            )
        )
    for index, rule in enumerate(policy.get("rules") or ()):
        if rule.get("action") in RESTART_JOB_ACTIONS:
            found.append(
                error(
                    origin,
                    at + ("failurePolicy", "rules", index, "action"),
                    (
                        f"the JobSet webhook refuses action {rule['action']!r}: RestartJob and RestartJobAndIgnoreMaxRestarts "
                        "failure policy actions are not allowed when RestartJob feature gate is disabled"
                    ),
                )
            )
            break
    return found


def _by_name(unit: Unit) -> dict:
    return {rjob["name"]: rjob for rjob in unit.replicated_jobs}


def _coordinator(unit: Unit) -> list[InputError]:
    coordinator = unit.jobset.get("coordinator")
    if coordinator is None:
        return []
    origin, path = unit.runtime.origin, ("spec", "template", "spec", "coordinator")
    name, job_index, pod_index = (
        coordinator.get("replicatedJob"),
        coordinator.get("jobIndex", 0),
        coordinator.get("podIndex", 0),
    )
    rjob = _by_name(unit).get(name)
    job = job_spec(rjob or {})
    if rjob is None:
        problem, field = f"coordinator replicatedJob {name} does not exist", "replicatedJob"
    elif not 0 <= job_index < rjob.get("replicas", 1):
        problem, field = f"coordinator job index {job_index} is invalid for replicatedJob {name}", "jobIndex"
    elif job.get("completionMode", "Indexed") != "Indexed" or job.get("completions") is None:
        problem, field = (
            "job for coordinator pod must be indexed completion mode, and completions number must be set",
            "replicatedJob",
        )
    elif not 0 <= pod_index < job["completions"]:
        problem, field = (
            (f"coordinator pod index {pod_index} is invalid for replicatedJob {name} job index {job_index}"),
            "podIndex",
        )
    else:
        problem = None
    found = (
        [error(origin, path + (field,), f"the JobSet webhook refuses the coordinator: {problem}")] if problem else []
    )
    subdomain = (unit.jobset.get("network") or {}).get("subdomain") or unit.name
    endpoint = f"{unit.name}-{name}-{job_index}-{pod_index}.{subdomain}"
    if len(endpoint) > 63 or not re.fullmatch(_LABEL_VALUE, endpoint):
        found.append(
            error(
                unit.trainjob.origin,
                ("metadata", "name"),
                (
                    f"the JobSet webhook refuses the coordinator: spec will lead to invalid label value {endpoint!r} for "
                    'coordinator label "jobset.sigs.k8s.io/coordinator" (long JobSet / ReplicatedJob / SubDomain name?): '
                    "must be no more than 63 characters and start and end with an alphanumeric character"
                ),
            )
        )
    return found


def _volume_claims(unit: Unit) -> list[InputError]:
    origin, at = unit.runtime.origin, ("spec", "template", "spec", "volumeClaimPolicies")
    found, seen = [], set()
    for index, policy in enumerate(unit.jobset.get("volumeClaimPolicies") or ()):
        for number, template in enumerate(policy.get("templates") or ()):
            name = (template.get("metadata") or {}).get("name", "")
            path = at + (index, "templates", number, "metadata", "name")
            where = f"the JobSet webhook refuses volume claim template {name!r}"
            if name in seen:
                found.append(error(origin, path, f"{where}: names must be unique for VolumeClaimPolicies template"))
            seen.add(name)
            if len(name) > 253 or not _DNS1123_SUBDOMAIN.fullmatch(name):
                found.append(error(origin, path, f"{where}: it must be a lowercase RFC 1123 subdomain"))
            if len(f"{name}-{unit.name}") > 63:
                found.append(
                    error(
                        origin,
                        path,
                        f"{where}: VolumeClaimPolicies template name is too long (its PVC "
                        f"{name}-{unit.name} would exceed 63 characters)",
                    )
                )
            found += _claim_mounts(unit, name, path, where)
    return found


def _claim_mounts(unit: Unit, name: str, path: tuple, where: str) -> list[InputError]:
    found, mounted = [], False
    for rjob in unit.replicated_jobs:
        spec = pod_spec(rjob)
        if any(volume.get("name") == name for volume in spec.get("volumes") or ()):
            found.append(
                error(
                    unit.runtime.origin,
                    path,
                    (
                        f"{where}: volume name conflicts with VolumeClaimPolicy template name: {name} (replicated job "
                        f"{rjob['name']!r})"
                    ),
                )
            )
        mounted = mounted or any(
            mount.get("name") == name
            for group in ("initContainers", "containers")
            for container in spec.get(group) or ()
            for mount in container.get("volumeMounts") or ()
        )
    if not mounted:
        found.append(
            error(
                unit.runtime.origin,
                path,
                (
                    f"{where}: replicatedJob containers don't have a matching volumeMount: {name} from VolumeClaimPolicies"
                ),
            )
        )
    return found
