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

Errors point at what to change: the TrainJob's name (the part a user usually
shortens) when a generated name is too long, its numNodes when there are too
many pods, else the runtime. Rules behind feature gates (InPlaceRestart,
RestartJob), the coordinator and volume claim policies are not checked.
"""

from __future__ import annotations

import re

from ..errors import InputError
from ..ir import Unit
from .base import error

MAX_INT32 = 2**31 - 1
JOB_FAILURE_REASONS = ("BackoffLimitExceeded", "DeadlineExceeded", "FailedIndexes", "MaxFailedIndexesExceeded",
                       "PodFailurePolicy")
_DNS1035 = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
_RULE_NAME = re.compile(r"[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?")
_DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_DNS1035_FORMAT = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character"
)


def _dns1035(value: str, too_long: str) -> str | None:
    """apimachinery's IsDNS1035Label, with the webhook's own message for the length."""
    if len(value) > 63:
        return too_long
    return None if _DNS1035.fullmatch(value) else _DNS1035_FORMAT


def check(unit: Unit) -> list[InputError]:
    trainjob, runtime, name = unit.trainjob.origin, unit.runtime.origin, unit.name
    at = ("spec", "template", "spec")
    found = []
    for index, rjob in enumerate(unit.replicated_jobs):
        job = (rjob.get("template") or {}).get("spec") or {}
        replicas, parallelism = rjob.get("replicas", 1), job.get("parallelism", 1)
        where = f"the JobSet webhook refuses replicated job {rjob['name']!r}"
        if replicas * parallelism > MAX_INT32:
            message = f"{where}: the product of replicas and parallelism must not exceed {MAX_INT32}"
            found.append(error(trainjob, ("spec", "trainer", "numNodes"), message))
        group = rjob.get("groupName", "default")
        problem = _dns1035(group, "groupName is too long, must be less than 63 characters")
        if problem:
            message = f"{where}: groupName {group!r}: {problem}"
            found.append(error(runtime, at + ("replicatedJobs", index, "groupName"), message))
        names = [("Job", f"{name}-{rjob['name']}-{replicas - 1}", "job")]
        if job.get("completionMode", "Indexed") == "Indexed" and job.get("completions") is not None:
            names.append(("Pod", f"{names[0][1]}-{job['completions'] - 1}-abcde", "pod"))
        for kind, generated, noun in names:
            problem = _dns1035(generated, f"JobSet name is too long, {noun} names generated for this JobSet will "
                                          "exceed 63 characters")
            if problem == _DNS1035_FORMAT:  # TrainJob names are DNS-1035 labels: the replicated job's name is not
                found.append(error(runtime, at + ("replicatedJobs", index, "name"),
                                   f"{where}: {kind} name {generated!r}: {problem}"))
                break
            if problem:
                found.append(error(trainjob, ("metadata", "name"), f"{where}: {kind} name {generated!r}: {problem}"))
                break
    subdomain = (unit.jobset.get("network") or {}).get("subdomain")
    if subdomain and not (len(subdomain) <= 63 and _DNS1123_SUBDOMAIN.fullmatch(subdomain)
                          and _DNS1035.fullmatch(subdomain)):
        message = f"the JobSet webhook refuses network.subdomain {subdomain!r}: it must be a DNS-1035 label"
        found.append(error(runtime, at + ("network", "subdomain"), message))
    return found + _references(unit)


def _references(unit: Unit) -> list[InputError]:
    """dependsOn, success and failure policy targets, failure policy rules (at the runtime)."""
    origin, spec = unit.runtime.origin, unit.jobset
    at = ("spec", "template", "spec")
    found, seen = [], []
    for index, rjob in enumerate(unit.replicated_jobs):
        seen.append(rjob["name"])  # the webhook adds a job's own name before checking its dependsOn
        for depends in rjob.get("dependsOn") or ():
            if index == 0 or depends.get("name") not in seen:
                message = (f"the JobSet webhook refuses replicated job {rjob['name']!r} depending on "
                           f"{depends.get('name')!r}: only on an earlier replicated job")
                found.append(error(origin, at + ("replicatedJobs", index, "dependsOn"), message))
    targets = [(("successPolicy", "targetReplicatedJobs"), name)
               for name in (spec.get("successPolicy") or {}).get("targetReplicatedJobs") or ()]
    rules = (spec.get("failurePolicy") or {}).get("rules") or ()
    names: dict = {}
    for index, rule in enumerate(rules):
        path = ("failurePolicy", "rules", index)
        name = rule.get("name") or f"failurePolicyRule{index}"
        names.setdefault(name, []).append(index)
        if len(name) > 128 or not _RULE_NAME.fullmatch(name):
            message = (f"the JobSet webhook refuses the failure policy rule name {name!r}: at most 128 characters, "
                       "a letter, then letters, digits or '_,:', ending with a letter, digit or '_'")
            found.append(error(origin, at + path + ("name",), message))
        targets += [(path + ("targetReplicatedJobs",), target) for target in rule.get("targetReplicatedJobs") or ()]
        for reason in rule.get("onJobFailureReasons") or ():
            if reason not in JOB_FAILURE_REASONS:
                message = f"the JobSet webhook refuses the job failure reason {reason!r}: not one of " + ", ".join(
                    JOB_FAILURE_REASONS)
                found.append(error(origin, at + path + ("onJobFailureReasons",), message))
    found += [error(origin, at + path, f"the JobSet webhook refuses {name!r}: no such replicated job")
              for path, name in targets if name not in seen]
    found += [error(origin, at + ("failurePolicy", "rules"),
                    f"the JobSet webhook refuses rules {indexes} all named {name!r}: rule names must be unique")
              for name, indexes in names.items() if len(indexes) > 1]
    return found
