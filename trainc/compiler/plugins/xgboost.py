"""XGBoost: the DMLC_* tracker env and port 29500 on the trainer `node` container (spec §6.2).

One worker per GPU (any resource whose name contains "gpu"), else one per node,
counted in the TrainJob's resourcesPerNode when it has them — which replace,
not merge with, the runtime's for this purpose — else in the runtime's trainer
container. PlainML runs before this plugin and has already put `trainer.env`
in the container, so DMLC_* come after the TrainJob's names (spec §3.6 pins
that order; upstream leaves it to Go map order). The TrainJob webhook forbids
the four DMLC_* names in `trainer.env` (`validate`: one Forbidden error per entry).
"""

from __future__ import annotations

from ...errors import InputError
from ...k8s import podspec
from .. import ir
from ..admission import error
from ..ir import Unit
from . import plainml

RESERVED_ENV = ("DMLC_TRACKER_URI", "DMLC_TRACKER_PORT", "DMLC_TASK_ID", "DMLC_NUM_WORKER")


def validate(unit: Unit, change) -> list[InputError]:
    if unit.trainer is None:
        return []
    return [
        error(
            unit.trainjob.origin,
            ("spec", "trainer", "env", index),
            f"{variable['name']} is reserved for the XGBoost runtime",
        )
        for index, variable in enumerate(unit.trainer.env or ())
        if variable["name"] in RESERVED_ENV
    ]


def enforce(unit: Unit, ctx) -> Unit:
    trainer_job = ir.first_job_with_step(unit, ir.TRAINER)
    if trainer_job is None:
        return unit
    unit = plainml.with_trainer_count(unit)
    container = ir.trainer_container(unit) if unit.trainer is not None else None
    if container is None:
        return unit
    workers = unit.counts[trainer_job["name"]] * (podspec.gpu_count(ir.node_resources(unit)) or 1)
    env = [
        podspec.value_env("DMLC_TRACKER_URI", ir.coordinator(unit)),
        podspec.value_env("DMLC_TRACKER_PORT", str(ir.TRAINER_PORT)),
        podspec.field_env("DMLC_TASK_ID", ir.COMPLETION_INDEX),
        podspec.value_env("DMLC_NUM_WORKER", str(workers)),
    ]
    plainml.expose(container, env, ctx, "xgboost plugin")
    return unit
