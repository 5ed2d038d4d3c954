"""JAX: the jax.distributed env and port 29500 on the trainer `node` container (spec §6.1).

The env is upserted here, before the override pass applies `trainer.env`, so
the order is R, JAX_*, new TrainJob names — and, JAX names not being reserved
upstream, a user JAX_* value silently wins over the plugin's (spec §3.6).
"""

from __future__ import annotations

from ...k8s import podspec
from .. import ir
from ..ir import Unit
from . import plainml


def enforce(unit: Unit, ctx) -> Unit:
    unit = plainml.with_trainer_count(unit)
    container = ir.trainer_container(unit) if unit.trainer is not None else None
    if container is None:
        return unit
    nodes = unit.counts[ir.first_job_with_step(unit, ir.TRAINER)["name"]]
    env = [
        podspec.value_env("JAX_NUM_PROCESSES", str(nodes)),
        podspec.field_env("JAX_PROCESS_ID", ir.COMPLETION_INDEX),
        podspec.value_env("JAX_COORDINATOR_ADDRESS", f"{ir.coordinator(unit)}:{ir.TRAINER_PORT}"),
    ]
    plainml.expose(container, env, ctx, "jax plugin")
    return unit
