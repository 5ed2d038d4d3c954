"""The compilation unit threaded through the passes, and how to read its JobSet tree.

A `Unit` owns its `jobset` tree (a private copy of the runtime template made by
`resolve`); passes edit that tree and return the unit with any other fields
replaced. Nothing outside the unit is ever mutated.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..trainer import releases
from ..trainer.api import Runtime, TrainJob

ANCESTOR_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step"
TRAINER, DATASET_INITIALIZER, MODEL_INITIALIZER = "trainer", "dataset-initializer", "model-initializer"
NODE = "node"
KEP_TRAINER_CONTAINER = "trainer"  # the KEP's name for the trainer container
KEP_LAUNCHER_CONTAINER = "mpi-launcher"  # the KEP's name for the MPI launcher container
TRAINER_PORT = 29500
COMPLETION_INDEX = "metadata.annotations['batch.kubernetes.io/job-completion-index']"


@dataclass(frozen=True, slots=True)
class Unit:
    trainjob: TrainJob
    runtime: Runtime | None = None
    jobset: dict = field(default_factory=dict)
    labels: dict = field(default_factory=dict)
    annotations: dict = field(default_factory=dict)
    counts: dict = field(default_factory=dict)  # pods per replicated job (upstream's PodSet Count)
    command: list | None = None  # the trainer command as the ML policy rewrote it
    args_consumed: bool = False  # the ML policy folded trainer.args into `command` (Flux): not applied
    endpoints: dict = field(default_factory=dict)  # pod DNS names per replicated job
    pod_labels: dict = field(default_factory=dict)
    pod_annotations: dict = field(default_factory=dict)
    pod_requests: dict = field(default_factory=dict)  # {rjob name: {resource: Quantity}} (upstream SinglePodRequests)
    objects: tuple = ()  # objects built beside the JobSet (Secrets, ConfigMaps, PodGroups)
    notices: tuple = ()
    release: releases.Release = releases.DEFAULT  # the run's Trainer release (the context's, set by `resolve`)

    @property
    def name(self) -> str:
        return self.trainjob.name

    @property
    def trainer(self):
        return self.trainjob.spec.trainer

    @property
    def kep(self) -> bool:
        """A KEP-2170 (v2alpha1) runtime: its step labels and container names follow the KEP.

        Inputs upstream also accepts (v1alpha1) compile exactly as upstream."""
        return self.runtime is not None and self.runtime.api_version.endswith("/v2alpha1")

    @property
    def ml_policy(self):
        return self.runtime.spec.ml_policy

    @property
    def replicated_jobs(self) -> list:
        return self.jobset.get("replicatedJobs") or []


def step_of(rjob: dict, kep: bool = False) -> str | None:
    """The ancestor step: upstream reads the Job template label only; a KEP (v2alpha1)
    runtime may put it on the pod template instead."""
    template = rjob.get("template") or {}
    labels = (template.get("metadata") or {}).get("labels") or {}
    if ANCESTOR_LABEL in labels or not kep:
        return labels.get(ANCESTOR_LABEL)
    pod_labels = (pod_template(rjob).get("metadata") or {}).get("labels") or {}
    return pod_labels.get(ANCESTOR_LABEL)


# The levels of a replicated job (JobSet ReplicatedJob -> Job template -> pod template -> pod spec). Readers
# never create a level (a missing one reads as empty, so a check never adds fields to what it checks); a pass
# that writes asks for the level with `ensure_*`, which creates the missing ones.


def job_spec(rjob: dict) -> dict:
    """The Job spec of a replicated job, read-only."""
    return (rjob.get("template") or {}).get("spec") or {}


def pod_template(rjob: dict) -> dict:
    """The pod template of a replicated job, read-only."""
    return job_spec(rjob).get("template") or {}


def pod_spec(rjob: dict) -> dict:
    """The pod spec of a replicated job, read-only."""
    return pod_template(rjob).get("spec") or {}


def containers(rjob: dict) -> list:
    return pod_spec(rjob).get("containers") or []


def ensure_pod_template(rjob: dict) -> dict:
    """The pod template of a replicated job, to write into: missing levels are created."""
    return rjob.setdefault("template", {}).setdefault("spec", {}).setdefault("template", {})


def ensure_pod_spec(rjob: dict) -> dict:
    """The pod spec of a replicated job, to write into: missing levels are created."""
    return ensure_pod_template(rjob).setdefault("spec", {})


def find_container(rjob: dict, name: str) -> dict | None:
    return next((c for c in containers(rjob) if c.get("name") == name), None)


def main_container(rjob: dict, kep: bool = False) -> dict | None:
    """The trainer (or MPI launcher) container: `node`; in a KEP (v2alpha1) runtime without
    one, the KEP's `trainer`, else `mpi-launcher`."""
    found = find_container(rjob, NODE)
    if found is None and kep:
        found = find_container(rjob, KEP_TRAINER_CONTAINER) or find_container(rjob, KEP_LAUNCHER_CONTAINER)
    return found


def jobs_with_step(unit: Unit, step: str) -> list:
    return [rjob for rjob in unit.replicated_jobs if step_of(rjob, unit.kep) == step]


def first_job_with_step(unit: Unit, step: str) -> dict | None:
    return next(iter(jobs_with_step(unit, step)), None)


def trainer_container(unit: Unit) -> dict | None:
    """Upstream's FindContainerByPodSetAncestorContainerName(trainer, node)."""
    rjob = first_job_with_step(unit, TRAINER)
    return main_container(rjob, unit.kep) if rjob is not None else None


def coordinator(unit: Unit) -> str:
    """Torch/JAX/XGBoost rank-0 address: hard-coded upstream, ignoring network.subdomain."""
    return f"{unit.name}-{NODE}-0-0.{unit.name}"


def node_resources(unit: Unit) -> dict:
    """Resources used to detect GPUs/CPUs per node (upstream ExtractResourcePerNodeFromRuntime).

    The TrainJob's resourcesPerNode as given wins; else the trainer container of the
    first job named `node` or carrying the trainer step.
    """
    trainer = unit.trainer
    if trainer is not None and trainer.resources_per_node is not None:
        return trainer.resources_per_node
    for rjob in unit.replicated_jobs:
        if rjob.get("name") == NODE or step_of(rjob, unit.kep) == TRAINER:
            container = main_container(rjob, unit.kep)
            if container is not None:
                return container.get("resources") or {}
    return {}
