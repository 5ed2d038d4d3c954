"""Coscheduling (kubernetes-sigs/scheduler-plugins): a pod label and a PodGroup (spec §7.1, §7.3).

Upstream's CoScheduling plugin: every pod carries `scheduling.x-k8s.io/pod-group:
<job>`, and a `scheduling.x-k8s.io/v1alpha1` PodGroup of the same name asks
for the whole gang: minMember and minResources over all replicated jobs, and
the policy's scheduleTimeoutSeconds (CRD default 60). No schedulerName is set.
A runtime without replicated jobs would give minMember 0, which this PodGroup
CRD refuses (minimum 1), and no gang may exceed minMember's int32 in either
PodGroup kind; upstream's controller then fails to create it, so both are errors.
"""

from __future__ import annotations

from dataclasses import replace

from .. import emit
from ..errors import InputError
from ..ir import Unit
from ..quantity import Quantity

POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"


def _policy(unit: Unit):
    groups = unit.runtime.spec.pod_group_policy
    return groups.coscheduling if groups is not None else None


def enforce(unit: Unit) -> Unit:
    if _policy(unit) is None:
        return unit
    return replace(unit, pod_labels={**unit.pod_labels, POD_GROUP_LABEL: unit.name})


def build(unit: Unit, ctx) -> Unit:
    policy = _policy(unit)
    if policy is None:
        return unit
    members, resources = minimums(unit)
    if members == 0:
        raise InputError(unit.runtime.origin, ("spec", "template", "spec", "replicatedJobs"),
                         "coscheduling needs at least one pod: a PodGroup's minMember must be at least 1")
    podgroup = {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "PodGroup",
        "metadata": emit.metadata(unit, unit.name),
        "spec": {
            "minMember": members,
            "minResources": resources,
            "scheduleTimeoutSeconds": policy.schedule_timeout_seconds,
        },
    }
    return replace(unit, objects=unit.objects + (podgroup,))


def minimums(unit: Unit) -> tuple[int, dict]:
    """(minMember, minResources) as both gang plugins total them (spec §7.3).

    Every replicated job counts (initializers and the MPI launcher too): its
    pod count, and its SinglePodRequests times that count, per resource. The
    sums are exact and printed in canonical form, resource names sorted as Go
    prints a map.
    """
    members, totals = 0, {}
    for rjob in unit.replicated_jobs:
        count = unit.counts.get(rjob["name"], 1)
        members += count
        for name, amount in unit.pod_requests.get(rjob["name"], {}).items():
            totals[name] = totals.get(name, Quantity(0)) + amount * count
    if members > 2**31 - 1:
        trainer = unit.trainer
        path = ("spec", "trainer", "numNodes") if trainer is not None and trainer.num_nodes is not None else (
            "spec", "runtimeRef")
        message = f"{members} pods are too many for a PodGroup (minMember is an int32)"
        raise InputError(unit.trainjob.origin, path, message)
    return members, {name: str(totals[name]) for name in sorted(totals)}
