"""podgroup: upstream's EnforcePodGroupPolicy phase, plus the scheduler pod metadata (spec §3.1 step 9, §7).

1. Every replicated job's SinglePodRequests is taken (spec §7.3) into
   `unit.pod_requests`, for the gang builders to total later.
2. Each gang-scheduler plugin enforces its policy (Coscheduling adds a pod
   label, Volcano a pod annotation).
3. `unit.pod_labels` / `unit.pod_annotations` are merged into every pod
   template's metadata, once, as upstream's Builder.PodLabels/PodAnnotations.

Pass order: upstream takes SinglePodRequests after runtimePatches and the
resourcesPerNode merge but before any plugin runs. Here the ML-policy plugins
(`mlpolicy`) run before the merge (`override`), so this pass runs after
`override` and the pod specs it reads already hold what those plugins added.
That changes nothing: upstream plugins add containers only through PodSet
containers, which have no resources field, so an added container (Flux's
`flux-installer`) requests nothing, and no plugin touches resources. Nothing
after this pass changes resources either.
"""

from __future__ import annotations


from ...k8s.quantity import Quantity, parse
from .. import provenance
from ..ir import Unit, ensure_pod_template, pod_spec
from ..plugins.registry import GANG_SCHEDULERS

POD_LEVEL = ("cpu", "memory")  # plus hugepages-*: what pod-level requests may set (IsSupportedPodLevelResource)


def podgroup(unit: Unit, ctx) -> Unit:
    requests = {rjob["name"]: pod_requests(pod_spec(rjob)) for rjob in unit.replicated_jobs}
    unit = unit.replace(pod_requests=requests)
    for plugin in GANG_SCHEDULERS:
        if plugin.runs(unit):
            unit = plugin.enforce(unit, ctx)
    # only Coscheduling adds pod labels, only Volcano pod annotations
    for field, entries, by in (
        ("labels", unit.pod_labels, "coscheduling plugin"),
        ("annotations", unit.pod_annotations, "volcano plugin"),
    ):
        if entries:
            for rjob in unit.replicated_jobs:
                written = _merge_metadata(ensure_pod_template(rjob), field, entries)
                if ctx.provenance is not None:
                    for key in entries:
                        ctx.provenance.record(written, key, provenance.trainjob(unit, by, "metadata", "name"))
    return unit


def pod_requests(spec: dict) -> dict[str, Quantity]:
    """Kubernetes' PodRequests with default options (k8s.io/component-helpers/resource).

    Regular containers' requests add up (limits are never a fallback); an init
    container counts through max() with the sidecars started before it;
    sidecars (restartPolicy Always) also add to the total; supported pod-level
    requests replace the container sum; the overhead is added last.
    """
    total: dict = {}
    for container in spec.get("containers") or ():
        _add(total, _requests(container))
    sidecars: dict = {}
    init_peak: dict = {}
    for container in spec.get("initContainers") or ():
        own = _requests(container)
        if container.get("restartPolicy") == "Always":
            _add(total, own)
            _add(sidecars, own)
            _max(init_peak, sidecars)
        else:
            running = {}
            _add(running, own)
            _add(running, sidecars)
            _max(init_peak, running)
    _max(total, init_peak)
    for name, value in (((spec.get("resources") or {}).get("requests")) or {}).items():
        if name in POD_LEVEL or name.startswith("hugepages-"):
            total[name] = parse(value)
    _add(total, {name: parse(value) for name, value in (spec.get("overhead") or {}).items()})
    return total


def _requests(container: dict) -> dict[str, Quantity]:
    return {name: parse(value) for name, value in (((container.get("resources") or {}).get("requests")) or {}).items()}


def _add(into: dict, amounts: dict) -> None:
    """addResourceList: a sum keeps the format of the amount it started from."""
    for name, amount in amounts.items():
        into[name] = into[name] + amount if name in into else amount


def _max(into: dict, amounts: dict) -> None:
    for name, amount in amounts.items():
        if name not in into or amount > into[name]:
            into[name] = amount


def _merge_metadata(template: dict, field: str, entries: dict) -> dict:
    """Merge `entries` into the pod template's metadata map, creating metadata ahead of `spec`."""
    if template.get("metadata") is None:
        rest = {key: value for key, value in template.items() if key != "metadata"}
        template.clear()
        template.update(metadata={}, **rest)
    metadata = template["metadata"]
    metadata[field] = {**(metadata.get(field) or {}), **entries}
    return metadata[field]
