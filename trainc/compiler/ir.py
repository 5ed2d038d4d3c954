"""The compilation unit threaded through the passes, and how to read its JobSet tree.

A `Unit` owns its `jobset` tree (a private copy of the runtime template made by
`resolve`); passes edit that tree and return the unit with any other fields
replaced. Nothing outside the unit is ever mutated.
"""

from __future__ import annotations

from ..trainer import releases
from ..trainer.api import Runtime, TrainJob

ANCESTOR_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step"
TRAINER, DATASET_INITIALIZER, MODEL_INITIALIZER = "trainer", "dataset-initializer", "model-initializer"
NODE = "node"
KEP_TRAINER_CONTAINER = "trainer"  # the KEP's name for the trainer container
KEP_LAUNCHER_CONTAINER = "mpi-launcher"  # the KEP's name for the MPI launcher container
TRAINER_PORT = 29500
COMPLETION_INDEX = "metadata.annotations['batch.kubernetes.io/job-completion-index']"
_new, _set = object.__new__, object.__setattr__


class Unit:
    """One TrainJob on its way through the passes. A pass never changes a unit: it returns `replace(...)`, a
    new one (the JobSet tree it holds is the exception, edited in place; see above).

    A slots class written out rather than a frozen dataclass: a dataclass compiles its methods at every start
    of trainc, and `dataclasses.replace`, called five times per TrainJob, costs three times `replace` here."""

    __slots__ = (
        "trainjob",
        "runtime",
        "jobset",
        "labels",
        "annotations",
        "counts",  # pods per replicated job (upstream's PodSet Count)
        "command",  # the trainer command as the ML policy rewrote it, or None
        "args_consumed",  # the ML policy folded trainer.args into `command` (Flux): not applied
        "endpoints",  # pod DNS names per replicated job
        "pod_labels",
        "pod_annotations",
        "pod_requests",  # {rjob name: {resource: Quantity}} (upstream SinglePodRequests)
        "objects",  # objects built beside the JobSet (Secrets, ConfigMaps, PodGroups)
        "notices",
        "release",  # the run's Trainer release (the context's, set by `resolve`)
    )

    def __init__(
        self,
        trainjob: TrainJob,
        runtime: Runtime | None = None,
        jobset: dict | None = None,
        labels: dict | None = None,
        annotations: dict | None = None,
        counts: dict | None = None,
        command: list | None = None,
        args_consumed: bool = False,
        endpoints: dict | None = None,
        pod_labels: dict | None = None,
        pod_annotations: dict | None = None,
        pod_requests: dict | None = None,
        objects: tuple = (),
        notices: tuple = (),
        release: releases.Release = releases.DEFAULT,
    ):
        for name, value in zip(
            self.__slots__,
            (
                trainjob,
                runtime,
                {} if jobset is None else jobset,  # a dictionary not given starts empty, its own
                {} if labels is None else labels,
                {} if annotations is None else annotations,
                {} if counts is None else counts,
                command,
                args_consumed,
                {} if endpoints is None else endpoints,
                {} if pod_labels is None else pod_labels,
                {} if pod_annotations is None else pod_annotations,
                {} if pod_requests is None else pod_requests,
                objects,
                notices,
                release,
            ),
        ):
            _set(self, name, value)

    def replace(self, **changes) -> Unit:
        """A new unit: this one with `changes`."""
        new = _new(Unit)
        for name in self.__slots__:
            _set(new, name, changes.pop(name) if name in changes else getattr(self, name))
        if changes:
            raise TypeError(f"Unit has no field {next(iter(changes))!r}")
        return new

    def __reduce__(self):  # pickled field by field (slots set through __init__, not setattr)
        return Unit, tuple(getattr(self, name) for name in self.__slots__)

    def __setattr__(self, name, value):
        raise AttributeError(f"a Unit is never changed: use replace(), not {name} = ...")

    def __delattr__(self, name):
        raise AttributeError(f"a Unit is never changed: use replace(), not del {name}")

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
