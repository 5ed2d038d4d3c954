"""Volcano: a pod annotation and a scheduling.volcano.sh PodGroup (spec §7.2, §7.3).

Upstream's Volcano plugin: every pod carries `scheduling.k8s.io/group-name:
<job>`; the `scheduling.volcano.sh/v1beta1` PodGroup of the same name has
minMember and minResources (always present, maybe `{}`), the queue from the
JobSet-template annotation `scheduling.volcano.sh/queue-name` when the key
exists, the priorityClassName of the last replicated job whose pod sets one,
and the policy's networkTopology.

Its webhook rule (upstream Validate): a queue annotation, if set, must not be
empty. The annotation is read from the JobSet template metadata as patched.
The PriorityClass existence check needs the cluster, so trainc skips it.
trainc also refuses what the Volcano PodGroup CRD would (upstream's controller
then fails to create the PodGroup): a queue name that is no lowercase RFC 1123
subdomain, and a negative networkTopology.highestTierAllowed.
"""

from __future__ import annotations

import re

from ...errors import InputError
from ...trainer.api import DNS_SUBDOMAIN
from ..admission import error
from ..ir import Unit, pod_spec
from . import gang

GROUP_NAME_ANNOTATION = "scheduling.k8s.io/group-name"
QUEUE_ANNOTATION = "scheduling.volcano.sh/queue-name"


def validate(unit: Unit, change) -> list[InputError]:
    errors = []
    queue, path = unit.annotations.get(QUEUE_ANNOTATION), ("spec", "annotations", QUEUE_ANNOTATION)
    if queue == "":
        errors.append(error(unit.trainjob.origin, path, "Volcano queue name must not be empty", at=_where(unit)))
    elif queue is not None and not (len(queue) <= 253 and re.fullmatch(DNS_SUBDOMAIN, queue)):
        message = f"Volcano queue name {queue!r} must be a lowercase RFC 1123 subdomain (a PodGroup's spec.queue)"
        errors.append(error(unit.trainjob.origin, path, message, at=_where(unit)))
    topology = unit.runtime.spec.pod_group_policy.volcano.network_topology or {}
    if topology.get("highestTierAllowed", 0) < 0:
        path = ("spec", "podGroupPolicy", "volcano", "networkTopology", "highestTierAllowed")
        errors.append(error(unit.runtime.origin, path, "must be greater than or equal to 0 (the PodGroup's minimum)"))
    return errors


def _where(unit: Unit) -> tuple:
    found = ("spec", "runtimeRef")
    for index, entry in enumerate(unit.trainjob.spec.runtime_patches):
        metadata = ((entry.get("trainingRuntimeSpec") or {}).get("template") or {}).get("metadata") or {}
        if QUEUE_ANNOTATION in (metadata.get("annotations") or {}):
            found = (
                "spec",
                "runtimePatches",
                index,
                "trainingRuntimeSpec",
                "template",
                "metadata",
                "annotations",
                QUEUE_ANNOTATION,
            )
    return found


def enforce(unit: Unit, ctx) -> Unit:
    return unit.replace(pod_annotations={**unit.pod_annotations, GROUP_NAME_ANNOTATION: unit.name})


def build(unit: Unit, ctx) -> Unit:
    policy = unit.runtime.spec.pod_group_policy.volcano
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
