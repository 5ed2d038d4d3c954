"""initializers: the TrainJob's dataset/model initializer settings (upstream Builder.Initializer, spec §8).

On every job whose ancestor step is `dataset-initializer` (resp. `model-initializer`),
the container of the same name gets, in this order: `STORAGE_URI` upserted when
`storageUri` is set (even to ""), the initializer's env upserted (so a user
`STORAGE_URI` wins), and `envFrom: [{secretRef: {name}}]` appended when
`secretRef` is set. Only regular containers are matched, as upstream does.
Volumes stay as the runtime gives them; `replicas: 1` is the network pass's job.
"""

from __future__ import annotations

from ...k8s import podspec
from .. import provenance
from ..ir import DATASET_INITIALIZER, MODEL_INITIALIZER, Unit, containers, step_of

STORAGE_URI = "STORAGE_URI"
_FIELDS = {DATASET_INITIALIZER: "dataset", MODEL_INITIALIZER: "model"}


def initializers(unit: Unit, ctx) -> Unit:
    initializer = unit.trainjob.spec.initializer
    if initializer is None:
        return unit
    for step, source in ((DATASET_INITIALIZER, initializer.dataset), (MODEL_INITIALIZER, initializer.model)):
        if source is None:
            continue
        for rjob in unit.replicated_jobs:
            if step_of(rjob, unit.kep) != step:
                continue
            for container in containers(rjob):
                if container.get("name") == step:
                    _configure(container, source, ctx, unit, ("spec", "initializer", _FIELDS[step]))
    return unit


def _configure(container: dict, source, ctx, unit: Unit, path: tuple) -> None:
    written = []  # (item, the initializer field it comes from)
    if source.storage_uri is not None:
        written.append((podspec.value_env(STORAGE_URI, source.storage_uri), ("storageUri",)))
        podspec.add_env(container, written[-1][0])
    env = podspec.api_envs(source.env)
    podspec.add_env(container, *env)
    written += [(variable, ("env", index)) for index, variable in enumerate(env)]
    if source.secret_ref is not None:
        written.append(({"secretRef": {"name": source.secret_ref["name"]}}, ("secretRef",)))
        container.setdefault("envFrom", []).append(written[-1][0])
    if ctx.provenance is not None:
        for item, field in written:
            ctx.provenance.record(item, None, provenance.trainjob(unit, "initializer override", *path, *field))
