"""network: pod endpoints, and parallelism/completions/replicas from the pod counts.

Upstream's JobSet PreBuildSync: endpoints are `<job>-<rjob>-<replica>-<pod>.<subdomain>`
(subdomain = `network.subdomain` or the TrainJob name); every replicated job
gets parallelism = completions = its count; jobs carrying an ancestor step
always run one replica.
"""

from __future__ import annotations

from dataclasses import replace

from ..ir import DATASET_INITIALIZER, MODEL_INITIALIZER, TRAINER, Unit, step_of

ANCESTOR_STEPS = (TRAINER, DATASET_INITIALIZER, MODEL_INITIALIZER)


def network(unit: Unit, ctx) -> Unit:
    subdomain = (unit.jobset.get("network") or {}).get("subdomain") or unit.name
    endpoints = {}
    for rjob in unit.replicated_jobs:
        name = rjob["name"]
        if step_of(rjob) in ANCESTOR_STEPS:
            rjob["replicas"] = 1
        count = unit.counts.get(name, 1)
        endpoints[name] = tuple(
            f"{unit.name}-{name}-{replica}-{pod}.{subdomain}"
            for replica in range(rjob.get("replicas", 1))
            for pod in range(count)
        )
        job_spec = rjob.setdefault("template", {}).setdefault("spec", {})
        rest = {k: v for k, v in job_spec.items() if k not in ("parallelism", "completions")}
        job_spec.clear()
        job_spec.update(parallelism=count, completions=count, **rest)
    return replace(unit, endpoints=endpoints)
