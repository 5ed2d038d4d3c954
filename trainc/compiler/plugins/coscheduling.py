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


from ...errors import InputError
from ..ir import Unit
from . import gang

POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"


def enforce(unit: Unit, ctx) -> Unit:
    return unit.replace(pod_labels={**unit.pod_labels, POD_GROUP_LABEL: unit.name})


def build(unit: Unit, ctx) -> Unit:
    policy = unit.runtime.spec.pod_group_policy.coscheduling
    members, resources = gang.minimums(unit)
    if members == 0:
        raise InputError(
            unit.runtime.origin,
            ("spec", "template", "spec", "replicatedJobs"),
            "coscheduling needs at least one pod: a PodGroup's minMember must be at least 1",
        )
    spec = {"minMember": members, "minResources": resources, "scheduleTimeoutSeconds": policy.schedule_timeout_seconds}
    return gang.with_podgroup(unit, "scheduling.x-k8s.io/v1alpha1", spec)
