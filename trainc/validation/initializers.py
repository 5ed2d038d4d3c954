"""[TJ] Initializers need their job, container and `initializer` volume mount (upstream JobSet plugin Validate).

A TrainJob with `initializer.dataset` (resp. `.model`) needs, in the patched
runtime template, a replicated job named `dataset-initializer` (resp.
`model-initializer`) holding a container or init container of that name, whose
regular container of that name mounts a volume named `initializer`. Upstream
reports all three at `spec.runtimeRef`; trainc points at the initializer.
"""

from __future__ import annotations

from ..compiler.admission import container_names, error
from ..compiler.ir import DATASET_INITIALIZER, MODEL_INITIALIZER, Unit, pod_spec
from ..errors import InputError

VOLUME = "initializer"
SOURCES = (("dataset", DATASET_INITIALIZER, "datasetConfig"), ("model", MODEL_INITIALIZER, "modelConfig"))


def check(unit: Unit, change) -> list[InputError]:
    initializer = unit.trainjob.spec.initializer
    if initializer is None:
        return []
    jobs = {rjob.get("name"): rjob for rjob in unit.replicated_jobs}
    errors = []
    for field, step, config in SOURCES:
        if getattr(initializer, field) is None:
            continue
        rjob = jobs.get(step)
        if rjob is None:
            message = f"must have {step} job when trainJob is configured with input {config}"
        elif step not in container_names(rjob):
            message = f"must have container with name - {step} in the {step} job"
        elif not _mounts_initializer(rjob, step):
            message = f"must have volumeMount with name - {VOLUME} in container {step} of the {step} job"
        else:
            continue
        errors.append(error(unit.trainjob.origin, ("spec", "runtimeRef"), message, at=("spec", "initializer", field)))
    return errors


def _mounts_initializer(rjob: dict, name: str) -> bool:
    return any(
        mount.get("name") == VOLUME
        for container in pod_spec(rjob).get("containers") or ()
        if container.get("name") == name
        for mount in container.get("volumeMounts") or ()
    )
