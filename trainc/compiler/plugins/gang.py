"""What both gang-scheduling plugins share: the gang's size and the PodGroup object."""

from __future__ import annotations


from ...errors import InputError
from ...k8s.quantity import Quantity
from .. import emit
from ..ir import Unit


def with_podgroup(unit: Unit, api_version: str, spec: dict) -> Unit:
    """The unit with a PodGroup named after the TrainJob added to its objects."""
    podgroup = {"apiVersion": api_version, "kind": "PodGroup", "metadata": emit.metadata(unit, unit.name), "spec": spec}
    return unit.replace(objects=unit.objects + (podgroup,))


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
        path = (
            ("spec", "trainer", "numNodes")
            if trainer is not None and trainer.num_nodes is not None
            else ("spec", "runtimeRef")
        )
        message = f"{members} pods are too many for a PodGroup (minMember is an int32)"
        raise InputError(unit.trainjob.origin, path, message)
    return members, {name: str(totals[name]) for name in sorted(totals)}
