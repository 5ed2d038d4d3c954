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


from .. import provenance
from ..ir import DATASET_INITIALIZER, MODEL_INITIALIZER, NODE, TRAINER, Unit, step_of
from ..provenance import Source

ANCESTOR_STEPS = (TRAINER, DATASET_INITIALIZER, MODEL_INITIALIZER)


class Endpoints:
    """The pod DNS names `<prefix>-<replica>-<pod>.<subdomain>` of one replicated job, in order."""

    __slots__ = ("prefix", "replicas", "pods", "subdomain")

    def __init__(self, prefix: str, replicas: int, pods: int, subdomain: str):
        self.prefix, self.replicas, self.pods, self.subdomain = prefix, replicas, pods, subdomain

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
        step = step_of(rjob, unit.kep)
        if step in ANCESTOR_STEPS:
            rjob["replicas"] = 1
            if step_of(rjob) not in ANCESTOR_STEPS:
                replicas = 1
        count = unit.counts.get(name, 1)
        endpoints[name] = Endpoints(f"{unit.name}-{name}", replicas, count, subdomain)
        job_spec = rjob.setdefault("template", {}).setdefault("spec", {})
        rest = {k: v for k, v in job_spec.items() if k not in ("parallelism", "completions")}
        job_spec.clear()
        job_spec.update(parallelism=count, completions=count, **rest)
        if ctx.provenance is not None:
            if step in ANCESTOR_STEPS:
                ctx.provenance.record(rjob, "replicas", Source("network pass: an ancestor step runs one replica"))
            for field in ("parallelism", "completions"):
                ctx.provenance.record(job_spec, field, _count_source(unit, rjob, step))
    return unit.replace(endpoints=endpoints)


def _count_source(unit: Unit, rjob: dict, step: str | None) -> Source:
    """Where a job's pod count came from: the TrainJob's numNodes (the trainer job; MPI's `node`), the
    runtime's mlPolicy.numNodes (the trainer job), else the runtime job's own parallelism."""
    by, policy, trainer = "network pass: pods per job", unit.ml_policy, unit.trainer
    mpi_node = policy is not None and policy.mpi is not None and rjob["name"] == NODE
    if trainer is not None and trainer.num_nodes is not None and (step == TRAINER or mpi_node):
        return provenance.trainjob(unit, by, "spec", "trainer", "numNodes")
    if policy is not None and step == TRAINER:
        return provenance.runtime(unit, by, "spec", "mlPolicy", "numNodes")
    return provenance.runtime(
        unit, by, "spec", "template", "spec", "replicatedJobs", rjob["name"], "template", "spec", "parallelism"
    )
