"""[TJ] Volcano rule (upstream Volcano plugin Validate): a queue annotation, if set, must not be empty.

The annotation is read from the JobSet template metadata as patched. The
PriorityClass existence check needs the cluster, so trainc skips it.

trainc also refuses what the Volcano PodGroup CRD would (upstream's controller
then fails to create the PodGroup): a queue name that is no lowercase RFC 1123
subdomain, and a negative networkTopology.highestTierAllowed.
"""

from __future__ import annotations

import re

from ..compiler.ir import Unit
from ..errors import InputError
from ..trainer.api import DNS_SUBDOMAIN
from .base import error

QUEUE = "scheduling.volcano.sh/queue-name"


def check(unit: Unit, change) -> list[InputError]:
    policy = unit.runtime.spec.pod_group_policy
    if policy is None or policy.volcano is None:
        return []
    errors = []
    queue = unit.annotations.get(QUEUE)
    if queue == "":
        message = "Volcano queue name must not be empty"
        errors.append(error(unit.trainjob.origin, ("spec", "annotations", QUEUE), message, at=_where(unit)))
    elif queue is not None and not (len(queue) <= 253 and re.fullmatch(DNS_SUBDOMAIN, queue)):
        message = f"Volcano queue name {queue!r} must be a lowercase RFC 1123 subdomain (a PodGroup's spec.queue)"
        errors.append(error(unit.trainjob.origin, ("spec", "annotations", QUEUE), message, at=_where(unit)))
    topology = policy.volcano.network_topology or {}
    if topology.get("highestTierAllowed", 0) < 0:
        path = ("spec", "podGroupPolicy", "volcano", "networkTopology", "highestTierAllowed")
        errors.append(error(unit.runtime.origin, path, "must be greater than or equal to 0 (the PodGroup's minimum)"))
    return errors


def _where(unit: Unit) -> tuple:
    found = ("spec", "runtimeRef")
    for index, entry in enumerate(unit.trainjob.spec.runtime_patches):
        metadata = ((entry.get("trainingRuntimeSpec") or {}).get("template") or {}).get("metadata") or {}
        if QUEUE in (metadata.get("annotations") or {}):
            found = ("spec", "runtimePatches", index, "trainingRuntimeSpec", "template", "metadata", "annotations",
                     QUEUE)
    return found
