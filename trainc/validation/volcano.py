"""[TJ] Volcano rule (upstream Volcano plugin Validate): a queue annotation, if set, must not be empty.

The annotation is read from the JobSet template metadata as patched. The
PriorityClass existence check needs the cluster, so trainc skips it.
"""

from __future__ import annotations

from ..errors import InputError
from ..ir import Unit
from .base import error

QUEUE = "scheduling.volcano.sh/queue-name"


def check(unit: Unit, change) -> list[InputError]:
    policy = unit.runtime.spec.pod_group_policy
    if policy is None or policy.volcano is None or unit.annotations.get(QUEUE, None) != "":
        return []
    return [error(unit.trainjob.origin, ("spec", "annotations", QUEUE), "Volcano queue name must not be empty",
                  at=_where(unit))]


def _where(unit: Unit) -> tuple:
    found = ("spec", "runtimeRef")
    for index, entry in enumerate(unit.trainjob.spec.runtime_patches):
        metadata = ((entry.get("trainingRuntimeSpec") or {}).get("template") or {}).get("metadata") or {}
        if QUEUE in (metadata.get("annotations") or {}):
            found = ("spec", "runtimePatches", index, "trainingRuntimeSpec", "template", "metadata", "annotations",
                     QUEUE)
    return found
