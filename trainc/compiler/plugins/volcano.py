"""Volcano: a pod annotation and a scheduling.volcano.sh PodGroup (spec §7.2, §7.3).

Upstream's Volcano plugin: every pod carries `scheduling.k8s.io/group-name:
<job>`; the `scheduling.volcano.sh/v1beta1` PodGroup of the same name has
minMember and minResources (always present, maybe `{}`), the queue from the
JobSet-template annotation `scheduling.volcano.sh/queue-name` when the key
exists, the priorityClassName of the last replicated job whose pod sets one,
and the policy's networkTopology. Upstream's webhook rules (an empty queue)
are checked before compiling, in `trainc.validation.volcano`.
"""

from __future__ import annotations

from dataclasses import replace

from ..ir import Unit, pod_spec
from . import gang

GROUP_NAME_ANNOTATION = "scheduling.k8s.io/group-name"
QUEUE_ANNOTATION = "scheduling.volcano.sh/queue-name"


def enforce(unit: Unit, ctx) -> Unit:
    if gang.policy(unit, "volcano") is None:
        return unit
    return replace(unit, pod_annotations={**unit.pod_annotations, GROUP_NAME_ANNOTATION: unit.name})


def build(unit: Unit, ctx) -> Unit:
    policy = gang.policy(unit, "volcano")
    if policy is None:
        return unit
    members, resources = gang.minimums(unit)
    spec = {"minMember": members}
    if QUEUE_ANNOTATION in unit.annotations:
        spec["queue"] = unit.annotations[QUEUE_ANNOTATION]
    priority = None
    for rjob in unit.replicated_jobs:
        priority = pod_spec(rjob).get("priorityClassName") or priority
    if priority:
        spec["priorityClassName"] = priority
    spec["minResources"] = resources
    if policy.network_topology is not None:
        topology = policy.network_topology
        spec["networkTopology"] = {"mode": topology["mode"], "highestTierAllowed": topology["highestTierAllowed"]}
    return gang.with_podgroup(unit, "scheduling.volcano.sh/v1beta1", spec)
