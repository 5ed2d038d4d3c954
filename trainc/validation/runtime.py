"""[RT] The (Cluster)TrainingRuntime validating webhook (spec §10, upstream pkg/webhooks).

Jobs whose Job-template ancestor label is trainer, dataset-initializer or
model-initializer must run one replica and hold their required container
(`node`, `dataset-initializer`, `model-initializer`; regular containers only).
Upstream reads only the Job-template label here, so a KEP-style runtime that
labels the pod template is not checked; in a KEP (v2alpha1) runtime the KEP's
trainer containers (`trainer`, `mpi-launcher`) also satisfy the trainer step. Runtimes labeled
`trainer.kubeflow.org/webhook-validation: disabled` skip the webhook (its
objectSelector). Creating a deprecated ClusterTrainingRuntime warns.

As upstream, a ClusterTrainingRuntime is checked on create and update, a
TrainingRuntime on create only (its ValidateUpdate admits anything).

From Trainer v2.4 (#4394, `releases.Release.replicated_job_name_max`) a runtime's replicatedJobs[].name
is at most 20 characters (the bundled runtimes' longest is `dataset-initializer`, 19). The release note calls
it API validation: trainc checks it whatever the webhook label says, on create, and on update only for a name
the previous version did not have (the API server's validation ratcheting). PR #4394's text was not found:
the message is Kubernetes' MaxLenError wording at the name's field path, inferred.
"""

from __future__ import annotations

import json

from ..compiler.ir import (
    ANCESTOR_LABEL,
    DATASET_INITIALIZER,
    KEP_LAUNCHER_CONTAINER,
    KEP_TRAINER_CONTAINER,
    MODEL_INITIALIZER,
    NODE,
    TRAINER,
    containers,
)
from ..errors import InputError, Notice
from ..trainer import catalog, releases
from ..trainer.api import Runtime

SKIP_LABEL = "trainer.kubeflow.org/webhook-validation"
REQUIRED_CONTAINER = {TRAINER: NODE, DATASET_INITIALIZER: DATASET_INITIALIZER, MODEL_INITIALIZER: MODEL_INITIALIZER}
KEP_TRAINER_CONTAINERS = (NODE, KEP_TRAINER_CONTAINER, KEP_LAUNCHER_CONTAINER)


def _skipped(runtime: Runtime) -> bool:
    return runtime.metadata.labels.get(SKIP_LABEL) == "disabled"


def check(runtime: Runtime, *, created: bool) -> list[InputError]:
    if _skipped(runtime) or not (created or runtime.kind == "ClusterTrainingRuntime"):
        return []
    errors = []
    kep = runtime.api_version.endswith("/v2alpha1")
    for index, rjob in enumerate(runtime.spec.template.spec.get("replicatedJobs") or ()):
        template = rjob.get("template") or {}
        ancestor = ((template.get("metadata") or {}).get("labels") or {}).get(ANCESTOR_LABEL)
        if ancestor not in REQUIRED_CONTAINER:
            continue
        path = ("spec", "template", "spec", "replicatedJobs", index)
        if rjob.get("replicas", 1) != 1:
            errors.append(InputError(runtime.origin, path + ("replicas",), "always must be 1"))
        accepted = KEP_TRAINER_CONTAINERS if kep and ancestor == TRAINER else (REQUIRED_CONTAINER[ancestor],)
        if not any(c.get("name") in accepted for c in containers(rjob)):
            errors.append(
                InputError(
                    runtime.origin,
                    path + ("template", "spec", "template", "spec", "containers"),
                    f"must contain the required container for the ancestor: {ancestor}",
                )
            )
    return errors


def name_lengths(
    runtime: Runtime, old: dict | None = None, release: releases.Release = releases.DEFAULT
) -> list[InputError]:
    """The `release`'s limit on replicatedJobs[].name; names `old` (the previous version) has pass."""
    limit = release.replicated_job_name_max
    if limit is None:
        return []
    template = ((old or {}).get("spec") or {}).get("template") or {}
    kept = {rjob.get("name") for rjob in (template.get("spec") or {}).get("replicatedJobs") or ()}
    errors = []
    for index, rjob in enumerate(runtime.spec.template.spec.get("replicatedJobs") or ()):
        name = rjob.get("name")
        if isinstance(name, str) and len(name) > limit and name not in kept:
            errors.append(
                InputError(
                    runtime.origin,
                    ("spec", "template", "spec", "replicatedJobs", index, "name"),
                    f"Invalid value: {json.dumps(name)}: must be no more than {limit} characters (from Kubeflow Trainer "
                    f"{release.name})",
                )
            )
    return errors


def warnings(runtime: Runtime, *, created: bool) -> list[Notice]:
    """The ClusterTrainingRuntime create warning (updates and TrainingRuntimes never warn)."""
    message = catalog.deprecation(runtime)
    if not created or message is None or _skipped(runtime):
        return []
    return [Notice("warning", runtime.origin, (), message, at=("metadata", "labels", catalog.SUPPORT_LABEL))]
