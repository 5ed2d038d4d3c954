"""network: pod endpoints, and parallelism/completions/replicas from the pod counts.

Upstream's JobSet PreBuildSync: endpoints are `<job>-<rjob>-<replica>-<pod>.<subdomain>`
(subdomain = `network.subdomain` or the TrainJob name); every replicated job
gets parallelism = completions = its count; jobs carrying an ancestor step
always run one replica. Upstream lists endpoints (PreBuildSync) before its
Builder forces that one replica (spec §3.1 steps 6, 9), so an ancestor job's
endpoints keep the runtime's replicas (more than one only in a runtime that
skips the runtime webhook); a step read from the pod template (the KEP's style,
trainc's reading) is forced first. Endpoints are generated on demand, as upstream's
iterator yields them: a job may ask for billions of pods, and only the MPI
hostfile lists them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..ir import ANCESTOR_LABEL, DATASET_INITIALIZER, MODEL_INITIALIZER, TRAINER, Unit, step_of

ANCESTOR_STEPS = (TRAINER, DATASET_INITIALIZER, MODEL_INITIALIZER)


@dataclass(frozen=True)
class Endpoints:
    """The pod DNS names `<prefix>-<replica>-<pod>.<subdomain>` of one replicated job, in order."""

    prefix: str
    replicas: int
    pods: int
    subdomain: str

    def __iter__(self):
        for replica in range(self.replicas):
            for pod in range(self.pods):
                yield f"{self.prefix}-{replica}-{pod}.{self.subdomain}"


def network(unit: Unit, ctx) -> Unit:
    subdomain = (unit.jobset.get("network") or {}).get("subdomain") or unit.name
    endpoints = {}
    for rjob in unit.replicated_jobs:
        name = rjob["name"]
        replicas = rjob.get("replicas", 1)
        if step_of(rjob, unit.kep) in ANCESTOR_STEPS:
            rjob["replicas"] = 1
            if _job_template_step(rjob) not in ANCESTOR_STEPS:
                replicas = 1
        count = unit.counts.get(name, 1)
        endpoints[name] = Endpoints(f"{unit.name}-{name}", replicas, count, subdomain)
        job_spec = rjob.setdefault("template", {}).setdefault("spec", {})
        rest = {k: v for k, v in job_spec.items() if k not in ("parallelism", "completions")}
        job_spec.clear()
        job_spec.update(parallelism=count, completions=count, **rest)
    return replace(unit, endpoints=endpoints)


def _job_template_step(rjob: dict) -> str | None:
    """The ancestor step as upstream reads it: the Job-template label only."""
    return (((rjob.get("template") or {}).get("metadata") or {}).get("labels") or {}).get(ANCESTOR_LABEL)
