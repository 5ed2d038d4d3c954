"""XGBoost: the DMLC_* tracker env and port 29500 on the trainer `node` container (spec §6.2).

One worker per GPU (any resource whose name contains "gpu"), else one per node,
counted in the TrainJob's resourcesPerNode when it has them — which replace,
not merge with, the runtime's for this purpose — else in the runtime's trainer
container. PlainML runs before this plugin and has already put `trainer.env`
in the container, so DMLC_* come after the TrainJob's names (spec §3.6 pins
that order; upstream leaves it to Go map order). The TrainJob webhook forbids
the four DMLC_* names in `trainer.env` (trainc/validation/xgboost.py).
"""

from __future__ import annotations

from ...k8s import podspec as merge
from .. import ir
from ..ir import Unit
from ..provenance import Source
from . import plainml

RESERVED_ENV = ("DMLC_TRACKER_URI", "DMLC_TRACKER_PORT", "DMLC_TASK_ID", "DMLC_NUM_WORKER")


def enforce(unit: Unit, ctx) -> Unit:
    policy = unit.ml_policy
    if policy is None or policy.xgboost is None:
        return unit
    trainer_job = ir.first_job_with_step(unit, ir.TRAINER)
    if trainer_job is None:
        return unit
    unit = plainml.with_trainer_count(unit)
    container = ir.trainer_container(unit) if unit.trainer is not None else None
    if container is None:
        return unit
    workers = unit.counts[trainer_job["name"]] * (merge.gpu_count(ir.node_resources(unit)) or 1)
    written = [
        merge.value_env("DMLC_TRACKER_URI", ir.coordinator(unit)),
        merge.value_env("DMLC_TRACKER_PORT", str(ir.TRAINER_PORT)),
        merge.field_env("DMLC_TASK_ID", ir.COMPLETION_INDEX),
        merge.value_env("DMLC_NUM_WORKER", str(workers)),
    ]
    merge.add_env(container, *written)
    written.append({"containerPort": ir.TRAINER_PORT})
    merge.add_ports(container, written[-1])
    if ctx.provenance is not None:
        ctx.provenance.items(written, Source("xgboost plugin"))
    return unit
