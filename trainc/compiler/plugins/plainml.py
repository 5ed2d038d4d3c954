"""PlainML: no framework policy (or XGBoost/Flux, which build on it): numNodes and env only.

It runs unless a framework that counts its own pods is active (the registry decides, from the records); the
frameworks share its helpers.
"""

from __future__ import annotations


from ...k8s import podspec
from .. import ir
from ..ir import Unit
from ..provenance import Source


def enforce(unit: Unit, ctx) -> Unit:
    unit = with_trainer_count(unit)
    container = ir.trainer_container(unit)
    if unit.trainer is not None and container is not None:
        env = podspec.api_envs(unit.trainer.env)
        podspec.add_env(container, *env)
        if ctx.provenance is not None:
            ctx.provenance.trainer_env(unit, env)
    return unit


def with_trainer_count(unit: Unit) -> Unit:
    """The TrainJob's numNodes becomes the pod count of the first trainer job."""
    rjob = ir.first_job_with_step(unit, ir.TRAINER)
    if rjob is None or unit.trainer is None or unit.trainer.num_nodes is None:
        return unit
    return unit.replace(counts={**unit.counts, rjob["name"]: unit.trainer.num_nodes})


def expose(container: dict, env: list, ctx, by: str) -> None:
    """Upsert a framework's coordinator `env`, then the trainer port, into the trainer container (JAX, XGBoost)."""
    podspec.add_env(container, *env)
    port = {"containerPort": ir.TRAINER_PORT}
    podspec.add_ports(container, port)
    if ctx.provenance is not None:
        ctx.provenance.items([*env, port], Source(by))
